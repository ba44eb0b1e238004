package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.gc.internal.CellIndexSort;
import io.snode.gc.internal.TaskRunner;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The work splitter and the index sort the collectors are built from. */
class TaskRunnerTest {

    private static final ForkJoinPool POOL = new ForkJoinPool(3);

    @AfterAll
    static void shutdown() {
        POOL.shutdown();
    }

    @Test
    void everyIndexIsCoveredExactlyOnceForManySizesAndGrains() {
        TaskRunner runner = TaskRunner.forkJoin(POOL);
        assertThat(runner.parallelism()).isEqualTo(4);
        for (int n : new int[] {0, 1, 2, 3, 7, 16, 17, 100, 1000, 4097}) {
            for (long grain : new long[] {1, 2, 5, 64, 1 << 20}) {
                AtomicIntegerArray hits = new AtomicIntegerArray(Math.max(1, n));
                for (TaskRunner r : new TaskRunner[] {runner, TaskRunner.inline()}) {
                    for (int i = 0; i < hits.length(); i++) {
                        hits.set(i, 0);
                    }
                    r.forRange(n, grain, (a, b) -> {
                        assertThat(b - a).isPositive();
                        for (long i = a; i < b; i++) {
                            hits.incrementAndGet((int) i);
                        }
                    });
                    for (int i = 0; i < n; i++) {
                        assertThat(hits.get(i)).as("n=%d grain=%d i=%d %s", n, grain, i, r).isEqualTo(1);
                    }
                }
                assertThat(runner.pieces(n, grain)).isLessThanOrEqualTo(TaskRunner.MAX_TASKS_PER_THREAD * 4L);
            }
        }
    }

    @Test
    void helpersShareTheWork() {
        TaskRunner runner = TaskRunner.forkJoin(POOL);
        Set<Thread> workers = ConcurrentHashMap.newKeySet();
        // Pieces wait until a second thread has taken one, so at least one more thread must join in.
        CountDownLatch two = new CountDownLatch(2);
        runner.forRange(16, 1, (a, b) -> {
            if (workers.add(Thread.currentThread())) {
                two.countDown();
            }
            await(two);
        });
        assertThat(workers).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void theCallerFinishesAloneWhenEveryHelperIsBusy() {
        ForkJoinPool busy = new ForkJoinPool(2);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try {
            for (int i = 0; i < 2; i++) {
                busy.execute(() -> {
                    started.countDown();
                    await(release);
                });
            }
            await(started);
            Set<Thread> workers = ConcurrentHashMap.newKeySet();
            TaskRunner.forkJoin(busy).forRange(1000, 1, (a, b) -> workers.add(Thread.currentThread()));
            // Returned without any helper having started: the caller did every piece.
            assertThat(workers).containsExactly(Thread.currentThread());
        } finally {
            release.countDown();
            busy.shutdown();
        }
    }

    @Test
    void aShutDownPoolLeavesTheWorkToTheCaller() {
        ForkJoinPool closed = new ForkJoinPool(2);
        closed.shutdown();
        AtomicIntegerArray hits = new AtomicIntegerArray(100);
        TaskRunner.forkJoin(closed).forRange(100, 1, (a, b) -> {
            for (long i = a; i < b; i++) {
                hits.incrementAndGet((int) i);
            }
        });
        for (int i = 0; i < 100; i++) {
            assertThat(hits.get(i)).isEqualTo(1);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aFailingPieceFailsTheCallAfterTheOthersFinished() {
        TaskRunner runner = TaskRunner.forkJoin(POOL);
        AtomicIntegerArray finished = new AtomicIntegerArray(1);
        assertThatThrownBy(() -> runner.forRange(64, 1, (a, b) -> {
            if (a <= 10 && 10 < b) {
                throw new IllegalStateException("piece at " + a);
            }
            finished.incrementAndGet(0);
        })).isInstanceOf(IllegalStateException.class).hasMessageStartingWith("piece at");
        int after = finished.get(0);
        assertThat(after).isLessThan(64);
        assertThat(finished.get(0)).as("nothing runs after the call returned").isEqualTo(after);
        assertThatThrownBy(() -> runner.pieces(5, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grain=0");
    }

    @Test
    void theRadixSortAgreesWithArraysSort() {
        Random rnd = new Random(7);
        CellIndexSort reused = new CellIndexSort();
        for (int n : new int[] {0, 1, 2, 3, 10, 1000, 5000, 70_000}) {
            for (int bound : new int[] {1, 2, 2048, 2049, 1 << 22, (1 << 22) + 1, Integer.MAX_VALUE}) {
                int[] values = rnd.ints(n, 0, bound).toArray();
                int[] expected = values.clone();
                Arrays.sort(expected);
                int[] buffer = reused.buffer(n);
                System.arraycopy(values, 0, buffer, 0, n);
                reused.sort(n, bound);
                assertThat(Arrays.copyOf(reused.buffer(n), n)).as("n=%d bound=%d", n, bound).isEqualTo(expected);
                int[] copy = values.clone();
                CellIndexSort.sort(copy, bound);
                assertThat(copy).isEqualTo(expected);
                assertThat(CellIndexSort.isAscending(expected, n)).isTrue();
            }
        }
        assertThat(CellIndexSort.isAscending(new int[] {1, 0}, 2)).isFalse();
    }
}
