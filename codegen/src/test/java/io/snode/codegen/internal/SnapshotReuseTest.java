package io.snode.codegen.internal;

import io.snode.codegen.internal.structfor.Launcher;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.internal.NodeTree;
import java.lang.invoke.MethodHandle;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * A launch uses the previous launch's snapshot without walking exactly while nothing was
 * activated, deactivated, rolled back or collected in between; otherwise it walks again.
 */
class SnapshotReuseTest {
    static final Layout MASKED = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 v)");
    static final Layout LISTS = Layout.parse("pointer(i,4).dynamic(l,64,8).place(i32 p)");
    /** {@link #MASKED} with a hash node in place of the pointer node. */
    static final Layout HASHED = Layout.parse("hash(ijk,64).bitmasked(ijk,8).place(f32 v)");

    /** The bound interface of {@link #MASKED}: writes through generated code. */
    public interface Masked {
        void v(int i, int j, int k, float value);
    }

    /** Active cells per block, and how many walks the launches made. */
    private static List<Long> cells(Launcher launcher, SNode target) {
        return launcher.withSnapshot(target, blocks -> {
            List<Long> counts = new java.util.ArrayList<>();
            for (int b = 0; b < blocks.size(); b++) {
                counts.add(blocks.activeCells(b));
            }
            return counts;
        });
    }

    @Test
    void unchangedStructuresAreNotWalkedAgain() {
        try (SNodeRuntime rt = SNodeRuntime.compile(MASKED);
             Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
            SNode leaf = MASKED.snode(2);
            Masked bound = rt.bind(Masked.class);
            rt.generic().setFloat("v", 1f, 1, 2, 3);
            assertThat(cells(launcher, leaf)).containsExactly(1L);
            assertThat(launcher.walks()).isEqualTo(1);
            assertThat(cells(launcher, leaf)).containsExactly(1L);
            assertThat(launcher.walks()).as("nothing changed").isEqualTo(1);
            bound.v(1, 2, 3, 5f);
            rt.generic().setFloat("v", 2f, 1, 2, 3);
            assertThat(cells(launcher, leaf)).containsExactly(1L);
            assertThat(launcher.walks()).as("writes to an active cell change no activity").isEqualTo(1);
            bound.v(1, 2, 4, 5f);
            assertThat(cells(launcher, leaf)).containsExactly(2L);
            assertThat(launcher.walks()).as("a new mask bit, set by generated code").isEqualTo(2);
            bound.v(31, 31, 31, 5f);
            assertThat(cells(launcher, leaf)).containsExactly(2L, 1L);
            assertThat(launcher.walks()).as("a new pointer cell").isEqualTo(3);
            rt.generic().deactivate(leaf, 1, 2, 4);
            assertThat(cells(launcher, leaf)).containsExactly(1L, 1L);
            assertThat(launcher.walks()).as("a deactivation").isEqualTo(4);
            rt.gc();
            assertThat(cells(launcher, leaf)).containsExactly(1L, 1L);
            assertThat(launcher.walks()).as("a collection").isEqualTo(5);
            rt.generic().deactivateAll(MASKED.snode(1));
            assertThat(cells(launcher, leaf)).isEmpty();
            assertThat(launcher.walks()).isEqualTo(6);
        }
    }

    /**
     * A deactivation that finds its cell inactive changes nothing: the epoch stays, so cached
     * accessors, snapshot writes and the next launch's snapshot are kept (until 12-06 every
     * deactivation advanced the epoch twice, and the next launch walked again). Bitmasked,
     * pointer and hash cells, through the runtime and through generated code.
     */
    @Test
    void deactivationsThatFindTheirCellInactiveChangeNothing() throws Throwable {
        for (Layout layout : List.of(MASKED, HASHED)) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout);
                 Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
                NodeTree structure = rt.generic().internalTree();
                SNode upper = layout.snode(1);
                SNode leaf = layout.snode(2);
                rt.generic().setFloat("v", 1f, 1, 2, 3);
                assertThat(cells(launcher, leaf)).containsExactly(1L);
                long epoch = structure.epoch();
                assertThat(rt.generic().deactivate(leaf, 1, 2, 4)).as("a clear bit of an active leaf").isFalse();
                assertThat(rt.generic().deactivate(upper, 3, 3, 3)).as("an inactive %s cell", upper.kind()).isFalse();
                assertThat(rt.generic().deactivate(leaf, 31, 31, 31)).as("below an inactive cell").isFalse();
                MethodHandle generatedLeaf = rt.nodeHandle("deactivate", leaf);
                MethodHandle generatedUpper = rt.nodeHandle("deactivate", upper);
                assertThat((boolean) generatedLeaf.invokeExact(1, 2, 5)).as("generated: a clear bit").isFalse();
                assertThat((boolean) generatedUpper.invokeExact(2, 2, 2)).as("generated: an inactive upper cell").isFalse();
                assertThat(structure.epoch()).as(layout + ": the epoch").isEqualTo(epoch);
                assertThat(cells(launcher, leaf)).containsExactly(1L);
                assertThat(launcher.walks()).as(layout + ": the launch after them").isEqualTo(1);
                // A cell deactivated before (a hash table keeps its key, a tombstone; a pointer word is null).
                rt.generic().setFloat("v", 1f, 24, 24, 24);
                assertThat(rt.generic().deactivate(upper, 3, 3, 3)).isTrue();
                assertThat(cells(launcher, leaf)).containsExactly(1L);
                long walks = launcher.walks();
                epoch = structure.epoch();
                assertThat(rt.generic().deactivate(upper, 3, 3, 3)).as("deactivated before").isFalse();
                assertThat(structure.epoch()).as(layout + ": the epoch after a second deactivation").isEqualTo(epoch);
                assertThat(cells(launcher, leaf)).containsExactly(1L);
                assertThat(launcher.walks()).isEqualTo(walks);
                assertThat(rt.generic().deactivate(leaf, 1, 2, 3)).isTrue();
                assertThat(structure.epoch()).as("a deactivation that finds its cell active").isNotEqualTo(epoch);
                assertThat(cells(launcher, leaf)).as("the block stays, its cell gone").containsExactly(0L);
                assertThat(launcher.walks()).isEqualTo(walks + 1);
            }
        }
    }

    /**
     * A region deactivation that finds no active cell in its box changes nothing either (until
     * 12-06 it advanced the epoch twice): a box of inactive leaf cells in an active block, a box
     * of inactive upper cells, and a box under an inactive upper cell; a box with an active cell
     * is a change.
     */
    @Test
    void regionDeactivationsThatFindNothingChangeNothing() {
        for (Layout layout : List.of(MASKED, HASHED)) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout);
                 Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
                NodeTree structure = rt.generic().internalTree();
                SNode upper = layout.snode(1);
                SNode leaf = layout.snode(2);
                rt.generic().setFloat("v", 1f, 1, 2, 3);
                rt.generic().setFloat("v", 2f, 9, 9, 9);
                assertThat(cells(launcher, leaf)).containsExactly(1L, 1L);
                long epoch = structure.epoch();
                assertThat(rt.deactivateBox(leaf, new int[] {4, 4, 4}, new int[] {8, 8, 8})).as("inactive leaf cells").isZero();
                assertThat(rt.deactivateBox(upper, new int[] {2, 2, 2}, new int[] {4, 4, 4})).as("inactive upper cells").isZero();
                assertThat(rt.deactivateBox(leaf, new int[] {16, 16, 16}, new int[] {24, 24, 24})).as("under an inactive cell")
                        .isZero();
                assertThat(structure.epoch()).as(layout + ": the epoch").isEqualTo(epoch);
                assertThat(cells(launcher, leaf)).containsExactly(1L, 1L);
                assertThat(launcher.walks()).as(layout + ": the launch after them").isEqualTo(1);
                // The box is the first block's whole upper cell: it goes at once with its block.
                assertThat(rt.deactivateBox(leaf, new int[] {0, 0, 0}, new int[] {8, 8, 8})).isEqualTo(1);
                assertThat(structure.epoch()).as("a region deactivation that finds a cell").isNotEqualTo(epoch);
                assertThat(cells(launcher, leaf)).containsExactly(1L);
                assertThat(launcher.walks()).isEqualTo(2);
            }
        }
    }

    /**
     * A {@code deactivateAll} that finds nothing to release changes nothing (until 12-07 it
     * advanced the epoch twice and counted as its launch's deactivation, so the next launch
     * walked again, a launch that called it collected, and a snapshot write beside it failed):
     * on an empty structure, on a node whose containers were emptied cell by cell (a bitmasked
     * leaf left with no bit, a list left empty), and on the root. One that finds an active cell is
     * a change, once. The deactivation of an empty list changes nothing either (a list's
     * deactivation used to be a change whatever it found).
     */
    @Test
    void deactivateAllThatFindsNothingChangesNothing() {
        for (Layout layout : List.of(MASKED, HASHED, LISTS)) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout);
                 Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
                NodeTree structure = rt.generic().internalTree();
                SNode upper = layout.snode(1);
                SNode leaf = layout.snode(2);
                boolean lists = layout == LISTS;
                LongAdder counted = new LongAdder();
                LongAdder previous = structure.swapDeactivationCounter(counted);
                try {
                    long epoch = structure.epoch();
                    rt.deactivateAll(layout.root());
                    rt.deactivateAll(upper);
                    rt.deactivateAll(leaf);
                    assertThat(structure.epoch()).as(layout + ": the epoch of an empty structure").isEqualTo(epoch);
                    assertThat(counted.sum()).as(layout + ": deactivations counted").isZero();
                    if (lists) {
                        rt.generic().appendInt("p", 7, 2);
                        assertThat(cells(launcher, leaf)).containsExactly(1L);
                        assertThat(rt.generic().deactivate(leaf, 2)).as("a list with an element").isTrue();
                    } else {
                        rt.generic().setFloat("v", 1f, 1, 2, 3);
                        assertThat(cells(launcher, leaf)).containsExactly(1L);
                        assertThat(rt.generic().deactivate(leaf, 1, 2, 3)).as("an active leaf cell").isTrue();
                    }
                    assertThat(cells(launcher, leaf)).as(layout + ": the block stays, empty").containsExactly(0L);
                    counted.reset();
                    long walks = launcher.walks();
                    epoch = structure.epoch();
                    rt.deactivateAll(leaf);
                    if (lists) {
                        assertThat(rt.generic().deactivate(leaf, 2)).as("the emptied list").isFalse();
                        assertThat(rt.generic().deactivate(leaf, 1)).as("a list under an inactive cell").isFalse();
                    }
                    assertThat(structure.epoch()).as(layout + ": the epoch after them").isEqualTo(epoch);
                    assertThat(counted.sum()).as(layout + ": deactivations counted").isZero();
                    assertThat(cells(launcher, leaf)).containsExactly(0L);
                    assertThat(launcher.walks()).as(layout + ": the launch after them").isEqualTo(walks);
                    rt.deactivateAll(upper);
                    assertThat(structure.epoch()).as(layout + ": a deactivateAll that finds a cell").isNotEqualTo(epoch);
                    assertThat(counted.sum()).isOne();
                    assertThat(cells(launcher, leaf)).isEmpty();
                    assertThat(launcher.walks()).isEqualTo(walks + 1);
                    epoch = structure.epoch();
                    rt.deactivateAll(upper);
                    rt.deactivateAll(layout.root());
                    assertThat(structure.epoch()).as(layout + ": emptied again").isEqualTo(epoch);
                    assertThat(counted.sum()).isOne();
                    assertThat(cells(launcher, leaf)).isEmpty();
                    assertThat(launcher.walks()).isEqualTo(walks + 1);
                } finally {
                    structure.swapDeactivationCounter(previous);
                }
            }
        }
    }

    @Test
    void appendsWalkAgainAndRefusedAppendsDoNot() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS);
             Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
            SNode list = LISTS.snode(2);
            NodeTree structure = rt.generic().internalTree();
            rt.generic().appendInt("p", 7, 2);
            assertThat(cells(launcher, list)).containsExactly(1L);
            long activations = structure.activationStamp();
            rt.generic().appendInt("p", 8, 2);
            assertThat(structure.activationStamp()).isGreaterThan(activations);
            assertThat(cells(launcher, list)).containsExactly(2L);
            assertThat(launcher.walks()).isEqualTo(2);
            long epoch = structure.epoch();
            for (int n = 2; n < 64; n++) {
                rt.generic().appendInt("p", n, 2);
            }
            assertThat(cells(launcher, list)).containsExactly(64L);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> rt.generic().appendInt("p", 0, 2))
                    .isInstanceOf(io.snode.runtime.DynamicListFullException.class);
            // A refused append checks the length before it reserves or publishes anything: the
            // structure did not change, so the next launch keeps its snapshot.
            assertThat(structure.epoch()).as("nothing rolled back").isEqualTo(epoch);
            long walks = launcher.walks();
            activations = structure.activationStamp();
            assertThat(cells(launcher, list)).containsExactly(64L);
            assertThat(structure.activationStamp()).isEqualTo(activations);
            assertThat(launcher.walks()).isEqualTo(walks);
        }
    }

    /**
     * Writer threads activate cells while launches run on another thread: every launch sees at
     * least the cells the previous one saw, and the launch after the writers are joined sees
     * exactly the cells written (the model), whether or not the launches walked.
     */
    @Test
    void launchesRacingWithActivationsMissNothingThatCompletedBeforeThem() throws Exception {
        for (int round = 0; round < 20; round++) {
            try (SNodeRuntime rt = SNodeRuntime.compile(MASKED);
                 Launcher launcher = new Launcher(rt.generic().internalTree(), 1, c -> { })) {
                SNode leaf = MASKED.snode(2);
                int writers = 3;
                List<Set<List<Integer>>> written = new java.util.ArrayList<>();
                CyclicBarrier start = new CyclicBarrier(writers + 1);
                AtomicBoolean done = new AtomicBoolean();
                ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
                try {
                    List<Future<?>> writes = new java.util.ArrayList<>();
                    for (int w = 0; w < writers; w++) {
                        Set<List<Integer>> mine = java.util.concurrent.ConcurrentHashMap.newKeySet();
                        written.add(mine);
                        long seed = round * 31L + w;
                        writes.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            Masked bound = rt.bind(Masked.class);
                            start.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 300; n++) {
                                int i = random.nextInt(32);
                                int j = random.nextInt(32);
                                int k = random.nextInt(32);
                                bound.v(i, j, k, 1f);
                                mine.add(List.of(i, j, k));
                            }
                            return null;
                        }));
                    }
                    Future<Long> launches = pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        long seen = 0;
                        while (!done.get()) {
                            long now = cells(launcher, leaf).stream().mapToLong(Long::longValue).sum();
                            assertThat(now).isGreaterThanOrEqualTo(seen);
                            seen = now;
                        }
                        return seen;
                    });
                    for (Future<?> write : writes) {
                        write.get(30, TimeUnit.SECONDS);
                    }
                    done.set(true);
                    launches.get(30, TimeUnit.SECONDS);
                } finally {
                    pool.shutdownNow();
                    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
                }
                Set<List<Integer>> model = new HashSet<>();
                for (Set<List<Integer>> set : written) {
                    model.addAll(set);
                }
                assertThat(cells(launcher, leaf).stream().mapToLong(Long::longValue).sum())
                        .as("round %d", round).isEqualTo(model.size());
            }
        }
    }
}
