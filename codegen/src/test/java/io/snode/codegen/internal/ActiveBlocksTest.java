package io.snode.codegen.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.internal.structfor.Launcher;
import io.snode.codegen.kernel.Kernel3;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The snapshot's order: memory order (allocation order of the blocks' cells), not tree order. */
@Tag("scalar-fallback")
class ActiveBlocksTest {
    static final Layout L1 = Layout.parse("pointer(ijk,4).pointer(ijk,4).dense(ijk,8).place(f32 phi)");
    static final Layout NESTED = Layout.parse("pointer(ijk,4).dense(ijk,2).bitmasked(ijk,4).place(f32 phi)");

    /** Blocks activated in reverse tree order: the snapshot lists them in activation order. */
    @Test
    void blocksComeInTheOrderTheirMemoryWasAllocated() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L1)) {
            List<List<Integer>> activated = new ArrayList<>();
            for (int block = 4 * 4 * 4 * 4 * 4 * 4 - 1; block >= 0; block -= 37) {
                int i = block / 256;
                int j = block / 16 % 16;
                int k = block % 16;
                rt.generic().setFloat("phi", 1f, i * 8, j * 8, k * 8);
                activated.add(List.of(i, j, k));
            }
            SNode leaf = L1.snode(3);
            ActiveBlocks blocks = ActiveBlocks.of(rt.generic().internalTree(), leaf);
            List<List<Integer>> order = new ArrayList<>();
            for (int b = 0; b < blocks.size(); b++) {
                int[] base = blocks.base(b);
                order.add(List.of(base[0], base[1], base[2]));
            }
            assertThat(order).isEqualTo(activated);
            // Consecutive blocks in one chunk lie at increasing offsets.
            for (int b = 1; b < blocks.size(); b++) {
                if (blocks.segment(b) == blocks.segment(b - 1)) {
                    assertThat(blocks.container(b)).isGreaterThan(blocks.container(b - 1));
                }
            }
            // A sequential launch visits the blocks in that order.
            rt.parallelism(1);
            List<List<Integer>> visited = new ArrayList<>();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                List<Integer> block = List.of(i / 8, j / 8, k / 8);
                if (visited.isEmpty() || !visited.getLast().equals(block)) {
                    visited.add(block);
                }
            });
            assertThat(visited).isEqualTo(activated);
        }
    }

    /**
     * Below the deepest pointer, blocks of one pointer cell keep tree order; pointer cells come
     * in allocation order; the expected size hint changes nothing but the arrays' first size.
     */
    @Test
    void blocksBelowOnePointerCellKeepTreeOrder() {
        try (SNodeRuntime rt = SNodeRuntime.compile(NESTED)) {
            // Pointer cell (3,3,3) first, then (0,0,0); inside each, bitmasked blocks out of order.
            int[][] writes = {{31, 31, 31}, {24, 24, 24}, {7, 7, 7}, {0, 0, 0}, {4, 0, 0}};
            for (int[] at : writes) {
                rt.generic().setFloat("phi", 1f, at[0], at[1], at[2]);
            }
            SNode leaf = NESTED.snode(3);
            for (int expected : new int[] {0, 1, 100}) {
                ActiveBlocks blocks = ActiveBlocks.of(rt.generic().internalTree(), leaf, expected);
                List<List<Integer>> order = new ArrayList<>();
                for (int b = 0; b < blocks.size(); b++) {
                    int[] base = blocks.base(b);
                    order.add(List.of(base[0], base[1], base[2]));
                }
                // Bases are coordinates of the dense(ijk,2) cells (every one holds a bitmasked
                // block of 4^3 voxels): the 8 of pointer cell (3,3,3), then the 8 of (0,0,0).
                List<List<Integer>> expectedOrder = new ArrayList<>();
                for (int first : new int[] {6, 0}) {
                    for (int n = 0; n < 8; n++) {
                        expectedOrder.add(List.of(first + n / 4, first + n / 2 % 2, first + n % 2));
                    }
                }
                assertThat(order).isEqualTo(expectedOrder);
                long active = 0;
                for (int b = 0; b < blocks.size(); b++) {
                    active += blocks.activeCells(b);
                }
                assertThat(active).isEqualTo(writes.length);
                assertThat(blocks.activeCells(0)).isEqualTo(1);
                assertThat(blocks.activeCells(7)).isEqualTo(1);
                assertThat(blocks.activeCells(1)).isZero();
            }
        }
    }

    /**
     * Bitmask snapshots against a model of the active cells, for blocks of 8 mask words (copied a
     * vector at a time), 16 words, and 1 word (copied a word at a time), taken by a launch that
     * refills the previous launch's arrays after cells were activated and deactivated.
     */
    @Test
    void bitmaskSnapshotsMatchTheActiveCells() {
        for (String text : new String[] {"pointer(ijk,4).bitmasked(ijk,8).place(f32 v)",
                "pointer(ijk,2).bitmasked(ijk,[8,8,16]).place(f32 v)", "pointer(ij,4).bitmasked(ij,5).place(f32 v)"}) {
            Layout layout = Layout.parse(text);
            SNode leaf = layout.snodes().getLast();
            int axes = leaf.indexAxes().size();
            java.util.Random random = new java.util.Random(text.hashCode());
            java.util.Set<List<Integer>> active = new java.util.HashSet<>();
            try (SNodeRuntime rt = SNodeRuntime.compile(layout);
                 Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
                for (int round = 0; round < 3; round++) {
                    for (int n = 0; n < 400; n++) {
                        int[] at = new int[axes];
                        for (int a = 0; a < axes; a++) {
                            at[a] = random.nextInt(leaf.extent(leaf.indexAxes().get(a)));
                        }
                        List<Integer> key = java.util.Arrays.stream(at).boxed().toList();
                        if (round > 0 && random.nextInt(3) == 0) {
                            rt.generic().deactivate(leaf, at);
                            active.remove(key);
                        } else {
                            rt.generic().setFloat("v", 1f, at);
                            active.add(key);
                        }
                    }
                    List<String> expected = new ArrayList<>();
                    List<String> actual = launcher.withSnapshot(leaf, blocks -> {
                        List<String> lines = new ArrayList<>();
                        for (int b = 0; b < blocks.size(); b++) {
                            int[] origin = blocks.leaf(b).origin();
                            long[] mask = new long[blocks.maskWords()];
                            int count = 0;
                            for (int cell = 0; cell < blocks.leaf(b).cellCount(); cell++) {
                                int[] at = new int[axes];
                                long rest = cell;
                                for (int a = axes - 1; a >= 0; a--) {
                                    int size = leaf.size(leaf.indexAxes().get(a));
                                    at[a] = origin[a] + (int) (rest % size);
                                    rest /= size;
                                }
                                if (active.contains(java.util.Arrays.stream(at).boxed().toList())) {
                                    mask[cell >>> 6] |= 1L << cell;
                                    count++;
                                }
                            }
                            expected.add(java.util.Arrays.toString(mask) + " " + count);
                            lines.add(java.util.Arrays.toString(blocks.leaf(b).mask()) + " " + blocks.activeCells(b));
                        }
                        return lines;
                    });
                    assertThat(actual).as("round %d of %s", round, text).isEqualTo(expected);
                    assertThat(actual.stream().mapToInt(line -> Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1)))
                            .sum()).isEqualTo(active.size());
                }
            }
        }
    }
}
