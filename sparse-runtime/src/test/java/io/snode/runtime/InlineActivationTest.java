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
import org.junit.jupiter.api.Test;

/**
 * Activations that need no memory (a voxel of an existing bitmasked block) take the one-walk
 * path: they allocate nothing, count as a change exactly when a bit was set, and an activation
 * that does need memory stores nothing before it knows it can have it.
 */
class InlineActivationTest {
    private static MemoryCapExceededException refuse(SNode owner) {
        return new MemoryCapExceededException(owner.path(), 0, 1, 1);
    }

    @Test
    void aVoxelOfAnExistingBlockIsActivatedWithoutAllocatingAndCountedOnce() {
        Layout layout = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
        SNode leaf = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.setFloat("phi", 1.5f, 1, 2, 3); // publishes the block and sets one bit
            rt.internalTree().probeAllocations(owner -> {
                throw refuse(owner);
            });
            long before = rt.internalTree().activationStamp();
            rt.setFloat("phi", 2.5f, 1, 2, 4);
            long after = rt.internalTree().activationStamp();
            assertThat(after).as("a bit set: a later stamp differs").isGreaterThan(before);
            rt.setFloat("phi", 3.5f, 1, 2, 4); // already active: nothing changed
            assertThat(rt.internalTree().activationStamp()).isEqualTo(after);
            assertThat(rt.isActive(leaf, 1, 2, 4)).isTrue();
            assertThat(rt.getFloat("phi", 1, 2, 4)).isEqualTo(3.5f);
            assertThat(rt.getFloat("phi", 1, 2, 3)).isEqualTo(1.5f);
            // A voxel of a block that does not exist still needs a cell, and is refused with nothing set.
            assertThatThrownBy(() -> rt.setFloat("phi", 1f, 9, 9, 9)).isInstanceOf(MemoryCapExceededException.class);
            assertThat(rt.isActive(leaf, 9, 9, 9)).isFalse();
        }
    }

    @Test
    void aClearBitAboveAPointerStepIsNotSetWhenTheCellBelowIsRefused() {
        Layout layout = Layout.parse("bitmasked(ijk,4).pointer(ijk,4).dense(ijk,2).place(i32 n)");
        SNode top = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.internalTree().probeAllocations(owner -> {
                throw refuse(owner);
            });
            long before = rt.internalTree().activationStamp();
            assertThatThrownBy(() -> rt.setInt("n", 7, 3, 3, 3)).isInstanceOf(MemoryCapExceededException.class);
            assertThat(rt.isActive(top, 0, 0, 0)).as("the top bit stays clear").isFalse();
            assertThat(rt.internalTree().activationStamp()).isEqualTo(before);
            rt.internalTree().probeAllocations(null);
            rt.setInt("n", 7, 3, 3, 3);
            assertThat(rt.isActive(top, 0, 0, 0)).isTrue();
            assertThat(rt.getInt("n", 3, 3, 3)).isEqualTo(7);
        }
    }

    /**
     * Threads writing voxels of existing blocks (the one-walk path) beside voxels of blocks the
     * cap refuses (the full protocol, failing in its reservation), released together: against the
     * model of the calls that returned normally, every returned write is active and reads back,
     * every refused voxel is inactive, and the activation stamp moved (and stays still once they are done).
     */
    @Test
    void inlineActivationsBesideRefusedOnesKeepEveryReturnedWrite() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
        SNode leaf = layout.snode(2);
        int threads = 4;
        int perThread = 96;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.setFloat("phi", -1f, 0, 0, 0); // blocks (0,0,0) and (1,0,0) exist; (2,0,0), (3,0,0) do not
            rt.setFloat("phi", -1f, 8, 0, 0);
            rt.internalTree().probeAllocations(owner -> {
                throw refuse(owner);
            });
            long before = rt.internalTree().activationStamp();
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<List<int[]>>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                parts.add(pool.submit(() -> {
                    List<int[]> outcomes = new ArrayList<>(); // {i, j, k, 1 = returned, 0 = refused}
                    start.await(30, TimeUnit.SECONDS);
                    for (int n = 0; n < perThread; n++) {
                        int i = (n % 4) * 8 + (n / 4) % 8; // blocks 0..3 along i, every thread
                        int j = thread;
                        int k = 1 + (n / 32);
                        try {
                            rt.setFloat("phi", i * 100 + j * 10 + k, i, j, k);
                            outcomes.add(new int[] {i, j, k, 1});
                        } catch (MemoryCapExceededException refused) {
                            outcomes.add(new int[] {i, j, k, 0});
                        }
                    }
                    return outcomes;
                }));
            }
            int returned = 0;
            for (Future<List<int[]>> part : parts) {
                for (int[] o : part.get(60, TimeUnit.SECONDS)) {
                    boolean existing = o[0] < 16;
                    assertThat(o[3]).as("(%d,%d,%d) returned iff its block existed", o[0], o[1], o[2])
                            .isEqualTo(existing ? 1 : 0);
                    assertThat(rt.isActive(leaf, o[0], o[1], o[2])).isEqualTo(existing);
                    if (existing) {
                        returned++;
                        assertThat(rt.getFloat("phi", o[0], o[1], o[2])).isEqualTo(o[0] * 100 + o[1] * 10 + o[2]);
                    }
                }
            }
            assertThat(returned).isEqualTo(threads * perThread / 2);
            long after = rt.internalTree().activationStamp();
            assertThat(after).isGreaterThan(before);
            assertThat(rt.internalTree().activationStamp()).isEqualTo(after);
        } finally {
            pool.shutdownNow();
        }
    }
}
