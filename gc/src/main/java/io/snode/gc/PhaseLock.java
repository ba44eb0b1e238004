package io.snode.gc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Keeps kernel launches and garbage collection apart: launches enter <em>shared</em> (any
 * number at once), a collection enters <em>exclusive</em> (alone). A launch that begins while a
 * collection runs waits for it to finish; a collection waits until no launch is active.
 *
 * <p>Why: a deactivated cell's memory is kept until the next collection zeroes it and puts it
 * back on the free list. A reader inside a launch may still hold such a cell (it looked the
 * pointer up before another thread deactivated it); because no collection overlaps a launch,
 * that reader sees the cell's old contents, never another cell's data.
 *
 * <h2>Assumptions</h2>
 * <ol>
 *   <li>Every {@link #enterLaunch()} is matched by one {@link #exitLaunch()} (or one
 *       {@link Launch#close()}) <em>on the same thread</em>, after the launch's work, including
 *       the work it forked to other threads, has finished (a struct-for joins its tasks before it
 *       exits).</li>
 *   <li>Threads that work <em>for</em> a launch (fork/join workers running its tasks) need not
 *       enter; if they do (a kernel launching another kernel), they may. They never call
 *       {@link #exclusive} while the launch they work for is active: that collection would wait
 *       for the launch, which waits for them. Such a deadlock cannot be detected here, because
 *       nothing ties a worker thread to the launch it works for. A thread that itself holds a
 *       launch gets {@link IllegalStateException} instead.</li>
 *   <li>Accesses outside launches are not guarded. Direct accessor calls (reads, writes,
 *       activation, deactivation) made outside {@code enterLaunch}/{@code exitLaunch} must not
 *       overlap an explicit collection started from another thread; the caller orders them
 *       (for example: call {@code gc()} from the same thread, or wrap the accesses in a launch).</li>
 * </ol>
 *
 * <h2>Guarantees</h2>
 * <ol>
 *   <li>Mutual exclusion: while a body passed to {@link #exclusive} runs, no launch is active,
 *       and at most one exclusive body runs at a time.</li>
 *   <li>Happens-before: everything a launch did before {@code exitLaunch} happens-before the
 *       next exclusive body; everything an exclusive body did happens-before every launch that
 *       enters after it (all transitions go through one volatile state word).</li>
 *   <li>Liveness of launches: {@code enterLaunch} waits only while an exclusive body is
 *       <em>running</em>, never for a collection that is merely waiting. So a launch that is
 *       entered by a worker of another active launch (nested launches) cannot deadlock with a
 *       waiting collection.</li>
 *   <li>Misuse is reported, not hung: {@code exclusive} on a thread inside a launch,
 *       {@code enterLaunch} inside an exclusive body on the same thread, a nested
 *       {@code exclusive}, and {@code exitLaunch} without a matching enter on this thread throw
 *       {@link IllegalStateException} and change nothing.</li>
 * </ol>
 *
 * <h2>Progress guarantees</h2>
 * <ul>
 *   <li>{@code enterLaunch}: lock-free (one compare-and-set, retried only when another launch
 *       entered or exited at the same moment) while no collection runs; blocking while one runs.</li>
 *   <li>{@code exitLaunch}: wait-free (one atomic add); the last launch out takes a lock briefly
 *       to wake a waiting collection.</li>
 *   <li>{@code exclusive}: blocking. Launches are preferred (see Guarantee 3): a collection can
 *       be postponed for as long as launches overlap without a gap in which none is active. Use
 *       {@link #tryExclusive(Runnable)} for opportunistic collection (after a launch that
 *       deactivated something) and {@link #tryExclusive(Runnable, long, TimeUnit)} to bound the
 *       wait.</li>
 * </ul>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * PhaseLock phases = new PhaseLock();
 * // a launch (the struct-for driver):
 * try (PhaseLock.Launch launch = phases.enterLaunch()) {
 *     runKernelInParallelAndJoin();
 * }
 * // runtime.gc():
 * phases.exclusive(sparseRuntime::collect);
 * }</pre>
 */
public final class PhaseLock {

    /*
     * Implementation notes.
     *
     * state (one int, volatile): bit 30 COLLECTING, bits 0-29 the number of active launches.
     * COLLECTING is set only by a CAS from 0, so it is never set while a launch is active, and a
     * launch enters only by a CAS from a state without COLLECTING.
     *
     * Waiting uses one ReentrantLock and two conditions. Lost wake-ups are excluded by the Dekker
     * pattern over volatiles: a waiter first publishes that it waits (collectorWaiting, or
     * launchersWaiting under waitLock), then re-reads state; the side that changes state first
     * writes state, then reads the waiter flag and, if set, signals under waitLock. In the
     * sequentially consistent order of these volatile accesses either the waiter sees the new
     * state, or the changer sees the flag; the waiter re-checks state with waitLock held, so the
     * signal cannot fall between its check and its await.
     *
     * Collections are serialised by their own lock first (collectors), so at most one thread
     * ever waits on launchesDone.
     */

    private static final int COLLECTING = 1 << 30;
    private static final int LAUNCHES = COLLECTING - 1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PhaseLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** COLLECTING | launches. Access: volatile reads, compareAndSet, getAndAdd, setVolatile (STATE). */
    @SuppressWarnings("unused")
    private volatile int state;
    private final ReentrantLock collectors = new ReentrantLock();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition launchesDone = waitLock.newCondition();
    private final Condition collectionDone = waitLock.newCondition();
    private volatile boolean collectorWaiting;
    /** Launches waiting for a collection to end; written only with waitLock held. */
    private volatile int launchersWaiting;
    /** The thread running an exclusive body, for misuse checks. */
    private volatile Thread collectingThread;
    /** Launches entered and not exited, per thread. */
    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);

    /** A lock with no launch active and no collection running. */
    public PhaseLock() {
    }

    /**
     * The token of one launch; closing it exits the launch. Close it on the thread that entered;
     * closing twice does nothing the second time.
     */
    public static final class Launch implements AutoCloseable {
        private final PhaseLock lock;
        private boolean closed;

        private Launch(PhaseLock lock) {
            this.lock = lock;
        }

        @Override
        public void close() {
            if (!closed) {
                lock.exitLaunch();
                closed = true;
            }
        }
    }

    // ------------------------------------------------------------------ launches (shared)

    /**
     * Enters a launch, waiting while a collection runs.
     *
     * @return a token whose {@link Launch#close()} exits the launch
     * @throws IllegalStateException inside an exclusive body on this thread, or with 2^30 - 1 launches active
     */
    public Launch enterLaunch() {
        if (collectingThread == Thread.currentThread()) {
            throw new IllegalStateException("enterLaunch inside an exclusive section on the same thread (a kernel "
                    + "launched from the collector would wait for itself)");
        }
        for (;;) {
            int s = state;
            if ((s & COLLECTING) != 0) {
                awaitCollectionEnd();
                continue;
            }
            if ((s & LAUNCHES) == LAUNCHES) {
                throw new IllegalStateException("launches=" + LAUNCHES + " active: too many");
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                depth.get()[0]++;
                return new Launch(this);
            }
            // Another launch entered or exited at the same moment: retry.
        }
    }

    /**
     * Exits a launch that this thread entered.
     *
     * @throws IllegalStateException if this thread has no launch to exit
     */
    public void exitLaunch() {
        int[] d = depth.get();
        if (d[0] == 0) {
            throw new IllegalStateException("exitLaunch without a matching enterLaunch on thread "
                    + Thread.currentThread().getName());
        }
        d[0]--;
        int before = (int) STATE.getAndAdd(this, -1);
        if ((before & LAUNCHES) == 1 && collectorWaiting) {
            waitLock.lock();
            try {
                launchesDone.signalAll();
            } finally {
                waitLock.unlock();
            }
        }
    }

    /** Runs {@code body} as a launch: {@code enterLaunch}, the body, {@code exitLaunch} (also when it throws). */
    public void launch(Runnable body) {
        Objects.requireNonNull(body, "body");
        try (Launch ignored = enterLaunch()) {
            body.run();
        }
    }

    /** Runs {@code body} as a launch and returns its result. */
    public <T> T supplyLaunch(Supplier<T> body) {
        Objects.requireNonNull(body, "body");
        try (Launch ignored = enterLaunch()) {
            return body.get();
        }
    }

    private void awaitCollectionEnd() {
        waitLock.lock();
        try {
            launchersWaiting++;
            try {
                while ((state & COLLECTING) != 0) {
                    collectionDone.awaitUninterruptibly();
                }
            } finally {
                launchersWaiting--;
            }
        } finally {
            waitLock.unlock();
        }
    }

    // ------------------------------------------------------------------ collection (exclusive)

    /**
     * Runs {@code body} with no launch active and no other exclusive body running: waits for the
     * active launches to exit (launches that arrive meanwhile are still admitted, see Progress),
     * then keeps new launches waiting until the body returns or throws.
     *
     * @throws IllegalStateException if this thread is inside a launch or already inside an exclusive body
     */
    public void exclusive(Runnable body) {
        Objects.requireNonNull(body, "body");
        checkMayCollect();
        collectors.lock();
        try {
            if (!STATE.compareAndSet(this, 0, COLLECTING)) {
                waitLock.lock();
                try {
                    collectorWaiting = true;
                    while (!STATE.compareAndSet(this, 0, COLLECTING)) {
                        launchesDone.awaitUninterruptibly();
                    }
                } finally {
                    collectorWaiting = false;
                    waitLock.unlock();
                }
            }
            runExclusive(body);
        } finally {
            collectors.unlock();
        }
    }

    /** {@link #exclusive(Runnable)} that returns the body's result. */
    public <T> T supplyExclusive(Supplier<T> body) {
        Objects.requireNonNull(body, "body");
        Object[] result = new Object[1];
        exclusive((Runnable) () -> result[0] = body.get());
        @SuppressWarnings("unchecked")
        T t = (T) result[0];
        return t;
    }

    /**
     * Runs {@code body} exclusively only if that is possible at once: no launch active and no
     * other collection running or waiting. Never waits.
     *
     * @return whether the body ran
     * @throws IllegalStateException if this thread is inside a launch or already inside an exclusive body
     */
    public boolean tryExclusive(Runnable body) {
        Objects.requireNonNull(body, "body");
        checkMayCollect();
        if (!collectors.tryLock()) {
            return false;
        }
        try {
            if (!STATE.compareAndSet(this, 0, COLLECTING)) {
                return false;
            }
            runExclusive(body);
            return true;
        } finally {
            collectors.unlock();
        }
    }

    /**
     * {@link #exclusive(Runnable)} that gives up after {@code timeout}.
     *
     * @return whether the body ran
     * @throws InterruptedException if interrupted while waiting (the body did not run)
     * @throws IllegalStateException if this thread is inside a launch or already inside an exclusive body
     */
    public boolean tryExclusive(Runnable body, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(body, "body");
        checkMayCollect();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!collectors.tryLock(timeout, unit)) {
            return false;
        }
        try {
            if (!STATE.compareAndSet(this, 0, COLLECTING)) {
                waitLock.lockInterruptibly();
                try {
                    collectorWaiting = true;
                    while (!STATE.compareAndSet(this, 0, COLLECTING)) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return false;
                        }
                        launchesDone.awaitNanos(left);
                    }
                } finally {
                    collectorWaiting = false;
                    waitLock.unlock();
                }
            }
            runExclusive(body);
            return true;
        } finally {
            collectors.unlock();
        }
    }

    private void checkMayCollect() {
        if (collectingThread == Thread.currentThread()) {
            throw new IllegalStateException("exclusive section entered twice on the same thread");
        }
        if (depth.get()[0] > 0) {
            throw new IllegalStateException("a collection requested inside a launch on the same thread would wait "
                    + "for that launch forever; collect after the launch exits");
        }
    }

    /** With COLLECTING set by this thread: run, then clear it and wake waiting launches. */
    private void runExclusive(Runnable body) {
        collectingThread = Thread.currentThread();
        try {
            body.run();
        } finally {
            collectingThread = null;
            STATE.setVolatile(this, 0);
            if (launchersWaiting > 0) {
                waitLock.lock();
                try {
                    collectionDone.signalAll();
                } finally {
                    waitLock.unlock();
                }
            }
        }
    }

    // ------------------------------------------------------------------ observation

    /** Launches active now (a snapshot). */
    public int activeLaunches() {
        return state & LAUNCHES;
    }

    /** Whether an exclusive body runs now (a snapshot). */
    public boolean isCollecting() {
        return (state & COLLECTING) != 0;
    }

    /** Whether this thread is inside a launch. */
    public boolean inLaunchOnCurrentThread() {
        return depth.get()[0] > 0;
    }

    @Override
    public String toString() {
        int s = state;
        return "PhaseLock[launches=" + (s & LAUNCHES) + ", collecting=" + ((s & COLLECTING) != 0) + "]";
    }
}
