package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel1;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A {@code gc()} that waits for running launches gets in before launches that start after it began waiting. */
class CollectionFairnessTest {
    static final Layout L = Layout.parse("pointer(i,64).dense(i,512).place(f32 x)");
    private static final long TIMEOUT_S = 20;

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void onceGcWaitsALaunchThatStartsLaterRunsAfterTheCollection(int threads) throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            rt.parallelism(threads);
            rt.generic().setFloat("x", 1f, 0);
            long before = rt.lastGcStatistics().sequence();
            CountDownLatch inKernel = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            AtomicBoolean first = new AtomicBoolean();
            Thread running = start("running-launch", () -> rt.forEach("x", (Kernel1) i -> {
                if (first.compareAndSet(false, true)) {
                    inKernel.countDown();
                    await(finish);
                }
            }));
            await(inKernel);
            Thread collector = start("gc", rt::gc);
            AtomicLong sequenceSeenByTheLaterLaunch = new AtomicLong(-1);
            Thread later;
            try {
                awaitParked(collector);
                later = start("later-launch", () -> rt.forEach("x",
                        (Kernel1) i -> sequenceSeenByTheLaterLaunch.set(rt.lastGcStatistics().sequence())));
                awaitParked(later);
                assertThat(rt.phaseLock().activeLaunches()).as("the later launch has not entered").isEqualTo(1);
            } finally {
                finish.countDown();
            }
            join(running);
            join(collector);
            join(later);
            assertThat(sequenceSeenByTheLaterLaunch.get()).as("the later launch ran after the collection")
                    .isEqualTo(before + 1);
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
    }

    /** Waits (bounded, no sleep) until {@code t} parks. */
    static void awaitParked(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(t.isAlive()).as("%s still running", t.getName()).isTrue();
            assertThat(System.nanoTime()).as("%s parked in time", t.getName()).isLessThan(deadline);
            Thread.yield();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
