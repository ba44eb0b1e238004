package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@link SparseRuntime#deactivateBox}: against a model of the voxels written, over layouts with
 * pointer, hash and bitmasked levels, random boxes aligned and not; whole upper cells go at once;
 * bad corners are refused; and writers outside the box lose nothing while boxes are deactivated.
 */
class BoxDeactivationTest {
    private static final int EXTENT = 64;

    /** Voxels in 8 random 8^3 blocks plus scattered ones, each with its value. */
    private static Map<List<Integer>, Float> write(SparseRuntime rt, Random random) {
        Map<List<Integer>, Float> model = new HashMap<>();
        for (int n = 0; n < 600; n++) {
            List<Integer> at = List.of(random.nextInt(EXTENT), random.nextInt(EXTENT), random.nextInt(EXTENT));
            float value = n + 1;
            rt.setFloat("v", value, at.get(0), at.get(1), at.get(2));
            model.put(at, value);
        }
        return model;
    }

    /** Whether the cell of {@code target} that holds {@code voxel} lies in the box (of {@code target}'s index space). */
    private static boolean blockInside(SNode target, List<Integer> voxel, int[] low, int[] high) {
        for (int axis = 0; axis < 3; axis++) {
            int cell = voxel.get(axis) / cellSize(target, axis);
            if (cell < low[axis] || cell >= high[axis]) {
                return false;
            }
        }
        return true;
    }

