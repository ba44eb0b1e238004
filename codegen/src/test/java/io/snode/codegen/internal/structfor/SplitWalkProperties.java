package io.snode.codegen.internal.structfor;

import static io.snode.codegen.testing.BlockDescriptions.describe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.BlockDescriptions;
import io.snode.codegen.internal.WalkerEmitter;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The walk split over the launches' pool ({@link WalkSplit}: the first phase per cell below the
 * root, a bitmap per task; the emission in ranges of words) gives the blocks of the sequential
 * generic walk, in the same order, with the same masks and lengths: on random layouts after
 * random writes, deactivations and collections, over rounds that refill the previous snapshot's
 * arrays (so a bit left set in a task's bitmap would show up as an extra block), with the split
 * from the first cell on.
 */
class SplitWalkProperties {
    static final RandomLayouts.Options SMALL = new RandomLayouts.Options(2, 4, 2, 4, 4096, 12);

    @Property(tries = 150)
    void splitWalksEqualTheSequentialWalk(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            NodeTree structure = rt.generic().internalTree();
            try (Launcher launcher = new Launcher(structure, null, 3, 1, c -> { })) {
                for (int round = 0; round < 4; round++) {
                    RandomWrites.apply(rt, layout, random, round == 2 ? 5 : 30, 3 + round, 15);
                    compareEveryTarget(launcher, structure, layout, "round " + round);
                }
            }
        }
    }

    /** A grid like the benchmarks' L2, small: both phases split, on two threads. */
    @Example
    void pointerPointerBitmaskedSplitsBothPhases() {
        Layout layout = Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,4).place(f32 phi)");
        splitOnAShell(layout, 2);
    }

    /** Dense cells under the root (their memory is the root's) above the pointer parent; dense leaves. */
    @Example
    void denseAbovePointerSplitsToo() {
        Layout layout = Layout.parse("dense(ijk,2).pointer(ijk,4).dense(ijk,4).place(f32 phi)");
        splitOnAShell(layout, 3);
    }

    private static void splitOnAShell(Layout layout, int threads) {
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            int extent = layout.snode(3).extent(io.snode.api.Axis.I);
            for (int i = 0; i < extent; i++) {
                for (int j = 0; j < extent; j++) {
                    for (int k = 0; k < extent; k++) {
                        if ((i * 7 + j * 3 + k) % 5 == 0) {
                            rt.generic().setFloat("phi", i + j * 0.5f + k * 0.25f, i, j, k);
                        }
                    }
                }
            }
            NodeTree structure = rt.generic().internalTree();
            SNode leaf = layout.snode(3);
            try (Launcher launcher = new Launcher(structure, null, threads, 1, c -> { })) {
                for (int round = 0; round < 3; round++) {
                    ActiveBlocks split = launcher.snapshot(leaf);
                    assertThat(split.taskPresent).as("the first phase split").isNotNull();
                    assertThat(split.size()).isGreaterThan(4 * threads);
                    assertThat(describe(split)).isEqualTo(describe(ActiveBlocks.of(structure, leaf)));
                    assertThat(Arrays.stream(split.present).allMatch(word -> word == 0)).isTrue();
                    for (long[] bitmap : split.taskPresent) {
                        assertThat(Arrays.stream(bitmap).allMatch(word -> word == 0)).as("cleared").isTrue();
                    }
                    rt.generic().deactivate(leaf.parent(), new int[] {round, 0, 0});
                }
            }
        }
    }

    private static final AtomicInteger BELOW_CALLS = new AtomicInteger();

    /** A {@code walkBelow} whose third call throws; the others record nothing. */
    static int failingBelow(MemorySegment segment, long cell, int[] at, int[] byCell, long[] present, int capacity) {
        if (BELOW_CALLS.incrementAndGet() == 3) {
            throw new IllegalStateException("injected: the walk below a cell failed");
        }
        return 0;
    }

    static int unusedWalk(int[] byCell, long[] present, int capacity) {
        throw new AssertionError("a split walk calls walkBelow only");
    }

    /**
     * A part of the split first phase that throws ends the walk with its exception (on the
     * calling thread, after every part ended); the next walk of the same structure, split or not,
     * gives the sequential walk's blocks.
     */
    @Example
    void aFailingPartEndsTheWalkWithItsException() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,4).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            for (int i = 0; i < 64; i += 3) {
                for (int k = 0; k < 64; k += 5) {
                    rt.generic().setFloat("phi", i + k, i, i / 2, k);
                }
            }
            NodeTree structure = rt.generic().internalTree();
            SNode leaf = layout.snode(3);
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            GeneratedWalk failing = new GeneratedWalk(
                    lookup.findStatic(SplitWalkProperties.class, "unusedWalk",
                            MethodType.methodType(int.class, int[].class, long[].class, int.class)),
                    lookup.findStatic(SplitWalkProperties.class, "failingBelow", MethodType.methodType(int.class,
                            MemorySegment.class, long.class, int[].class, int[].class, long[].class, int.class)));
            ForkJoinPool pool = new ForkJoinPool(2);
            try {
                BELOW_CALLS.set(0);
                assertThatThrownBy(() -> ActiveBlocks.of(structure, leaf, 0, failing, null, new WalkSplit(pool, 2, 1)))
                        .isInstanceOf(IllegalStateException.class).hasMessage("injected: the walk below a cell failed");
                assertThat(BELOW_CALLS.get()).as("cells walked below before the walk gave up")
                        .isGreaterThanOrEqualTo(3);
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
            try (Launcher launcher = new Launcher(structure, null, 2, 1, c -> { })) {
                assertThat(describe(launcher.snapshot(leaf))).isEqualTo(describe(ActiveBlocks.of(structure, leaf)))
                        .isNotEmpty();
            }
        }
    }

    private static void compareEveryTarget(Launcher launcher, NodeTree structure, Layout layout, String when) {
        for (SNode node : layout.snodes()) {
            if (node.kind() == NodeKind.ROOT) {
                continue;
            }
            List<String> launched = launcher.withSnapshot(node, BlockDescriptions::describe);
            assertThat(launched).as("%s, %s in %s", when, node.path(), layout)
                    .isEqualTo(describe(ActiveBlocks.of(structure, node)));
            if (WalkerEmitter.applies(node) && node.ancestry().size() >= 4 && !launched.isEmpty()) {
                ActiveBlocks kept = launcher.snapshot(node);
                assertThat(kept.taskPresent).as("%s split its first phase", node.path()).isNotNull();
            }
        }
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(SMALL);
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
