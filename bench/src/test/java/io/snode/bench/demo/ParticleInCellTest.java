package io.snode.bench.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("scalar-fallback")
class ParticleInCellTest {

    @Test
    void theSourcePuffsTheRequestedParticlesDuringTheFirstHalfOfTheSteps() {
        ParticleInCell.Config config = new ParticleInCell.Config(40, 10_001, 1, 1);
        long[] before = ParticleInCell.emissionSchedule(config);
        assertThat(before).hasSize(21).startsWith(0L).endsWith(10_001L);
        for (int t = 0; t + 1 < before.length; t++) {
            assertThat(before[t + 1]).isGreaterThanOrEqualTo(before[t]);
        }
        // Puffs: the rate at a puff's peak is far above the rate between puffs.
        long peak = before[(int) ParticleInCell.PULSE / 2 + 1] - before[(int) ParticleInCell.PULSE / 2];
        long trough = before[1] - before[0];
        assertThat(peak).isGreaterThan(10 * Math.max(1, trough));
    }

    @Test
    void massIsConservedExactlyUpToPerParticleRounding() {
        try (ParticleInCell run = new ParticleInCell(new ParticleInCell.Config(10, 4_000, 3, 2))) {
            ParticleInCell.StepStats stats = null;
            long emitted = 0;
            for (int n = 0; n < 10; n++) {
                stats = run.step();
                emitted += stats.emitted();
            }
            assertThat(stats.particles()).isEqualTo(emitted); // nobody has reached a wall yet
            // Every particle deposits mass 1 in 8 shares, each rounded on its own.
            long mass = 0;
            for (long column : run.projection().mass()) {
                mass += column;
            }
            long scatteredBy = emitted - stats.emitted(); // the last step's new particles are in it too
            assertThat(Math.abs(mass - emitted * (long) ParticleInCell.SCALE)).isLessThanOrEqualTo(4 * emitted);
            assertThat(scatteredBy).isPositive();
        }
    }

    @Test
    void blocksFollowTheParticlesAndAllMemoryComesBackWhenTheyHaveLeft() {
        try (ParticleInCell run = new ParticleInCell(new ParticleInCell.Config(20, 400, 5, 2))) {
            List<ParticleInCell.StepStats> history = new ArrayList<>();
            ParticleInCell.StepStats stats;
            do {
                stats = run.step();
                history.add(stats);
            } while (stats.particles() > 0 && history.size() < 600);
            assertThat(stats.particles()).as("all particles leave the domain").isZero();
            long peakBlocks = history.stream().mapToLong(ParticleInCell.StepStats::activeBlocks).max().orElseThrow();
            long peakBytes = history.stream().mapToLong(ParticleInCell.StepStats::bytesInUse).max().orElseThrow();
            long left = history.stream().mapToLong(ParticleInCell.StepStats::left).sum();
            assertThat(left).isEqualTo(400);
            assertThat(peakBlocks).isPositive();
            assertThat(peakBytes).isGreaterThan(peakBlocks * 24_576); // a block's dense cells alone are 24 KiB
            // One more step: the blocks the last particles touched are no longer touched.
            stats = run.step();
            assertThat(stats.activeBlocks()).isZero();
            assertThat(stats.bytesInUse()).isZero();
            // The run held memory from the system but never more than its peak needed, twice over.
            assertThat(stats.bytesReserved()).isPositive().isLessThan(4 * peakBytes + (1 << 20));
        }
    }

    @Test
    void theChecksumDependsOnTheStateNotOnTheThreads() {
        long[] sequential = checksumsAfter(9, 10, new ParticleInCell.Config(10, 3_000, 11, 1));
        long[] parallel = checksumsAfter(9, 10, new ParticleInCell.Config(10, 3_000, 11, 4));
        assertThat(parallel).containsExactly(sequential);
        assertThat(sequential[0]).isNotEqualTo(sequential[1]);
    }

    /** The checksums after {@code first} steps and after {@code second} steps of one run. */
    private static long[] checksumsAfter(int first, int second, ParticleInCell.Config config) {
        try (ParticleInCell run = new ParticleInCell(config)) {
            long[] checksums = new long[2];
            while (run.stepsDone() < second) {
                run.step();
                if (run.stepsDone() == first) {
                    checksums[0] = run.checksum();
                    assertThat(run.checksum()).as("reading the checksum changes nothing").isEqualTo(checksums[0]);
                }
            }
            checksums[1] = run.checksum();
            return checksums;
        }
    }

    /**
     * A fixed run's checksum, as the demo computed it before its particle phases became block
     * kernels over the lists (a105a9a: per-element reads, halo read row by row): a change of how
     * the demo reads and writes must leave the simulation as it was.
     */
    @Test
    void aFixedRunEndsWithTheChecksumThePerElementDemoGave() {
        for (int threads : new int[] {1, 2}) {
            try (ParticleInCell run = new ParticleInCell(new ParticleInCell.Config(40, 30_000, 11, threads))) {
                for (int n = 0; n < 40; n++) {
                    run.step();
                }
                assertThat(run.checksum()).as("threads=" + threads).isEqualTo(0x04ee7dceae333c0aL);
            }
        }
    }

    @Test
    void configurationsOutsideTheLimitsAreRejected() {
        assertThatThrownBy(() -> new ParticleInCell.Config(0, 10, 1, 1)).hasMessageContaining("steps=0");
        assertThatThrownBy(() -> new ParticleInCell.Config(10, ParticleInCell.MAX_PARTICLES + 1, 1, 1))
                .hasMessageContaining("particles=");
        assertThatThrownBy(() -> new ParticleInCell.Config(10, 10, 1, 0)).hasMessageContaining("threads=0");
    }
}
