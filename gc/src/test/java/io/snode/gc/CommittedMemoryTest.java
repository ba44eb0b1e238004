package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Committed memory ({@code memoryStats().bytesCommitted()}) counts the pages the cells wrote, in
 * a region (native access on, as in the test flags): not pages only read (which the kernel maps
 * to the shared zero page), and a collection never commits a page of freed cells that no write
 * touched. Without the free page release, freed cells keep their pages (README), so committed
 * memory after a delete and a collection is at most what it was before.
 */
class CommittedMemoryTest {
    /** The README's layout: one voxel per top cell leaves most of each 16 KiB level-2 pointer cell untouched. */
    private static final Layout L1 = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    /** 64 dense blocks of 128 KiB under one pointer container in the root: a voxel set in a block touches one of its 32 pages. */
    private static final Layout LARGE_BLOCKS = Layout.parse("pointer(ijk,4).dense(ijk,32).place(f32 phi)");

    private static ThreePhaseCollector collector(boolean parallel) {
        return parallel ? ParallelCollector.builder().parallelism(2).build() : ThreePhaseCollector.serial();
    }

    @Test
    void readingInactiveCellsCommitsNothing() {
        try (SparseRuntime rt = SparseRuntime.create(L1, RuntimeOptions.DEFAULT)) {
            rt.setFloat("phi", 1f, 0, 0, 0);
            long before = rt.memoryStats().bytesCommitted();
            double sum = 0;
            for (int i = 0; i < 128; i += 8) {
                for (int j = 0; j < 128; j += 8) {
                    for (int k = 0; k < 128; k += 8) {
                        sum += rt.getFloat("phi", i, j, k); // walks through the level-2 pointer cell's words
                    }
                }
            }
            assertThat(sum).isEqualTo(1.0);
            assertThat(rt.memoryStats().bytesCommitted()).as("committed after reading inactive cells").isEqualTo(before);
            // Asked on an interrupted thread, the figure is the same, the thread keeps its interrupt, and later calls
            // still count so (a channel's read, closed by the interrupt, switched the counting off for good).
            Thread.currentThread().interrupt();
            try {
                assertThat(rt.memoryStats().bytesCommitted()).as("asked on an interrupted thread").isEqualTo(before);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(rt.memoryStats().bytesCommitted()).as("asked after the interrupt").isEqualTo(before);
        }
    }

    /**
     * A collection zeroes the freed blocks' written pages only. (Where the freed cells are
     * pointer containers, their deactivation itself writes a mark into every word, so that an
     * activation that walked in before is refused: those pages are written, and stay committed
     * until free page release gives them back.)
     */
    @Test
    void aDeleteAndACollectionCommitNoPageTheCellsNeverWrote() {
        for (boolean parallel : new boolean[] {false, true}) {
            try (ThreePhaseCollector collector = collector(parallel);
                 SparseRuntime rt = SparseRuntime.create(LARGE_BLOCKS, RuntimeOptions.DEFAULT.withCollector(collector))) {
                Random random = new Random(1);
                for (int block = 0; block < 64; block++) {
                    int i = block / 16 * 32;
                    int j = block / 4 % 4 * 32;
                    int k = block % 4 * 32;
                    rt.setFloat("phi", 1f, i + random.nextInt(32), j + random.nextInt(32), k + random.nextInt(32));
                }
                long before = rt.memoryStats().bytesCommitted();
                assertThat(before).as("committed: a page of each block").isLessThan(64 * 32768L);
                rt.deactivateAll(LARGE_BLOCKS.root());
                rt.collect();
                assertThat(rt.memoryStats().bytesCommitted()).as(collector + ": committed after the delete and the"
                        + " collection, " + before + " before").isLessThanOrEqualTo(before);
                // The freed blocks serve again and read zero.
                rt.setFloat("phi", 2f, 5, 6, 7);
                assertThat(rt.getFloat("phi", 5, 6, 7)).isEqualTo(2f);
                for (int n = 0; n < 32 * 32 * 32; n += 7) {
                    assertThat(rt.getFloat("phi", n / 1024, n / 32 % 32, n % 32)).isEqualTo(n == 5 * 1024 + 6 * 32 + 7 ? 2f : 0f);
                }
            }
        }
    }
}
