package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.memory.ForwardingAllocator;
import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.internal.memory.MemoryPool;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * With {@link RuntimeOptions#withFreePageRelease}, a collection gives the whole pages of long
 * runs of recycled cells back to the system ({@code madvise}) instead of zeroing them, where a
 * node manager's cells lie in a region: the
 * runtime's committed bytes (resident pages, {@code mincore}) fall after a large delete, reused
 * cells read zero, the cells still active keep their values, and a give-back that fails falls back
 * to zeroing. The tests run with native access enabled (the test flags), so regions are used.
 */
class PageReleaseTest {
    /** Layout L2 of bench/WORKLOADS.md: the level-2 pointer cells hold bitmasked 8^3 blocks (2,112 bytes). */
    private static final Layout L2 = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
    /** Blocks per axis of the slab written: 16 x 16 x 16 blocks of 8^3 voxels, 8.6 MB of leaf cells. */
    private static final int BLOCKS = 16;
    private static final RuntimeOptions RELEASING = RuntimeOptions.DEFAULT.withFreePageRelease(true);

    private static List<ThreePhaseCollector> collectors() {
        return List.of(ThreePhaseCollector.serial(), ParallelCollector.builder().parallelism(2).build());
    }

    private static float value(int i, int j, int k, int round) {
        return i * 1_000_000f + j * 1000f + k + round * 0.5f;
    }

    /** Writes 3 voxels of every block with block i in [fromBlock, toBlock), i-major (the allocation order). */
    private static void writeSlab(SparseRuntime rt, int fromBlock, int toBlock, int round) {
        for (int bi = fromBlock; bi < toBlock; bi++) {
            for (int bj = 0; bj < BLOCKS; bj++) {
                for (int bk = 0; bk < BLOCKS; bk++) {
                    for (int v = 0; v < 3; v++) {
                        int i = bi * 8 + v;
                        int j = bj * 8 + 2 * v;
                        int k = bk * 8 + 7 - v;
                        rt.setFloat("phi", value(i, j, k, round), i, j, k);
                    }
                }
            }
        }
    }

    /** Every voxel of blocks with block i in [fromBlock, toBlock) reads what {@link #writeSlab} wrote, the rest zero. */
    private static void checkSlab(SparseRuntime rt, int fromBlock, int toBlock, int round) {
        for (int bi = fromBlock; bi < toBlock; bi++) {
            for (int bj = 0; bj < BLOCKS; bj++) {
                for (int bk = 0; bk < BLOCKS; bk++) {
                    for (int x = 0; x < 8; x++) {
                        for (int y = 0; y < 8; y++) {
                            for (int z = 0; z < 8; z++) {
                                int i = bi * 8 + x;
                                int j = bj * 8 + y;
                                int k = bk * 8 + z;
                                boolean written = x < 3 && y == 2 * x && z == 7 - x;
                                float phi = rt.getFloat("phi", i, j, k);
                                if (phi != (written ? value(i, j, k, round) : 0f)) {
                                    throw new AssertionError("voxel " + i + "," + j + "," + k + " reads " + phi);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aLargeDeleteGivesItsPagesBackAndTheCellsComeBackZeroed() {
        for (ThreePhaseCollector collector : collectors()) {
            aLargeDeleteGivesItsPagesBack(collector, RELEASING);
        }
    }

    /** As above with huge pages: the whole huge pages of the deleted cells go back. */
    @Test
    void withHugePagesALargeDeleteGivesItsPagesBackToo() {
        aLargeDeleteGivesItsPagesBack(ParallelCollector.builder().parallelism(2).build(), RELEASING.withHugePages(true));
    }

    /**
     * With huge pages, the collection gives back only whole huge pages (aligned, so that none is
     * split and the pages written again fault in whole), across the region's 1 MiB chunks and
     * the collector's zeroing tasks; the rest of the deleted cells is zeroed.
     */
    @Test
    void withHugePagesOnlyWholeHugePagesAreGivenBack() {
        FailingGiveBack allocator = new FailingGiveBack();
        try (ThreePhaseCollector collector = ParallelCollector.builder().parallelism(2).zeroGrainBytes(64 << 10).build();
             SparseRuntime rt = SparseRuntime.create(L2,
                     RELEASING.withHugePages(true).withAllocator(allocator).withCollector(collector))) {
            SNode blocks = rt.layout().snode(2);
            writeSlab(rt, 0, BLOCKS, 0);
            org.junit.jupiter.api.Assumptions.assumeTrue(allocator.hugePagesTaken,
                    "the kernel backs no region with huge pages (transparent_hugepage at never, or none built in)");
            long deleted = rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {BLOCKS / 2, BLOCKS, BLOCKS});
            allocator.given.clear();
            rt.collect();
            assertThat(allocator.given).as("ranges given back").isNotEmpty();
            long given = 0;
            for (long[] range : allocator.given) {
                assertThat(range[0] % MemoryPool.HUGE_PAGE).as("start of a range given back").isZero();
                assertThat(range[1] % MemoryPool.HUGE_PAGE).as("length of a range given back").isZero();
                given += range[1];
            }
            // 4.3 MB of cells from the region's start: its first two huge pages.
            assertThat(given).as("bytes given back, of " + deleted * 2112 + " deleted").isEqualTo(2 * MemoryPool.HUGE_PAGE);
            checkSlab(rt, BLOCKS / 2, BLOCKS, 0);
            writeSlab(rt, 0, BLOCKS / 2, 1);
            checkSlab(rt, 0, BLOCKS / 2, 1);
        }
    }

    private static void aLargeDeleteGivesItsPagesBack(ThreePhaseCollector collector, RuntimeOptions options) {
        {
            try (collector; SparseRuntime rt = SparseRuntime.create(L2, options.withCollector(collector))) {
                SNode blocks = rt.layout().snode(2);
                writeSlab(rt, 0, BLOCKS, 0);
                long before = rt.memoryStats().bytesCommitted();
                long reserved = rt.memoryStats().bytesReserved();
                assertThat(before).as("committed after the build").isGreaterThan(8_000_000L).isLessThanOrEqualTo(reserved);

                // Box in the cell coordinates of the level-2 pointer node: one cell per block.
                long deleted = rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {BLOCKS / 2, BLOCKS, BLOCKS});
                assertThat(deleted).isEqualTo(BLOCKS / 2 * BLOCKS * BLOCKS);
                rt.collect();
                long afterDelete = rt.memoryStats().bytesCommitted();
                if (options.hugePages()) {
                    // Up to 2 MiB per region stays committed beyond the cells (the huge page at its end), which on
                    // this 8.6 MB slab is a large part: what must go is the deleted cells' pages.
                    long deletedBytes = deleted * 2112; // an L2 block's cell: 64 bytes of mask and 512 floats
                    assertThat(before - afterDelete).as(collector + ": committed given back, of " + deletedBytes + " deleted")
                            .isGreaterThanOrEqualTo(deletedBytes * 9 / 10);
                } else {
                    assertThat(afterDelete).as(collector + ": committed after deleting half, of " + before)
                            .isLessThanOrEqualTo(before * 60 / 100);
                }
                assertThat(rt.memoryStats().bytesReserved()).as("the cap still counts the cells").isEqualTo(reserved);
                checkSlab(rt, BLOCKS / 2, BLOCKS, 0);

                writeSlab(rt, 0, BLOCKS / 2, 1);
                assertThat(rt.memoryStats().bytesReserved()).as("the same cells came back").isEqualTo(reserved);
                assertThat(rt.memoryStats().bytesCommitted()).isGreaterThan(afterDelete);
                checkSlab(rt, 0, BLOCKS / 2, 1);
                checkSlab(rt, BLOCKS / 2, BLOCKS, 0);
            }
        }
    }

    @Test
    void byDefaultTheCollectionKeepsThePagesOfFreeCells() {
        try (ThreePhaseCollector collector = ParallelCollector.builder().parallelism(2).build();
             SparseRuntime rt = SparseRuntime.create(L2, RuntimeOptions.DEFAULT.withCollector(collector))) {
            assertThat(RuntimeOptions.DEFAULT.releasesFreePages()).isFalse();
            writeSlab(rt, 0, BLOCKS, 0);
            long before = rt.memoryStats().bytesCommitted();
            rt.deactivateBox(rt.layout().snode(2), new int[] {0, 0, 0}, new int[] {BLOCKS / 2, BLOCKS, BLOCKS});
            rt.collect();
            assertThat(rt.memoryStats().bytesCommitted()).isEqualTo(before);
            writeSlab(rt, 0, BLOCKS / 2, 1);
            checkSlab(rt, 0, BLOCKS / 2, 1);
            checkSlab(rt, BLOCKS / 2, BLOCKS, 0);
            assertThat(rt.memoryStats().bytesCommitted()).isEqualTo(before);
        }
    }

    @Test
    void shortRunsAreZeroedAndKeepTheirPages() {
        try (ThreePhaseCollector collector = ParallelCollector.builder().parallelism(2).build();
             SparseRuntime rt = SparseRuntime.create(L2, RELEASING.withCollector(collector))) {
            SNode blocks = rt.layout().snode(2);
            writeSlab(rt, 0, BLOCKS, 0);
            long before = rt.memoryStats().bytesCommitted();
            // Every other block along k: runs of one cell, never a whole page.
            for (int bi = 0; bi < BLOCKS; bi++) {
                for (int bj = 0; bj < BLOCKS; bj++) {
                    for (int bk = 0; bk < BLOCKS; bk += 2) {
                        assertThat(rt.deactivate(blocks, bi, bj, bk)).isTrue();
                    }
                }
            }
            rt.collect();
            assertThat(rt.memoryStats().bytesCommitted()).isEqualTo(before);
            for (int bi = 0; bi < BLOCKS; bi++) {
                for (int bj = 0; bj < BLOCKS; bj++) {
                    for (int bk = 0; bk < BLOCKS; bk += 2) {
                        rt.setFloat("phi", 1f, bi * 8 + 7, bj * 8 + 7, bk * 8 + 7);
                        assertThat(rt.getFloat("phi", bi * 8, bj * 8, bk * 8 + 7)).isZero();
                    }
                }
            }
        }
    }

    /**
     * The default allocator, with every give-back of pages failing while {@code failing} is set;
     * the ranges given back are recorded (address, bytes).
     */
    private static final class FailingGiveBack extends ForwardingAllocator {
        final AtomicLong failures = new AtomicLong();
        final List<long[]> given = java.util.Collections.synchronizedList(new ArrayList<>());
        volatile boolean failing;

        /** Whether the kernel took the advice of huge pages for a region. */
        volatile boolean hugePagesTaken;
        /** Whether a failing give-back throws an Error (an OutOfMemoryError) rather than a RuntimeException. */
        volatile boolean error;

        FailingGiveBack() {
            super(MemoryAllocator.regionsWherePossible());
        }

        @Override
        public boolean adviseHugePages(MemorySegment region) {
            boolean taken = super.adviseHugePages(region);
            hugePagesTaken |= taken;
            return taken;
        }

        @Override
        public void decommit(MemorySegment region, long offset, long byteSize) {
            if (failing) {
                failures.incrementAndGet();
                // Half done: the first bytes are zeroed, then the call fails.
                region.asSlice(offset, Math.min(byteSize, 100)).fill((byte) 0);
                if (error) {
                    throw new OutOfMemoryError("injected fault giving back " + byteSize + " bytes");
                }
                throw new IllegalStateException("injected fault giving back " + byteSize + " bytes");
            }
            given.add(new long[] {region.address() + offset, byteSize});
            super.decommit(region, offset, byteSize);
        }
    }

    /**
     * Give-backs fail in the collector's parallel tasks while four threads then rebuild the
     * deleted half and read the other: the collection completes, every cell it reclaimed reads zero
     * when it comes back, and every value a thread wrote or kept is there afterwards.
     */
    @Test
    void aFailedGiveBackFallsBackToZeroingAndThreadsLoseNothing() throws Exception {
        aFailedGiveBackFallsBackToZeroing(RELEASING, false);
    }

    /** As above with huge pages, where runs go on across chunks and the edges of a range are zeroed before the give-back fails. */
    @Test
    void withHugePagesAFailedGiveBackFallsBackToZeroingAndThreadsLoseNothing() throws Exception {
        aFailedGiveBackFallsBackToZeroing(RELEASING.withHugePages(true), false);
    }

    /**
     * As above with the give-back failing with an Error (an OutOfMemoryError): until 12-07 only a
     * RuntimeException fell back to zeroing, and an Error ended the collection in its last phase.
     */
    @Test
    void aGiveBackFailingWithAnErrorFallsBackToZeroingToo() throws Exception {
        aFailedGiveBackFallsBackToZeroing(RELEASING, true);
    }

    private static void aFailedGiveBackFallsBackToZeroing(RuntimeOptions options, boolean error) throws Exception {
        FailingGiveBack allocator = new FailingGiveBack();
        allocator.error = error;
        try (ThreePhaseCollector collector = ParallelCollector.builder().parallelism(4).zeroGrainBytes(64 << 10).build();
             SparseRuntime rt = SparseRuntime.create(L2,
                     options.withAllocator(allocator).withCollector(collector));
             ExecutorService pool = Executors.newFixedThreadPool(4)) {
            SNode blocks = rt.layout().snode(2);
            writeSlab(rt, 0, BLOCKS, 0);
            long before = rt.memoryStats().bytesCommitted();
            rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {BLOCKS / 2, BLOCKS, BLOCKS});
            allocator.failing = true;
            rt.collect();
            allocator.failing = false;
            assertThat(allocator.failures.get()).as("give-backs tried").isPositive();
            assertThat(rt.memoryStats().bytesCommitted()).as("nothing was given back").isEqualTo(before);

            CyclicBarrier start = new CyclicBarrier(4);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    if (thread < 2) {
                        int half = BLOCKS / 4;
                        writeSlab(rt, thread * half, (thread + 1) * half, 1);
                    } else {
                        checkSlab(rt, BLOCKS / 2, BLOCKS, 0);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            checkSlab(rt, 0, BLOCKS / 2, 1);
            checkSlab(rt, BLOCKS / 2, BLOCKS, 0);
        }
    }
}
