package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Deactivation through the generated methods: Taichi's conventions for the root and for lists. */
class DeactivationTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,4){ dense(ij,4).place(f32 a); dynamic(k,32,4).place(i32 p) };"
            + " bitmasked(l,8).place(f64 b); place(f64 t)");

    @Test
    void deactivateAllOfTheRootClearsEverySparseNode() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            rt.generic().setFloat("a", 1f, 5, 6);
            rt.generic().appendInt("p", 2, 1, 1);
            rt.generic().setDouble("b", 3.0, 7);
            rt.generic().setDouble("t", 4.0);
            rt.nodeHandle("deactivateAll", LAYOUT.root()).invoke();
            assertThat(rt.count("a")).isZero();
            assertThat(rt.count("p")).isZero();
            assertThat(rt.count("b")).isZero();
            assertThat(rt.generic().getDouble("t")).isEqualTo(4.0);
            assertThat(rt.memoryStats().snodes()).allMatch(s -> s.cells().cellsInUse() == 0);
        }
    }

    @Test
    void theRuntimesDeactivateAllOfTheRootClearsEverythingSparseAndCollects() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            rt.generic().setFloat("a", 1f, 5, 6);
            rt.generic().setInt("p", 2, 1, 1, 9);
            rt.generic().setDouble("b", 3.0, 7);
            rt.generic().setDouble("t", 4.0);
            rt.deactivateAll(LAYOUT.root());
            assertThat(rt.count("a") + rt.count("p") + rt.count("b")).isZero();
            assertThat(rt.generic().getDouble("t")).isEqualTo(4.0);
            assertThat(rt.memoryStats().snodes()).as("collected after it")
                    .allMatch(s -> s.cells().cellsInUse() == 0 && s.cells().cellsRecycled() == 0);
            assertThat(rt.lastGcStatistics().cellsReclaimed()).isPositive();
        }
    }

    @Test
    void theRuntimesDeactivateTakesAListsCoordinates() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            SNode list = LAYOUT.snode(3);
            rt.generic().appendInt("p", 2, 1, 1);
            assertThat(rt.deactivate(list, 1, 1)).isTrue();
            assertThat(rt.deactivate(list, 1, 1)).isFalse();
            assertThat(rt.generic().length(list, 1, 1)).isZero();
            assertThat(rt.deactivate(LAYOUT.snode(1), 1, 1)).as("the pointer cell that held the list").isTrue();
        }
    }

    @Test
    void deactivatingAListTakesTheListsCoordinatesAsAppendAndLengthDo() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            SNode list = LAYOUT.snode(3);
            rt.generic().appendInt("p", 2, 1, 1);
            rt.generic().appendInt("p", 3, 1, 1);
            rt.generic().appendInt("p", 4, 2, 1);
            assertThat(rt.nodeHandle("deactivate", list).type().parameterCount())
                    .isEqualTo(rt.nodeHandle("length", list).type().parameterCount()).isEqualTo(2);
            assertThat((boolean) rt.nodeHandle("deactivate", list).invoke(1, 1)).isTrue();
            assertThat((long) rt.nodeHandle("length", list).invoke(1, 1)).isZero();
            assertThat((long) rt.nodeHandle("length", list).invoke(2, 1)).isEqualTo(1);
            assertThat((boolean) rt.nodeHandle("deactivate", list).invoke(1, 1)).isFalse();
        }
    }

    /**
     * A write that activates a cell in a container at rest, racing {@code deactivateAll} of the
     * cell's node on another thread (jcstress: {@code ActivationDeactivationTest.AllLowerCells}).
     * Each round ends in one of the two orders: the call changed something (the epoch advanced)
     * exactly when the write is gone, and changed nothing exactly when the write stays, with its
     * value. Written through the runtime and through generated code; and an append to a list,
     * which stays with its value whenever the call changed nothing (an append racing a clear
     * that does change something may keep its index with a value that reads 0).
     */
    @Test
    void deactivateAllRacingAWriteEndsInOneOfTheTwoOrders() throws Exception {
        Layout layout = Layout.parse("pointer(i,4).pointer(i,64).place(i32 v)");
        Layout lists = Layout.parse("pointer(i,4).dynamic(l,64,8).place(i32 p)");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout); SNodeRuntime listed = SNodeRuntime.compile(lists)) {
            SNode upper = layout.snode(1);
            SNode lower = layout.snode(2);
            SNode list = lists.snode(2);
            MethodHandle generatedWrite = rt.setter("v");
            CyclicBarrier start = new CyclicBarrier(2);
            int[] orders = new int[2];
            for (int round = 0; round < 600; round++) {
                int cell = round % 64;
                int way = round % 3;
                SparseRuntime target = way == 2 ? listed.generic() : rt.generic();
                target.activate(way == 2 ? lists.snode(1) : upper, 0);
                long epoch = target.internalTree().epoch();
                Future<?> write = writer.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    switch (way) {
                        case 0 -> target.setInt("v", cell + 1, cell);
                        case 1 -> {
                            try {
                                generatedWrite.invoke(cell, cell + 1);
                            } catch (Throwable e) {
                                throw new AssertionError(e);
                            }
                        }
                        default -> target.appendInt("p", cell + 1, 0);
                    }
                    return null;
                });
                start.await(30, TimeUnit.SECONDS);
                target.deactivateAll(way == 2 ? list : lower);
                long changedEpoch = target.internalTree().epoch();
                write.get(30, TimeUnit.SECONDS);
                boolean changed = changedEpoch != epoch;
                boolean stays = way == 2 ? target.length(list, 0) == 1 : target.isActive(lower, cell);
                if (way == 2) {
                    // An append whose index is taken while the list is cleared is the caller's race
                    // (its element may read 0): only a call that changed nothing is certain here.
                    assertThat(stays || changed).as("round %d: a call that changed nothing keeps the append", round).isTrue();
                } else {
                    assertThat(stays).as("round %d (way %d): the write stays exactly when deactivateAll changed nothing",
                            round, way).isEqualTo(!changed);
                }
                if (!changed) {
                    assertThat(way == 2 ? target.getInt("p", 0, 0) : target.getInt("v", cell)).isEqualTo(cell + 1);
                }
                orders[changed ? 1 : 0]++;
                (way == 2 ? listed : rt).deactivateAll((way == 2 ? lists : layout).root());
                assertThat((way == 2 ? listed : rt).memoryStats().snodes()).as("nothing left in use")
                        .allMatch(s -> s.cells().cellsInUse() == 0);
            }
            System.out.printf("deactivateAll racing a write: %d found nothing, %d found the write%n", orders[0], orders[1]);
        } finally {
            writer.shutdownNow();
            assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * {@code deactivateAll} of a bitmasked node with nothing managed below clears each mask word
     * with one exchange and zeroes the cells of the bits it returned
     * ({@code BitmaskedUnit.clearWords}), racing two writers that activate cells in both words of
     * its container. Model: every cell active before the call (and written by no one) is inactive
     * afterwards and comes back zeroed; a written cell that is active holds its writer's value
     * (its bit was set after the exchange, so the zeroing passed it by); no other cell is active.
     * A written cell left inactive may hold its value when activated again, the caller's race of
     * a write with the deactivation of its own cell (jcstress {@code BitmaskTest.SetClearAll}).
     */
    @Test
    void deactivateAllOfABitmaskedNodeRacingWritesKeepsEveryBitItDidNotClear() throws Exception {
        Layout layout = Layout.parse("pointer(i,2).bitmasked(i,128).place(i32 v)");
        ExecutorService writers = Executors.newFixedThreadPool(2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SparseRuntime target = rt.generic();
            SNode masked = layout.snode(2);
            CyclicBarrier start = new CyclicBarrier(3);
            int kept = 0;
            for (int round = 0; round < 400; round++) {
                int[] written = {1 + 3 * (round % 21), 64 + 1 + 3 * (round % 21)}; // one cell in each mask word
                for (int cell = 0; cell < 128; cell += 3) {
                    target.setInt("v", 1000 + cell, cell); // active before the call; no writer's cell
                }
                Future<?>[] writes = new Future<?>[2];
                for (int w = 0; w < 2; w++) {
                    int cell = written[w];
                    writes[w] = writers.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        target.setInt("v", cell + 1, cell);
                        return null;
                    });
                }
                start.await(30, TimeUnit.SECONDS);
                target.deactivateAll(masked);
                for (Future<?> write : writes) {
                    write.get(30, TimeUnit.SECONDS);
                }
                for (int cell = 0; cell < 128; cell++) {
                    boolean isWritten = cell == written[0] || cell == written[1];
                    if (target.isActive(masked, cell)) {
                        assertThat(isWritten).as("round %d: cell %d active, written by no one", round, cell).isTrue();
                        assertThat(target.getInt("v", cell)).as("round %d: written cell %d", round, cell).isEqualTo(cell + 1);
                        kept++;
                    } else if (!isWritten) {
                        target.activate(masked, cell);
                        assertThat(target.getInt("v", cell)).as("round %d: cell %d comes back zeroed", round, cell).isZero();
                    }
                }
                rt.deactivateAll(layout.root());
                assertThat(rt.memoryStats().snodes()).as("nothing left in use").allMatch(s -> s.cells().cellsInUse() == 0);
            }
            System.out.printf("deactivateAll of a bitmasked node racing two writes: %d of 800 writes kept%n", kept);
        } finally {
            writers.shutdownNow();
            assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
