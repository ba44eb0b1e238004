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
    void onceACollectionWaitsANewLaunchWaitsBehindIt() {
        // Writer preference: the collection waits only for the launch already running.
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicBoolean collected = new AtomicBoolean();
        AtomicBoolean newcomerSawCollection = new AtomicBoolean();
        Thread running = start("running-launch", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(finish);
        }));
        await(inLaunch);
        Thread collector = start("collector", () -> lock.exclusive(() -> collected.set(true)));
        awaitParked(collector);
        Thread newcomer = start("new-launch", () -> lock.launch(() -> newcomerSawCollection.set(collected.get())));
        try {
            awaitParked(newcomer);
            assertThat(lock.activeLaunches()).as("the new launch has not entered").isEqualTo(1);
            assertThat(collected).isFalse();
        } finally {
            finish.countDown();
        }
        joinQuietly(running);
        joinQuietly(collector);
        joinQuietly(newcomer);
        assertThat(collected).isTrue();
        assertThat(newcomerSawCollection).as("the new launch entered after the collection").isTrue();
    }

    @Test
    void nestedLaunchesEnterAtOnceWhileACollectionWaits() {
        // The thread inside a launch, and a worker marked as running one of its tasks, enter
        // nested launches without waiting for the waiting collection (which waits for them).
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch collectorParked = new CountDownLatch(1);
        CountDownLatch workerDone = new CountDownLatch(1);
        AtomicBoolean collected = new AtomicBoolean();
        AtomicInteger nestedSeenBeforeCollection = new AtomicInteger();
        Thread outer = start("outer-launch", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(collectorParked);
            lock.launch(() -> {
                if (!collected.get()) {
                    nestedSeenBeforeCollection.incrementAndGet();
                }
            });
            Thread worker = new Thread(() -> {
                lock.enterTask();
                try {
                    assertThat(lock.inLaunchOnCurrentThread()).isTrue();
                    lock.launch(() -> {
                        if (!collected.get()) {
                            nestedSeenBeforeCollection.incrementAndGet();
                        }
                    });
                    assertThatThrownBy(() -> lock.exclusive(() -> { })).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("inside a launch");
                } finally {
                    lock.exitTask();
                    workerDone.countDown();
                }
            }, "worker");
            worker.start();
            await(workerDone);
        }));
        await(inLaunch);
        Thread collector = start("collector", () -> lock.exclusive(() -> collected.set(true)));
        try {
            awaitParked(collector);
            assertThat(lock.isCollectionWaiting()).isTrue();
        } finally {
            collectorParked.countDown();
        }
        joinQuietly(outer);
        joinQuietly(collector);
        assertThat(nestedSeenBeforeCollection).hasValue(2);
        assertThat(collected).isTrue();
        assertThat(lock.isCollectionWaiting()).isFalse();
    }

    @Test
    void aTimedCollectionThatGivesUpLetsTheLaunchesItHeldBackIn() throws InterruptedException {
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CountDownLatch newcomerRan = new CountDownLatch(1);
        Thread running = start("running-launch", () -> lock.launch(() -> {
            inLaunch.countDown();
            await(finish);
        }));
        await(inLaunch);
        AtomicBoolean ran = new AtomicBoolean();
        Thread collector = start("timed-collector", () -> {
            try {
                ran.set(lock.tryExclusive(() -> { }, TIMEOUT_S, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                ran.set(false);
            }
        });
        try {
            awaitParked(collector);
            Thread newcomer = start("new-launch", () -> lock.launch(newcomerRan::countDown));
            awaitParked(newcomer);
            assertThat(newcomerRan.getCount()).as("held back").isEqualTo(1);
            collector.interrupt(); // gives up
            await(newcomerRan);
            joinQuietly(newcomer);
            joinQuietly(collector);
            assertThat(ran).isFalse();
            assertThat(lock.isCollectionWaiting()).isFalse();
            assertThat(lock.activeLaunches()).isEqualTo(1);
        } finally {
            finish.countDown();
        }
        joinQuietly(running);
        assertThat(lock.tryExclusive(() -> { })).isTrue();
    }

    @Test
    void taskMarksAreCheckedAndNest() {
        assertThatThrownBy(lock::enterTask).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no launch is active");
        assertThatThrownBy(lock::exitTask).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching enterTask");
        lock.launch(() -> {
            lock.enterTask();
            lock.enterTask();
            lock.exitTask();
            assertThat(lock.inLaunchOnCurrentThread()).isTrue();
            lock.exitTask();
        });
        assertThat(lock.inLaunchOnCurrentThread()).isFalse();
        assertThat(lock.tryExclusive(() -> { })).isTrue();
    }

    @Test
    void launchesThatWaitedForACollectionEnterBeforeTheNextCollection() {
        // Phase fairness: a collection queued behind another does not overtake the launches
        // that waited for the first one.
        CountDownLatch collecting = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicInteger collections = new AtomicInteger();
        AtomicInteger seenByLaunch = new AtomicInteger(-1);
        Thread first = start("first-collector", () -> lock.exclusive(() -> {
            collecting.countDown();
            await(finish);
            collections.incrementAndGet();
        }));
        await(collecting);
        Thread launcher = start("launcher", () -> lock.launch(() -> seenByLaunch.set(collections.get())));
        Thread second;
        try {
            awaitParked(launcher);
            second = start("second-collector", () -> lock.exclusive(collections::incrementAndGet));
            awaitParked(second);
        } finally {
            finish.countDown();
        }
        joinQuietly(first);
        joinQuietly(launcher);
        joinQuietly(second);
        assertThat(seenByLaunch).as("the launch ran between the two collections").hasValue(1);
        assertThat(collections).hasValue(2);
    }

    @Test
    void aCollectionWaitingBehindBackToBackLaunchesGetsIn() throws Exception {
        // 16 threads launch back to back, always overlapping; 20 collections must still get in.
        int launchers = 16;
        int collections = 20;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger launches = new AtomicInteger();
        CyclicBarrier go = new CyclicBarrier(launchers + 1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < launchers; t++) {
            threads.add(start("launcher-" + t, () -> {
                try {
                    go.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                while (!stop.get()) {
                    lock.launch(() -> {
                        launches.incrementAndGet();
                        long end = System.nanoTime() + 20_000; // a 20 us launch
                        while (System.nanoTime() < end) {
                            Thread.onSpinWait();
                        }
                    });
                }
            }));
        }
        AtomicInteger done = new AtomicInteger();
        Thread collector = start("collector", () -> {
            try {
                go.await();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            for (int n = 0; n < collections; n++) {
                int seen = launches.get();
                while (launches.get() < seen + launchers && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // let the launches run between two collections
                }
                lock.exclusive(done::incrementAndGet);
            }
        });
        try {
            collector.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            assertThat(done).as("collections completed among back-to-back launches").hasValue(collections);
        } finally {
            stop.set(true);
        }
        for (Thread t : threads) {
            joinQuietly(t);
        }
        assertThat(launches.get()).isGreaterThanOrEqualTo(collections * launchers);
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
                do { // at least once, even when the launchers are done before this thread runs
                    lock.exclusive(() -> {
                        collecting.set(true);
                        if (inside.get() != 0) {
                            violations.incrementAndGet();
                        }
                        counter[0]++;
                        collections.incrementAndGet();
                        collecting.set(false);
                    });
                } while (!allDone(futures));
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
