package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An activation that needs one cell (a voxel of a new leaf block: every step above the block's
 * pointer word active, only in-place steps below) publishes that cell without the full protocol
 * (NodeTree's one-pointer activation): the block appears with exactly the written voxel, counted
 * once; a refusal (memory cap, injected fault) leaves nothing; a lost race hands its cell back
 * and writes into the winner's block; threads racing for the same new blocks publish one cell per
 * block and lose no write.
 */
class OnePointerActivationTest {
    static final Layout LAYOUT = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
    static final SNode POINTER = LAYOUT.snode(1);
    static final SNode LEAF = LAYOUT.snode(2);

    private static long blocksInUse(SparseRuntime rt) {
        return rt.memoryStats().of(POINTER).cells().cellsInUse();
    }

    private static int activeVoxels(SparseRuntime rt, int bi, int bj, int bk) {
        int active = 0;
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                for (int k = 0; k < 8; k++) {
                    active += rt.isActive(LEAF, bi * 8 + i, bj * 8 + j, bk * 8 + k) ? 1 : 0;
                }
            }
        }
        return active;
    }

    @Test
    void aNewBlockAppearsWithOnlyTheWrittenVoxelCountedOnce() {
        try (SparseRuntime rt = SparseRuntime.create(LAYOUT)) {
            long before = rt.internalTree().activationStamp();
            rt.setFloat("phi", 2.5f, 9, 10, 11);
            assertThat(rt.internalTree().activationStamp()).isGreaterThan(before);
            assertThat(blocksInUse(rt)).isEqualTo(1);
            assertThat(activeVoxels(rt, 1, 1, 1)).isEqualTo(1);
            assertThat(rt.isActive(LEAF, 9, 10, 11)).isTrue();
            assertThat(rt.getFloat("phi", 9, 10, 11)).isEqualTo(2.5f);
            assertThat(rt.getFloat("phi", 9, 10, 12)).isZero();
        }
    }

    @Test
    void aRefusedOrFailedBlockChangesNothing() {
        try (SparseRuntime rt = SparseRuntime.create(LAYOUT)) {
            rt.setFloat("phi", 1f, 0, 0, 0);
            long before = rt.internalTree().activationStamp();
            rt.internalTree().probeAllocations(owner -> {
                throw new MemoryCapExceededException(owner.path(), 0, 1, 1);
            });
            assertThatThrownBy(() -> rt.setFloat("phi", 2f, 20, 20, 20)).isInstanceOf(MemoryCapExceededException.class);
            rt.internalTree().probeAllocations(owner -> {
                throw new IllegalStateException("injected allocator fault");
            });
            assertThatThrownBy(() -> rt.setFloat("phi", 2f, 20, 20, 20)).hasMessage("injected allocator fault");
            assertThat(rt.internalTree().activationStamp()).isEqualTo(before);
            assertThat(blocksInUse(rt)).isEqualTo(1);
            assertThat(activeVoxels(rt, 2, 2, 2)).isZero();
            rt.internalTree().probeAllocations(null);
            rt.setFloat("phi", 2f, 20, 20, 20);
            assertThat(blocksInUse(rt)).isEqualTo(2);
            assertThat(rt.getFloat("phi", 20, 20, 20)).isEqualTo(2f);
            assertThat(rt.getFloat("phi", 0, 0, 0)).isEqualTo(1f);
        }
    }

    /**
     * The race made deterministic: while the first write to a new block is in its allocation, a
     * second write (same thread, from the allocation probe) publishes the block. The first then
     * loses the compare-and-set, zeroes the bit it built, hands its cell back and writes into
     * the published block.
     */
    @Test
    void aLostRaceHandsItsCellBackAndWritesIntoTheWinnersBlock() {
        try (SparseRuntime rt = SparseRuntime.create(LAYOUT)) {
            long before = rt.internalTree().activationStamp();
            AtomicBoolean inside = new AtomicBoolean();
            AtomicLong allocations = new AtomicLong();
            rt.internalTree().probeAllocations(owner -> {
                allocations.incrementAndGet();
                if (inside.compareAndSet(false, true)) {
                    rt.setFloat("phi", 7f, 17, 1, 2); // the winner, in the same block (2, 0, 0)
                }
            });
            rt.setFloat("phi", 3f, 16, 0, 0);
            rt.internalTree().probeAllocations(null);
            assertThat(allocations.get()).as("both writes took a cell").isEqualTo(2);
            assertThat(blocksInUse(rt)).as("the loser's cell went back").isEqualTo(1);
            assertThat(activeVoxels(rt, 2, 0, 0)).isEqualTo(2);
            assertThat(rt.getFloat("phi", 16, 0, 0)).isEqualTo(3f);
            assertThat(rt.getFloat("phi", 17, 1, 2)).isEqualTo(7f);
            assertThat(rt.internalTree().activationStamp()).isGreaterThan(before);
            // The cell handed back is whole and zero: the next block gets it and shows one voxel.
            rt.setFloat("phi", 4f, 31, 31, 31);
            assertThat(activeVoxels(rt, 3, 3, 3)).isEqualTo(1);
            assertThat(rt.getFloat("phi", 31, 31, 31)).isEqualTo(4f);
        }
    }

    /**
     * Threads released together write one voxel each of the same new blocks, in the same order,
     * round after round (the structure emptied and collected between rounds): every block holds
     * one cell, every write reads back, and each write that set a bit counted once.
     */
    @Test
    void threadsRacingForNewBlocksPublishOneCellPerBlockAndLoseNoWrite() throws Exception {
        int threads = 4;
        int rounds = 20;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SparseRuntime rt = SparseRuntime.create(LAYOUT)) {
            for (int round = 0; round < rounds; round++) {
                long before = rt.internalTree().activationStamp();
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<?>> parts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    int value = round * 10 + t;
                    parts.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        for (int b = 0; b < 64; b++) {
                            rt.setFloat("phi", value, (b >> 4) * 8 + thread, ((b >> 2) & 3) * 8, (b & 3) * 8);
                        }
                        return null;
                    }));
                }
                for (Future<?> part : parts) {
                    part.get(60, TimeUnit.SECONDS);
                }
                assertThat(blocksInUse(rt)).as("round %d", round).isEqualTo(64);
                assertThat(rt.internalTree().activationStamp()).isGreaterThan(before);
                for (int b = 0; b < 64; b++) {
                    assertThat(activeVoxels(rt, b >> 4, (b >> 2) & 3, b & 3)).isEqualTo(threads);
                    for (int t = 0; t < threads; t++) {
                        assertThat(rt.getFloat("phi", (b >> 4) * 8 + t, ((b >> 2) & 3) * 8, (b & 3) * 8))
                                .isEqualTo(round * 10 + t);
                    }
                }
                rt.deactivateAll(LAYOUT.root());
                rt.collect();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
