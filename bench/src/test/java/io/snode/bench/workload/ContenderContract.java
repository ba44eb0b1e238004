package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What every contender promises, run by a subclass per contender on the quick band with one
 * timed run and no warm-up: each workload it takes part in gives checked rows whose checksums
 * equal the data set's reference values, with the items, times and memory figures filled in.
 */
abstract class ContenderContract {
    static DataSet data;
    static final Trials ONCE = new Trials(0, 1, line -> { });
    static final List<Integer> THREADS = List.of(1, 2);

    @BeforeAll
    static void quickBand() {
        data = QuickData.get();
    }

    /** The contender under test. */
    abstract Contender contender();

    /** The workloads it takes part in (the others must give no rows). */
    abstract Set<Workload> workloads();

    /** How many rows a run of {@code workload} gives: one per thread count for W5, else one. */
    int rows(Workload workload) {
        return workload == Workload.W5 ? THREADS.size() : 1;
    }

    Contender.Context context() {
        return new Contender.Context(data, ONCE, THREADS);
    }

    @Test
    void everyWorkloadGivesCheckedRowsWithItsFigures() {
        Contender contender = contender();
        List<Result> all = new ArrayList<>();
        for (Workload workload : Workload.values()) {
            List<Result> results = contender.run(workload, context());
            if (!workloads().contains(workload)) {
                assertThat(results).as(workload.id()).isEmpty();
                continue;
            }
            assertThat(results).as(workload.id()).hasSize(rows(workload));
            for (Result result : results) {
                String row = result.key();
                assertThat(result.checks()).as(row).isEqualTo(Result.OK);
                assertThat(result.checksumsOk()).as(row).isTrue();
                assertThat(result.workload()).as(row).isEqualTo(workload.id());
                assertThat(result.structure()).as(row).isEqualTo(contender.structure());
                assertThat(result.api()).as(row).isNotBlank();
                assertThat(result.items()).as(row).isEqualTo(items(workload, result, contender));
                assertThat(result.timesS()).as(row).hasSize(1).allSatisfy(s -> assertThat(s).isPositive());
                assertThat(result.medianS()).as(row).isPositive();
                assertThat(result.voxelsPerS()).as(row).isPositive();
                if (workload == Workload.W1S || workload == Workload.W1R || workload == Workload.W5) {
                    assertThat(result.bytesPerVoxel()).as(row).isGreaterThan(2048.0 / 512);
                    assertThat(result.reservedBytesPerVoxel()).as(row).isEqualTo(result.bytesPerVoxel());
                }
                if (workload == Workload.W4) {
                    assertThat(result.heldBytesAfterDelete()).as(row).isLessThan(result.heldBytesBefore());
                    assertThat(result.heldBytesAfter()).as(row).isGreaterThan(result.heldBytesAfterDelete())
                            .isLessThanOrEqualTo(result.heldBytesBefore());
                }
            }
            all.addAll(results);
        }
        if (workloads().contains(Workload.W5)) {
            assertThat(all.stream().filter(r -> r.workload().equals("W5")).map(Result::threads)).containsExactly(1, 2);
        }
        assertThat(all.stream().map(Result::key).distinct().count()).isEqualTo(all.size());
    }

    private static long items(Workload workload, Result result, Contender contender) {
        DataSet.References references = data.references();
        return switch (workload) {
            case W1S, W1R, W5 -> references.voxels();
            case W2 -> DataSet.READS;
            case W3 -> result.count();
            case W4 -> references.lowVoxels();
            case W6, W6V -> DataSet.PARTICLES;
        };
    }
}
