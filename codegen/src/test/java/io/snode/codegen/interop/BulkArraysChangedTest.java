package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel1;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Another thread changes the caller's coordinate arrays while a bulk call, its arguments checked,
 * waits for a collection to end: the call refuses the changed coordinate and the structure stays
 * whole. Until 12-07 {@code writeCells} and {@code appendAll} read the arrays again after the
 * wait (audit g4): a coordinate changed to 17 of 16 was written into cell 1, one changed to -1
 * was written over a bitmasked container's mask word (33 cells counted active where one was, a
 * launch visited cells outside the index space), and a list changed to 5 of 4 got another list's
 * elements.
 */
class BulkArraysChangedTest {

    /**
     * Runs {@code call} on a thread of its own while this test holds the runtime's phase lock as
     * a collection does; once the call waits for it, runs {@code change}, then lets the call go
     * on. Returns what the call threw (null when it returned).
     */
    private static Throwable changeWhileItWaits(SNodeRuntime runtime, Runnable call, Runnable change) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Boolean> released = new AtomicReference<>();
        Thread collection = Thread.ofPlatform().start(() -> runtime.phaseLock().exclusive(() -> {
            holding.countDown();
            try {
                released.set(release.await(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                released.set(false);
            }
        }));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        try {
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Thread caller = Thread.ofPlatform().start(() -> {
                try {
                    call.run();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            // The call has checked its arguments once it waits for the launch the collection holds back.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (caller.getState() != Thread.State.WAITING && caller.isAlive() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(caller.getState()).isEqualTo(Thread.State.WAITING);
            change.run();
            release.countDown();
            caller.join(10_000);
            assertThat(caller.isAlive()).isFalse();
        } finally {
            release.countDown();
            collection.join(10_000);
        }
        assertThat(released.get()).as("the held phase lock was released by the test, not by a timeout").isTrue();
        return thrown.get();
    }

    @Test
    void aCellListCoordinateChangedOutsideTheIndexSpaceIsRefusedNotWrittenThrough() throws Exception {
        try (SNodeRuntime runtime = SNodeRuntime.compile(Layout.parse("pointer(i,4).dense(i,4).place(f32 v)"))) {
            int[][] coordinates = {{9}};
            Throwable thrown = changeWhileItWaits(runtime, () -> Bulk.writeCells(runtime, "v", coordinates, new float[] {42f}),
                    () -> coordinates[0][0] = 17);
            assertThat(thrown).isInstanceOf(ConcurrentModificationException.class)
                    .hasMessageContaining("cell 0: coordinate 0 is 17, outside [0, 16)");
            assertThat(runtime.count("v")).isZero(); // cell 1 got 42 before
            assertThat(runtime.sum("v")).isZero();
        }
    }

    @Test
    void aCoordinateChangedToMinusOneDoesNotReachAContainersMaskWords() throws Exception {
        try (SNodeRuntime runtime = SNodeRuntime.compile(Layout.parse("pointer(i,3).bitmasked(i,3).place(i32 v)"))) {
            SNode cells = runtime.layout().field("v").snode();
            runtime.generic().setInt("v", 5, 4);
            int[][] coordinates = {{4}};
            Throwable thrown = changeWhileItWaits(runtime, () -> Bulk.writeCells(runtime, "v", coordinates, new int[] {-1}),
                    () -> coordinates[0][0] = -1);
            assertThat(thrown).isInstanceOf(ConcurrentModificationException.class);
            assertThat(runtime.count("v")).isEqualTo(1); // 33 before
            AtomicInteger visited = new AtomicInteger();
            runtime.forEach(cells, (Kernel1) i -> {
                assertThat(i).isEqualTo(4);
                visited.incrementAndGet();
            });
            assertThat(visited).hasValue(1);
            assertThat(runtime.generic().getInt("v", 4)).isEqualTo(5);
        }
    }

    /**
     * Three coordinates, a sorted dense box (the resolving loop of sorted lists: z checked per
     * cell, x and y where the row changes, the first cell's row checked before the loop), and a
     * scattered list (written group by group after its first batch, from a checked copy): a
     * coordinate changed outside the index space is refused where it is met, the cells written
     * before it are cells of the list, and nothing outside the index space is active.
     */
    @Test
    void threeCoordinatesSortedOrScatteredAreRefusedWhereTheChangedCellIsMet() throws Exception {
        record Change(boolean scattered, int cell, int axis, int value) {
        }
        for (Change change : new Change[] {new Change(false, 1000, 2, -1), new Change(false, 2000, 0, 64),
                new Change(false, 4096, 1, -7), new Change(false, 0, 0, -1), new Change(true, 3 * 4096 - 10, 0, -1)}) {
            try (SNodeRuntime runtime = SNodeRuntime.compile(Layout.parse("pointer(ijk,32).dense(ijk,2).place(f32 v)"))) {
                int count = 3 * 4096;
                java.util.List<int[]> list = new java.util.ArrayList<>();
                java.util.Set<Long> listed = new java.util.HashSet<>();
                if (change.scattered()) {
                    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
                    while (list.size() < count) {
                        int[] c = {random.nextInt(64), random.nextInt(64), random.nextInt(64)};
                        if (listed.add(key(c))) {
                            list.add(c);
                        }
                    }
                } else { // a 12 x 32 x 32 box in i, j, k order: eight cells of each block, no block forgotten
                    for (int i = 0; i < 12; i++) {
                        for (int j = 0; j < 32; j++) {
                            for (int k = 0; k < 32; k++) {
                                int[] c = {i, j, k};
                                listed.add(key(c));
                                list.add(c);
                            }
                        }
                    }
                }
                int[][] coordinates = new int[3][count];
                for (int n = 0; n < count; n++) {
                    for (int c = 0; c < 3; c++) {
                        coordinates[c][n] = list.get(n)[c];
                    }
                }
                float[] values = new float[count];
                java.util.Arrays.fill(values, 1f);
                Throwable thrown = changeWhileItWaits(runtime, () -> Bulk.writeCells(runtime, "v", coordinates, values),
                        () -> coordinates[change.axis()][change.cell()] = change.value());
                assertThat(thrown).as("%s", change).isInstanceOf(ConcurrentModificationException.class)
                        .hasMessageContaining("cell " + change.cell() + ": coordinate " + change.axis() + " is "
                                + change.value() + ", outside [0, 64)");
                CellArrays active = Bulk.activeCells(runtime, "v");
                int written = 0;
                for (int n = 0; n < active.size(); n++) {
                    int[] c = {active.coordinates(0)[n], active.coordinates(1)[n], active.coordinates(2)[n]};
                    if (listed.contains(key(c))) {
                        written += active.floats()[n] == 1f ? 1 : 0;
                    } else {
                        assertThat(active.floats()[n]).isZero(); // a dense block's other cells, active with it
                    }
                }
                assertThat(written).as("%s: cells written before the changed one", change).isLessThanOrEqualTo(change.cell());
                if (!change.scattered()) {
                    assertThat(written).as("%s: a sorted list is written up to the changed cell", change)
                            .isEqualTo(change.cell());
                }
            }
        }
    }

    private static long key(int[] c) {
        return ((long) c[0] << 16) | ((long) c[1] << 8) | c[2];
    }

    /** appendAll works on a copy of the lists it checked: the caller's changes during the call do not reach it. */
    @Test
    void aListCoordinateChangedDuringTheCallDoesNotReachAppendAll() throws Exception {
        try (SNodeRuntime runtime = SNodeRuntime.compile(Layout.parse("pointer(i,4).dynamic(l,16,4).place(i32 p)"))) {
            SNode lists = runtime.layout().field("p").snode();
            int[][] owners = {{0, 1, 1}};
            Throwable thrown = changeWhileItWaits(runtime, () -> Bulk.appendAll(runtime, "p", owners, new int[] {6, 7, 8}),
                    () -> {
                        owners[0][1] = 6;
                        owners[0][2] = 6;
                    });
            assertThat(thrown).isNull();
            assertThat(runtime.generic().length(lists, 0)).isEqualTo(1);
            assertThat(runtime.generic().length(lists, 1)).isEqualTo(2);
            assertThat(runtime.generic().length(lists, 2)).isZero(); // got list 1's elements until 12-07 (6 of 4 wrapped)
            assertThat(runtime.generic().length(lists, 3)).isZero();
        }
    }
}
