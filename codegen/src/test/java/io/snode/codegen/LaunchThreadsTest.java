package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel1;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Which threads run a parallel launch's ranges: the launching thread claims ranges beside the
 * pool's helpers (it does not hand the whole launch to the pool and sleep until a worker wakes),
 * and a helper that starts after every range was claimed leaves without touching the launch.
 */
class LaunchThreadsTest {
    /** 64 blocks of 4096 cells: 8 ranges of 32,768 cells. */
    private static final Layout L = Layout.parse("pointer(i,64).dense(i,4096).place(f32 x)");
    private static final long WAIT_S = 5;

    private static SNodeRuntime filled(int threads) {
        SNodeRuntime rt = SNodeRuntime.compile(L);
        rt.parallelism(threads);
        for (int block = 0; block < 64; block++) {
            rt.generic().setFloat("x", 1f, block * 4096);
        }
        return rt;
    }

    @Test
    void aParallelLaunchRunsRangesOnTheLaunchingThreadToo() throws Exception {
        try (SNodeRuntime rt = filled(2)) {
            Thread launching = Thread.currentThread();
            CountDownLatch launchingThreadRan = new CountDownLatch(1);
            AtomicBoolean workerWaited = new AtomicBoolean();
            AtomicLong onLaunchingThread = new AtomicLong();
            AtomicLong calls = new AtomicLong();
            rt.forEach("x", (Kernel1) i -> {
                calls.incrementAndGet();
                if (Thread.currentThread() == launching) {
                    onLaunchingThread.incrementAndGet();
                    launchingThreadRan.countDown();
                } else if (workerWaited.compareAndSet(false, true)) {
                    // A worker that came first holds its range until the launching thread ran a
                    // call (bounded): one that runs every range while the launching thread sleeps
                    // leaves this to time out.
                    try {
                        launchingThreadRan.await(WAIT_S, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            assertThat(calls.get()).isEqualTo(64L * 4096);
            assertThat(onLaunchingThread.get()).as("kernel calls on the launching thread").isPositive();
        }
    }

    @Test
    void helpersThatStartAfterTheLastRangeWasClaimedLeaveWithoutAnError() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        try (SNodeRuntime rt = filled(2)) {
            SNode blocks = rt.layout().field("x").snode();
            double sum = 0;
            // Short launches: many end before the helper each of them submits has started, so those
            // helpers meet a launch that is over, or the next one. (A late helper of the last few
            // launches may run after the check below: the 2,000 before them are what it covers.)
            for (int launch = 0; launch < 2000; launch++) {
                sum += rt.reduceBlocks(blocks, () -> new double[1], (acc, block) -> acc[0] += 1,
                        (a, b) -> {
                            a[0] += b[0];
                            return a;
                        })[0];
            }
            assertThat(sum).isEqualTo(2000.0 * 64);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        assertThat(uncaught).isEmpty();
    }

    /**
     * A parallelism out of range is refused with its limits, and the runtime keeps the one it
     * had: a fork/join pool holds at most 32,767 threads, and the launching thread is the last.
     */
    @Test
    void aParallelismOutOfRangeIsRefusedWithItsLimitsAndTheOldOneStays() {
        try (SNodeRuntime rt = filled(2)) {
            for (int threads : new int[] {0, -1, 32769, Integer.MAX_VALUE}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> rt.parallelism(threads))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("parallelism=" + threads + " must be between 1 and 32768");
                assertThat(rt.parallelism()).isEqualTo(2);
            }
            AtomicLong visited = new AtomicLong();
            rt.forEach("x", (Kernel1) i -> visited.incrementAndGet());
            assertThat(visited).hasValue(64 * 4096);
        }
    }

    /**
     * The parallelism does not change under a running launch: from its kernel the call is
     * refused (as gc and close are), and from another thread it waits until the launch is over,
     * which visits every cell with the pool it started with.
     */
    @Test
    void theParallelismDoesNotChangeUnderARunningLaunch() throws Exception {
        try (SNodeRuntime rt = filled(2)) {
            java.util.concurrent.atomic.AtomicReference<Throwable> fromKernel = new java.util.concurrent.atomic.AtomicReference<>();
            AtomicBoolean first = new AtomicBoolean();
            rt.forEach("x", (Kernel1) i -> {
                if (first.compareAndSet(false, true)) {
                    try {
                        rt.parallelism(3);
                    } catch (Throwable e) {
                        fromKernel.set(e);
                    }
                }
            });
            assertThat(fromKernel.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside a launch")
                    .hasMessageContaining("parallelism(3)").hasMessageNotContaining("collection");
            assertThat(rt.parallelism()).isEqualTo(2);

            CountDownLatch inKernel = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicLong visited = new AtomicLong();
            Thread launch = new Thread(() -> rt.forEach("x", (Kernel1) i -> {
                if (visited.incrementAndGet() == 1) {
                    inKernel.countDown();
                    try {
                        release.await(WAIT_S, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }));
            launch.start();
            assertThat(inKernel.await(WAIT_S, TimeUnit.SECONDS)).isTrue();
            Thread changer = new Thread(() -> rt.parallelism(3));
            changer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (changer.getState() != Thread.State.WAITING && changer.getState() != Thread.State.TIMED_WAITING
                    && changer.isAlive() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(changer.isAlive()).as("the change waits (parked) for the running launch").isTrue();
            assertThat(rt.parallelism()).isEqualTo(2);
            release.countDown();
            launch.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            changer.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            assertThat(launch.isAlive() || changer.isAlive()).isFalse();
            assertThat(visited).hasValue(64 * 4096);
            assertThat(rt.parallelism()).isEqualTo(3);
        }
    }
}
