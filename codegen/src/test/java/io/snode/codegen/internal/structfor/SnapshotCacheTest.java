package io.snode.codegen.internal.structfor;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.vectorization.ReductionKernels;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The snapshot cache's rules: a launch's snapshot is reused while neither the epoch nor the
 * activation count moved; a kept snapshot goes stale with the epoch only and is never handed to
 * other launches; and reductions run on the launches' split.
 */
class SnapshotCacheTest {
    static final Layout MASKED = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 v)");
    static final Layout DENSE = Layout.parse("pointer(ijk,8).dense(ijk,8).place(f64 phi)");

    private static int blocks(SnapshotCache cache, SNode target) {
        return cache.withSnapshot(target, ActiveBlocks::size);
    }

    @Test
    void launchesReuseTheSnapshotUntilAnActivationDeactivationOrCollection() {
        try (SNodeRuntime rt = SNodeRuntime.compile(MASKED)) {
            NodeTree structure = rt.generic().internalTree();
            SnapshotCache cache = new SnapshotCache(structure, target -> null);
            SNode leaf = MASKED.snode(2);
            rt.generic().setFloat("v", 1f, 1, 2, 3);
            List<ActiveBlocks> seen = new ArrayList<>();
            cache.withSnapshot(leaf, seen::add);
            cache.withSnapshot(leaf, seen::add);
            assertThat(cache.walks()).as("nothing changed").isEqualTo(1);
            assertThat(seen.get(1)).as("the same snapshot, as it is").isSameAs(seen.get(0));
            rt.generic().setFloat("v", 1f, 9, 9, 9);
            assertThat(blocks(cache, leaf)).isEqualTo(2);
            assertThat(cache.walks()).as("an activation").isEqualTo(2);
            rt.generic().deactivate(leaf, 9, 9, 9);
            assertThat(blocks(cache, leaf)).isEqualTo(2); // the pointer cell stays, its mask is empty
            assertThat(cache.walks()).as("a deactivation").isEqualTo(3);
            rt.gc();
            blocks(cache, leaf);
            assertThat(cache.walks()).as("a collection").isEqualTo(4);
            blocks(cache, leaf);
            assertThat(cache.walks()).isEqualTo(4);
        }
    }

    /**
     * A walk after a change refills the arrays of the launch before it, the running sums of
     * the blocks' weights included: they are made again from the new blocks, never kept from the
     * old ones (here block 0 holds 1 cell, then 5).
     */
    @Test
    void aSnapshotRefilledAfterAChangeMakesItsWeightSumsFromItsOwnBlocks() {
        try (SNodeRuntime rt = SNodeRuntime.compile(MASKED)) {
            SnapshotCache cache = new SnapshotCache(rt.generic().internalTree(), target -> null);
            SNode leaf = MASKED.snode(2);
            rt.generic().setFloat("v", 1f, 1, 2, 3);
            rt.generic().setFloat("v", 1f, 9, 9, 9);
            rt.generic().setFloat("v", 1f, 10, 9, 9);
            long[] before = cache.withSnapshot(leaf, blocks -> blocks.weightPrefix().clone());
            assertThat(before).containsExactly(0, 1, 3);
            for (int k = 4; k < 8; k++) {
                rt.generic().setFloat("v", 1f, 1, 2, k);
            }
            rt.generic().deactivate(leaf, 10, 9, 9);
            long[][] after = new long[1][];
            ActiveBlocks refilled = cache.withSnapshot(leaf, blocks -> {
                after[0] = blocks.weightPrefix();
                return blocks;
            });
            assertThat(cache.walks()).isEqualTo(2);
            assertThat(after[0]).as("the spare's array, refilled").hasSizeGreaterThanOrEqualTo(3);
            assertThat(java.util.Arrays.copyOf(after[0], refilled.size() + 1)).containsExactly(0, 5, 6);
        }
    }

    @Test
    void keptSnapshotsGoStaleWithTheEpochOnlyAndAreNotReusedByLaunches() {
        try (SNodeRuntime rt = SNodeRuntime.compile(MASKED)) {
            SnapshotCache cache = new SnapshotCache(rt.generic().internalTree(), target -> null);
            SNode leaf = MASKED.snode(2);
            rt.generic().setFloat("v", 1f, 1, 2, 3);
            ActiveBlocks kept = cache.keep(leaf);
            assertThat(cache.isCurrent(kept)).isTrue();
            assertThat(cache.walks()).as("a kept set is not a launch's walk").isZero();
            ActiveBlocks launched = cache.withSnapshot(leaf, blocks -> blocks);
            assertThat(launched).isNotSameAs(kept);
            assertThat(cache.walks()).isEqualTo(1);
            rt.generic().setFloat("v", 1f, 9, 9, 9);
            assertThat(cache.isCurrent(kept)).as("activations do not make a kept set stale").isTrue();
            assertThat(kept.size()).as("nor change it").isEqualTo(1);
            rt.generic().deactivate(leaf, 9, 9, 9);
            assertThat(cache.isCurrent(kept)).as("a deactivation does").isFalse();
            ActiveBlocks again = cache.keep(leaf);
            assertThat(cache.isCurrent(again)).isTrue();
            rt.gc();
            assertThat(cache.isCurrent(again)).as("a collection does").isFalse();
        }
    }

    /**
     * Sums of values that do not add exactly, over enough blocks for several ranges: the same
     * bits with 1, 2 and 3 threads and run after run, and the same bits as a block reducer that
     * adds the cells in sum's documented order (cell n of a block into partial sum n % 32, the
     * partial sums combined lane by lane in the launch's order, then folded), since both run on
     * the launch's split.
     */
    @Test
    void reductionsRunOnTheLaunchSplitWhateverTheParallelism() {
        try (SNodeRuntime rt = SNodeRuntime.compile(DENSE)) {
            Random random = new Random(42);
            for (int n = 0; n < 20_000; n++) {
                rt.generic().setDouble("phi", random.nextDouble() * 1e3 - 333.3, random.nextInt(64),
                        random.nextInt(64), random.nextInt(64));
            }
            SNode leaf = DENSE.snode(2);
            PlacedField phi = DENSE.field("phi");
            long cells = rt.count("phi");
            assertThat(cells).as("several ranges").isGreaterThan(4 * LaunchSplit.GRAIN_CELLS);
            List<Long> sums = new ArrayList<>();
            List<Long> reduced = new ArrayList<>();
            for (int threads : new int[] {1, 2, 3, 1}) {
                rt.parallelism(threads);
                sums.add(Double.doubleToRawLongBits(rt.sum("phi")));
                double[] lanes = rt.reduceBlocks(leaf, () -> new double[ReductionKernels.LANES],
                        (sum, b) -> addCells(sum, b, phi), (left, right) -> {
                            for (int lane = 0; lane < left.length; lane++) {
                                left[lane] += right[lane];
                            }
                            return left;
                        });
                reduced.add(Double.doubleToRawLongBits(ReductionKernels.foldLanes(lanes)));
            }
            assertThat(sums).as("sum per parallelism").containsOnly(sums.getFirst());
            assertThat(reduced).as("the block reducer's, on the same split").containsOnly(sums.getFirst());
        }
    }

    private static void addCells(double[] sum, LeafBlock block, PlacedField field) {
        long offset = block.fieldOffset(field);
        for (long n = 0; n < block.cellCount(); n++) {
            sum[(int) (n % ReductionKernels.LANES)] += block.cells().get(ValueLayout.JAVA_DOUBLE,
                    offset + n * block.cellBytes());
        }
    }
}
