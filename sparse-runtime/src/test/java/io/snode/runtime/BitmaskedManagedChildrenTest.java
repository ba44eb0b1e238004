package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bitmasked cells that hold the containers of managed nodes (a list's header, a pointer's
 * words, a hash node's header). A bitmasked cell is inline and used again in place, so its
 * deactivation must leave those containers refusing (retired) for whoever still walks in from
 * before it, zero only the rest of the cell, and let them serve again once the cell is active
 * again: the first activation or append that meets a retired container of a cell that a walk
 * from the root reaches, every level above active, reopens it. Before, the deactivation zeroed
 * the whole cell after releasing what lay below, which reopened the containers at once: an
 * append or activation that had walked in before could then publish a chunk or a cell under
 * the inactive cell, where nothing would ever release it (jcstress {@code BitmaskedChildrenTest};
 * with threads, {@link ConcurrentFailureTest#activationsRacingDeactivationsOfTheirUpperCellLeakNoCell}
 * on bitmasked upper cells, which fails on the old code).
 */
class BitmaskedManagedChildrenTest {
    static final Layout LISTS = Layout.parse("pointer(i,4).bitmasked(i,4).dynamic(j,64,4).place(i32 v)");
    static final Layout POINTERS = Layout.parse("pointer(i,4).bitmasked(i,4).pointer(i,4).dense(i,4).place(f32 x)");
    static final Layout HASHED = Layout.parse("bitmasked(i,4).hash(i,64).dense(i,4).place(f32 x)");
    /** Lists below a dense level inside the bitmasked cell, beside a value of the cell itself. */
    static final Layout NESTED = Layout.parse("bitmasked(i,4){ place(f64 w); dense(i,2).dynamic(j,64,4).place(i32 v) }");

    private static long inUse(SparseRuntime rt) {
        long inUse = 0;
        for (MemoryStats.SNodeStats node : rt.memoryStats().snodes()) {
            inUse += node.cells().cellsInUse();
            if (node.directories() != null) {
                inUse += node.directories().cellsInUse();
            }
            if (node.tables() != null) {
                inUse += node.tables().tables();
            }
        }
        return inUse;
    }

    /** Deactivates everything and collects; returns what stayed in use (0: nothing leaked). */
    private static long emptied(SparseRuntime rt) {
        for (SNode child : rt.layout().root().children()) {
            rt.deactivateAll(child);
        }
        rt.collect();
        return inUse(rt);
    }

    @Test
    void aListOfABitmaskedCellServesAgainAfterTheCellIsDeactivatedAndActivatedAgain() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (SparseRuntime rt = SparseRuntime.create(LISTS)) {
                SNode cell = LISTS.snode(2);
                SNode list = LISTS.snode(3);
                for (int round = 0; round < 5; round++) {
                    for (int n = 0; n < 9; n++) {
                        assertThat(rt.appendInt("v", 10 * round + n, 5)).isEqualTo(n);
                    }
                    assertThat(rt.length(list, 5)).isEqualTo(9);
                    assertThat(rt.deactivate(cell, 5)).isTrue();
                    assertThat(rt.isActive(cell, 5)).isFalse();
                    assertThat(rt.length(list, 5)).isZero();
                    assertThat(rt.memoryStats().of(list).cells().cellsInUse()).as("its chunks recycled").isZero();
                    if (round % 2 == 1) {
                        rt.activate(cell, 5); // activated first, then the list meets its retired header
                        assertThat(rt.length(list, 5)).isZero();
                    }
                }
                assertThat(rt.appendInt("v", 99, 5)).isZero();
                assertThat(rt.getInt("v", 5, 0)).isEqualTo(99);
                assertThat(emptied(rt)).isZero();
            }
        });
    }

    @Test
    void aPointerBelowABitmaskedCellServesAgainAfterTheCellIsDeactivatedAndActivatedAgain() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (SparseRuntime rt = SparseRuntime.create(POINTERS)) {
                SNode cell = POINTERS.snode(2);
                for (int round = 0; round < 5; round++) {
                    rt.setFloat("x", round + 1f, 21);
                    rt.setFloat("x", round + 2f, 30);
                    assertThat(rt.deactivate(cell, 1)).as("the cell holding 16 to 31").isTrue();
                    assertThat(rt.getFloat("x", 21)).isZero();
                    assertThat(rt.getFloat("x", 30)).isZero();
                    assertThat(rt.memoryStats().of(POINTERS.snode(3)).cells().cellsInUse()).isZero();
                }
                rt.setFloat("x", 7f, 22);
                assertThat(rt.getFloat("x", 22)).isEqualTo(7f);
                assertThat(rt.getFloat("x", 21)).isZero();
                assertThat(emptied(rt)).isZero();
            }
        });
    }

    @Test
    void aHashNodeBelowABitmaskedCellServesAgainAfterTheCellIsDeactivatedAndActivatedAgain() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (SparseRuntime rt = SparseRuntime.create(HASHED)) {
                SNode cell = HASHED.snode(1);
                for (int round = 0; round < 5; round++) {
                    rt.setFloat("x", round + 1f, 3 * 256 + 17);
                    assertThat(rt.deactivate(cell, 3)).isTrue();
                    assertThat(rt.getFloat("x", 3 * 256 + 17)).isZero();
                }
                rt.setFloat("x", 5f, 3 * 256 + 18);
                assertThat(rt.getFloat("x", 3 * 256 + 18)).isEqualTo(5f);
                assertThat(emptied(rt)).isZero();
            }
        });
    }

    /** The deactivation zeroes the cell's own values and leaves every list below it empty. */
    @Test
    void theDeactivationZeroesTheCellsValuesAndEmptiesItsListsBelowDenseLevels() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (SparseRuntime rt = SparseRuntime.create(NESTED)) {
                SNode cell = NESTED.snode(1);
                SNode list = NESTED.field("v").snode();
                rt.setDouble("w", 2.5, 1);
                for (int n = 0; n < 6; n++) {
                    rt.appendInt("v", n, 2);
                    rt.appendInt("v", 10 + n, 3);
                }
                assertThat(rt.deactivate(cell, 1)).isTrue();
                assertThat(rt.getDouble("w", 1)).isZero();
                assertThat(rt.length(list, 2)).isZero();
                rt.activate(cell, 1);
                assertThat(rt.getDouble("w", 1)).as("activated again: zero").isZero();
                assertThat(rt.length(list, 3)).isZero();
                assertThat(rt.appendInt("v", 42, 3)).isZero();
                assertThat(rt.appendInt("v", 43, 2)).isZero();
                assertThat(rt.getInt("v", 3, 0)).isEqualTo(42);
                assertThat(emptied(rt)).isZero();
            }
        });
    }

    /**
     * Four threads append to the lists of a few bitmasked cells while two deactivate those
     * cells; each append's index lies below its list's capacity, every list afterwards holds
     * only elements some thread appended, and once the threads are done, deactivating
     * everything and collecting leaves nothing in use: no chunk was published under an inactive
     * cell. Six rounds.
     */
    @Test
    void appendsRacingTheDeactivationOfTheirBitmaskedCellsLeakNothing() throws Exception {
        int appenders = 4;
        int deactivators = 2;
        try (SparseRuntime rt = SparseRuntime.create(LISTS)) {
            SNode cell = LISTS.snode(2);
            SNode list = LISTS.snode(3);
            ExecutorService pool = Executors.newFixedThreadPool(appenders + deactivators);
            try {
                for (int round = 0; round < 6; round++) {
                    CyclicBarrier start = new CyclicBarrier(appenders + deactivators);
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < appenders + deactivators; t++) {
                        boolean appender = t < appenders;
                        long seed = 17L * round + t;
                        done.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            start.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 4000; n++) {
                                int i = random.nextInt(4); // four cells of one upper cell
                                if (appender) {
                                    try {
                                        long index = rt.appendInt("v", 1000 * i + random.nextInt(1000), i);
                                        if (index < 0 || index >= 64) {
                                            throw new AssertionError("index " + index);
                                        }
                                    } catch (DynamicListFullException full) {
                                        rt.deactivate(cell, i); // make room
                                    }
                                } else {
                                    rt.deactivate(cell, i);
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> future : done) {
                        future.get(120, TimeUnit.SECONDS);
                    }
                    for (int i = 0; i < 4; i++) {
                        long length = rt.length(list, i);
                        for (int e = 0; e < length; e++) {
                            int value = rt.getInt("v", i, e);
                            assertThat(value == 0 || value / 1000 == i).as("round %d list %d element %d: %d", round, i, e,
                                    value).isTrue();
                        }
                    }
                    assertThat(emptied(rt)).as("round %d: in use after deactivating everything and collecting", round)
                            .isZero();
                }
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
        }
    }
}
