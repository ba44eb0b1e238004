package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PhaseLockTest {

    private static final long TIMEOUT_S = 20;

    private final PhaseLock lock = new PhaseLock();
    private final List<Thread> started = new ArrayList<>();

    @AfterEach
    void joinThreads() throws InterruptedException {
        for (Thread t : started) {
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            assertThat(t.isAlive()).as("thread %s ended", t.getName()).isFalse();
        }
    }

    private Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        started.add(t);
        t.start();
        return t;
    }

    /** Waits (bounded, no sleep) until {@code t} parks. */
    private static void awaitParked(Thread t) {
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

    @Test
    void aLaunchWaitsForARunningCollection() {
        CountDownLatch collecting = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicBoolean collectionDone = new AtomicBoolean();
        AtomicBoolean launchSawCollectionDone = new AtomicBoolean();
        start("collector", () -> lock.exclusive(() -> {
            collecting.countDown();
            await(finish);
            collectionDone.set(true);
        }));
        await(collecting);
        assertThat(lock.isCollecting()).isTrue();
        Thread launcher = start("launcher", () -> lock.launch(() -> launchSawCollectionDone.set(collectionDone.get())));
        awaitParked(launcher);
        assertThat(lock.activeLaunches()).isZero();
        finish.countDown();
        joinQuietly(launcher);
        assertThat(launchSawCollectionDone).isTrue();
    }

    @Test
    void aCollectionWaitsForActiveLaunchesAndSeesTheirWrites() {
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        int[] plain = new int[1];
        AtomicInteger seen = new AtomicInteger(-1);
        start("launcher", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(finish);
            plain[0] = 42; // plain write: the lock's happens-before must publish it
        }));
        await(inLaunch);
        Thread collector = start("collector", () -> lock.exclusive(() -> seen.set(plain[0])));
        awaitParked(collector);
        assertThat(seen).hasValue(-1);
        assertThat(lock.activeLaunches()).isEqualTo(1);
        finish.countDown();
        joinQuietly(collector);
        assertThat(seen).hasValue(42);
    }

    @Test
    void aWaitingCollectionDoesNotBlockNewLaunches() {
        // Reader preference: a worker of an active launch may enter a nested launch while a
        // collection waits, without deadlock.
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicBoolean collected = new AtomicBoolean();
        start("outer-launch", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(finish);
        }));
        await(inLaunch);
        Thread collector = start("collector", () -> lock.exclusive(() -> collected.set(true)));
        awaitParked(collector);
        Thread nested = start("nested-launch", () -> lock.launch(() -> assertThat(collected).isFalse()));
        joinQuietly(nested);
        assertThat(collected).isFalse();
        finish.countDown();
        joinQuietly(collector);
        assertThat(collected).isTrue();
    }

    @Test
    void misuseThrowsInsteadOfHanging() {
        assertThatThrownBy(lock::exitLaunch).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching enterLaunch");
        try (PhaseLock.Launch launch = lock.enterLaunch()) {
            assertThat(lock.inLaunchOnCurrentThread()).isTrue();
            assertThatThrownBy(() -> lock.exclusive(() -> { })).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("inside a launch");
            assertThatThrownBy(() -> lock.tryExclusive(() -> { })).isInstanceOf(IllegalStateException.class);
            launch.close();
            launch.close(); // idempotent
            assertThat(lock.activeLaunches()).isZero();
        }
        lock.exclusive(() -> {
            assertThatThrownBy(lock::enterLaunch).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("inside an exclusive section");
            assertThatThrownBy(() -> lock.exclusive(() -> { })).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("twice");
        });
        assertThat(lock.isCollecting()).isFalse();
        assertThat(lock.activeLaunches()).isZero();
    }

    @Test
    void aThrowingBodyReleasesTheLock() {
        assertThatThrownBy(() -> lock.exclusive(() -> {
            throw new IllegalArgumentException("boom");
        })).hasMessage("boom");
        assertThatThrownBy(() -> lock.launch(() -> {
            throw new IllegalArgumentException("bang");
        })).hasMessage("bang");
        assertThat(lock.isCollecting()).isFalse();
        assertThat(lock.activeLaunches()).isZero();
        assertThat(lock.supplyExclusive(() -> "ok")).isEqualTo("ok");
        assertThat(lock.supplyLaunch(() -> 3)).isEqualTo(3);
    }

    @Test
    void nestedLaunchesOnOneThreadCount() {
        try (PhaseLock.Launch a = lock.enterLaunch(); PhaseLock.Launch b = lock.enterLaunch()) {
            assertThat(lock.activeLaunches()).isEqualTo(2);
        }
        assertThat(lock.activeLaunches()).isZero();
        assertThat(lock.inLaunchOnCurrentThread()).isFalse();
    }

    @Test
    void tryExclusiveNeverWaitsAndTheTimedFormGivesUp() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        assertThat(lock.tryExclusive(runs::incrementAndGet)).isTrue();
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread launcher = start("launcher", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(finish);
        }));
        await(inLaunch);
        assertThat(lock.tryExclusive(runs::incrementAndGet)).isFalse();
        assertThat(lock.tryExclusive(runs::incrementAndGet, 20, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(runs).hasValue(1);
        finish.countDown();
        joinQuietly(launcher);
        assertThat(lock.tryExclusive(runs::incrementAndGet, 1, TimeUnit.SECONDS)).isTrue();
        assertThat(runs).hasValue(2);
    }

    @Test
    void stressLaunchesAndCollectionsNeverOverlap() throws Exception {
        int launchers = 3;
        int launchesEach = 20_000;
        AtomicInteger inside = new AtomicInteger();
        AtomicBoolean collecting = new AtomicBoolean();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger collections = new AtomicInteger();
        long[] counter = new long[1]; // plain: written in exclusive bodies only, read in launches
        CyclicBarrier go = new CyclicBarrier(launchers + 1);
        ExecutorService pool = Executors.newFixedThreadPool(launchers + 1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < launchers; t++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    long last = 0;
                    for (int i = 0; i < launchesEach; i++) {
                        try (PhaseLock.Launch l = lock.enterLaunch()) {
                            inside.incrementAndGet();
                            if (collecting.get()) {
                                violations.incrementAndGet();
                            }
                            long now = counter[0];
                            if (now < last) {
                                violations.incrementAndGet(); // went backwards: missed happens-before
                            }
                            last = now;
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Future<?> collector = pool.submit(() -> {
                go.await();
                while (!allDone(futures)) {
                    lock.exclusive(() -> {
                        collecting.set(true);
                        if (inside.get() != 0) {
                            violations.incrementAndGet();
                        }
                        counter[0]++;
                        collections.incrementAndGet();
                        collecting.set(false);
                    });
                }
                return null;
            });
            for (Future<?> f : futures) {
                f.get(TIMEOUT_S * 3, TimeUnit.SECONDS);
            }
            collector.get(TIMEOUT_S, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(violations).hasValue(0);
        assertThat(collections.get()).isPositive();
        assertThat(lock.activeLaunches()).isZero();
        assertThat(lock.isCollecting()).isFalse();
    }

    private static boolean allDone(List<Future<?>> futures) {
        return futures.stream().allMatch(Future::isDone);
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
}