    /** The coordinates one cell of {@code target} spans on an axis: the product of the sizes below it. */
    private static int cellSize(SNode target, int axis) {
        int size = 1;
        for (SNode below = target.children().isEmpty() ? null : target.children().getFirst(); below != null;
                below = below.children().isEmpty() ? null : below.children().getFirst()) {
            size *= below.size(target.indexAxes().get(axis));
        }
        return size;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pointer(ijk,4).pointer(ijk,2).dense(ijk,8)", "pointer(ijk,4).pointer(ijk,2).bitmasked(ijk,8)",
            "hash(ijk,4).pointer(ijk,2).dense(ijk,8)", "bitmasked(ijk,4).pointer(ijk,2).dense(ijk,8)",
            "pointer(ijk,32).bitmasked(ijk,2)", "hash(ijk,16).bitmasked(ijk,4)", "pointer(ijk,16).pointer(ijk,4)"})
    void boxesDeactivateExactlyTheBlocksWhollyInsideThem(String chain) {
        Layout layout = Layout.parse(chain + ".place(f32 v)");
        SNode target = layout.field("v").snode().kind().isSparse() ? layout.field("v").snode() : layout.snode(2);
        Random random = new Random(chain.hashCode());
        for (int round = 0; round < 40; round++) {
            try (SparseRuntime rt = SparseRuntime.create(layout)) {
                Map<List<Integer>, Float> model = write(rt, random);
                int[] low = new int[3];
                int[] high = new int[3];
                for (int axis = 0; axis < 3; axis++) {
                    int extent = target.indexShape()[axis];
                    int a = random.nextInt(extent + 1);
                    int b = random.nextInt(extent + 1);
                    if (round % 4 == 0) { // aligned to the upper cells: whole upper cells go at once
                        int upper = extent / 4;
                        a = a / upper * upper;
                        b = b / upper * upper;
                    }
                    low[axis] = Math.min(a, b);
                    high[axis] = Math.max(a, b);
                }
                rt.deactivateBox(target, low, high);
                for (Map.Entry<List<Integer>, Float> voxel : model.entrySet()) {
                    List<Integer> at = voxel.getKey();
                    boolean gone = blockInside(target, at, low, high);
                    assertThat(rt.getFloat("v", at.get(0), at.get(1), at.get(2)))
                            .as("%s: voxel %s, box %s..%s", chain, at, List.of(low[0], low[1], low[2]),
                                    List.of(high[0], high[1], high[2]))
                            .isEqualTo(gone ? 0f : voxel.getValue());
                    assertThat(rt.isActive(target, at.get(0) / cellSize(target, 0), at.get(1) / cellSize(target, 1),
                            at.get(2) / cellSize(target, 2))).isEqualTo(!gone);
                }
                rt.deactivateAll(layout.root());
                rt.collect();
                for (MemoryStats.SNodeStats stats : rt.memoryStats().snodes()) {
                    assertThat(stats.cells().cellsInUse()).as(stats.snode().path()).isZero();
                }
            }
        }
    }

    /**
     * A small box costs what it cuts, not what the containers on its path hold: a box of one
     * block under a 128^3 pointer node (2,097,152 words) and under a hash container of 32,768
     * cells looks up the cells the box cuts instead of iterating every word or table entry, and
     * iterates the one leaf block of 64 cells that the box cuts half of.
     * Until 12-06 every container on the path was iterated whole (an audit: 2.9 ms and 2.8 ms
     * per one-cell box, so deleting a structure one box at a time was quadratic).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pointer(ijk,128).bitmasked(ijk,4)", "hash(ijk,128).bitmasked(ijk,4)"})
    void aSmallBoxLooksAtTheCellsItCutsNotAtWholeContainers(String chain) {
        Layout layout = Layout.parse(chain + ".place(f32 v)");
        SNode voxels = layout.field("v").snode();
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int n = 0; n < 32_768; n++) {
                rt.setFloat("v", n + 1, 4 * (n & 31), 4 * ((n >> 5) & 31), 4 * (n >> 10));
            }
            int[] low = {8, 12, 16};
            int[] high = {10, 16, 20}; // half a block along i, one block along j and k
            var box = rt.internalTree().boxDeactivation(voxels, low, high);
            assertThat(box.run(rt.internalTree().root())).as("the one active voxel in the box").isEqualTo(1);
            // one look-up above, then the leaf block's 64 cells (the box cuts half of them)
            assertThat(box.examined()).as("cells and words looked at").isLessThanOrEqualTo(1 + 64);
            assertThat(rt.getFloat("v", 8, 12, 16)).isZero();
            assertThat(rt.getFloat("v", 12, 12, 16)).isEqualTo(1 + 3 + 3 * 32 + 4 * 1024);
        }
    }

    @Test
    void aBoxOverWholeUpperCellsReleasesThemAtOnceAndBadCornersAreRefused() {
        Layout layout = Layout.parse("pointer(ijk,4).pointer(ijk,2).dense(ijk,8).place(f32 v)");
        SNode upper = layout.snode(1);
        SNode blocks = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int i = 0; i < EXTENT; i += 8) {
                rt.setFloat("v", 1f, i, 0, 0); // 8 blocks in 4 upper cells along i
            }
            // blocks' index space is 8 per axis (its cells are 8^3 voxels); an upper cell is 2 of them
            long deactivated = rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {4, 2, 2});
            assertThat(deactivated).as("two whole upper cells").isEqualTo(2);
            assertThat(rt.isActive(upper, 0, 0, 0)).isFalse();
            assertThat(rt.isActive(upper, 1, 0, 0)).isFalse();
            assertThat(rt.isActive(upper, 2, 0, 0)).isTrue();
            assertThat(rt.getFloat("v", 40, 0, 0)).isEqualTo(1f);
            assertThat(rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {0, 0, 0})).isZero();
            assertThatThrownBy(() -> rt.deactivateBox(blocks, new int[] {0, 0}, new int[] {1, 1, 1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 coordinates");
            assertThatThrownBy(() -> rt.deactivateBox(blocks, new int[] {2, 0, 0}, new int[] {1, 1, 1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("low=2 > high=1");
            assertThatThrownBy(() -> rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {9, 1, 1}))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> rt.deactivateBox(layout.root(), new int[] {}, new int[] {}))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * Two writers write voxels anywhere while a third thread deactivates the box of the blocks
     * with i < 32 again and again: every write outside the boxes is there at the end, and after
     * emptying and collecting no cell is in use.
     */
    @Test
    void writersOutsideTheBoxLoseNothingWhileBoxesAreDeactivated() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,4).pointer(ijk,2).bitmasked(ijk,8).place(f32 v)");
        SNode blocks = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout); ExecutorService pool = Executors.newFixedThreadPool(3)) {
            CyclicBarrier start = new CyclicBarrier(3);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Map<List<Integer>, Float>>> writers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int seed = t;
                writers.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    Map<List<Integer>, Float> mine = new HashMap<>();
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < 20_000; n++) {
                        int i = random.nextInt(EXTENT);
                        int j = random.nextInt(EXTENT);
                        int k = random.nextInt(EXTENT);
                        float value = seed * 100_000 + n + 1;
                        rt.setFloat("v", value, i, j, k);
                        if (i >= 32) {
                            mine.put(List.of(i, j, k), value);
                        }
                    }
                    return mine;
                }));
            }
            Future<Integer> deactivator = pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                int rounds = 0;
                while (!stop.get() || rounds == 0) {
                    rt.deactivateBox(blocks, new int[] {0, 0, 0}, new int[] {4, 8, 8}); // voxels with i < 32
                    rounds++;
                }
                return rounds;
            });
            Map<List<Integer>, Float> model = new HashMap<>();
            for (int t = 0; t < 2; t++) {
                Map<List<Integer>, Float> mine = writers.get(t).get(60, TimeUnit.SECONDS);
                for (Map.Entry<List<Integer>, Float> e : mine.entrySet()) {
                    model.merge(e.getKey(), e.getValue(), (a, b) -> b); // same voxel: either thread's last
                }
            }
            stop.set(true);
            assertThat(deactivator.get(10, TimeUnit.SECONDS)).isPositive();
            for (Map.Entry<List<Integer>, Float> voxel : model.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(rt.getFloat("v", at.get(0), at.get(1), at.get(2))).as("voxel %s", at).isNotZero();
            }
            rt.deactivateAll(layout.root());
            rt.collect();
            for (MemoryStats.SNodeStats stats : rt.memoryStats().snodes()) {
                assertThat(stats.cells().cellsInUse()).as(stats.snode().path()).isZero();
            }
        }
    }
}
