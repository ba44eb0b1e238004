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
 * collection runs <em>or waits</em> waits for it to finish; a collection waits until the
 * launches already running have exited. Collections are preferred (writer preference), so a
 * waiting collection gets in within one launch's length even while other threads launch back
 * to back.
 *
 * <p>Why: a deactivated cell's memory is kept until the next collection zeroes it and puts it
 * back on the free list. A reader inside a launch may still hold such a cell (it looked the
 * pointer up before another thread deactivated it); because no collection overlaps a launch,
 * that reader sees the cell's old contents, never another cell's data.
 *
 * <p>Terms: a thread <em>holds the shared phase</em> while it is inside a launch it entered
 * ({@link #enterLaunch()} not yet matched by {@link #exitLaunch()}) or while it runs a
 * <em>task</em> of an active launch ({@link #enterTask()} not yet matched by
 * {@link #exitTask()}): the work a launch forks to a pool's threads.
 *
 * <h2>Assumptions</h2>
 * <ol>
 *   <li>Every {@link #enterLaunch()} is matched by one {@link #exitLaunch()} (or one
 *       {@link Launch#close()}) <em>on the same thread</em>, after the launch's work, including
 *       the work it forked to other threads, has finished (a struct-for joins its tasks before it
 *       exits).</li>
 *   <li>A thread that works for a launch marks that work with {@code enterTask}/{@code exitTask}
 *       (the struct-for launcher does, around every task it runs) if the work may enter a launch
 *       itself (a kernel launching another kernel) or request a collection. Marked, a nested
 *       launch enters at once even while a collection waits, and a collection requested there
 *       throws. Unmarked threads are strangers to the launch: their launches wait behind a
 *       waiting collection, which waits for the launch they work for, which waits for them: a
 *       deadlock that cannot be detected here. (So a kernel must not launch from threads of its
 *       own, such as a parallel stream, while another thread may call {@code gc()}.)</li>
 *   <li>Accesses outside launches are not guarded. Direct accessor calls (reads, writes,
 *       activation, deactivation) made outside {@code enterLaunch}/{@code exitLaunch} must not
 *       overlap a collection started from another thread; the caller orders them
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
 *   <li>Writer preference: once a collection waits ({@code exclusive} or the timed
 *       {@code tryExclusive} found a launch active), {@code enterLaunch} on a thread that does
 *       not hold the shared phase waits until that collection has run (or given up). The
 *       launches already active are not interrupted: they run to their end.</li>
 *   <li>Nested launches do not deadlock: {@code enterLaunch} on a thread that holds the shared
 *       phase never waits for a waiting collection (none can run while the launch that thread
 *       works for is active).</li>
 *   <li>Misuse is reported, not hung: {@code exclusive} (either form of {@code tryExclusive}
 *       too) on a thread that holds the shared phase, {@code enterLaunch} inside an exclusive
 *       body on the same thread, a nested {@code exclusive}, {@code exitLaunch} or
 *       {@code exitTask} without a matching enter on this thread, and {@code enterTask} while
 *       no launch is active throw {@link IllegalStateException} and change nothing. A
 *       collection requested by a kernel gets the same exception on every thread of its launch.</li>
 * </ol>
 *
 * <h2>Progress guarantees</h2>
 * <ul>
 *   <li>{@code enterLaunch}: lock-free (one compare-and-set, retried only when another launch
 *       entered or exited at the same moment) while no collection runs or waits; blocking while
 *       one does, for at most the rest of the launches already active plus the collection.</li>
 *   <li>{@code exitLaunch}: wait-free (one atomic add); the last launch out before a waiting
 *       collection takes a lock briefly to wake it.</li>
 *   <li>{@code enterTask}/{@code exitTask}: wait-free (a thread-local count).</li>
 *   <li>{@code exclusive}: blocking, for the launches active when it starts to wait plus the
 *       launches nested in them; launches that arrive later wait behind it. Phase-fair: before a
 *       collection starts to wait, every launch that waited for the previous collection has
 *       entered, so a stream of collections (one thread calling {@code gc()} in a loop, or
 *       many) cannot starve launches, nor launches a collection. Collections run one at a time
 *       in the order their threads win a lock (not fair among themselves). Use
 *       {@link #tryExclusive(Runnable)} for opportunistic collection (it never waits and never
 *       holds launches back) and {@link #tryExclusive(Runnable, long, TimeUnit)} to bound the
 *       wait (launches held back meanwhile are let in when it gives up).</li>
 * </ul>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * PhaseLock phases = new PhaseLock();
 * // a launch (the struct-for driver):
 * try (PhaseLock.Launch launch = phases.enterLaunch()) {
 *     runKernelInParallelAndJoin();   // each task: phases.enterTask(); try { ... } finally { phases.exitTask(); }
 * }
 * // runtime.gc():
 * phases.exclusive(sparseRuntime::collect);
 * }</pre>
 */
public final class PhaseLock {

    /*
     * Implementation notes.
     *
     * state (one int, volatile): bit 30 COLLECTING, bit 29 PENDING (a collection waits for the
     * active launches to exit), bits 0-28 the number of active launches. Only the thread that
     * holds `collectors` sets PENDING or COLLECTING, so at most one of them is set. COLLECTING
     * is set only by a CAS from 0 or from exactly PENDING (no launch active), so it is never set
     * while a launch is active. A launch enters only by a CAS from a state without COLLECTING
     * and, unless its thread holds the shared phase, without PENDING.
     *
     * Waiting uses one ReentrantLock and three conditions. A collector waiting for launches
     * re-checks state (its CAS from PENDING) with waitLock held; the last launch out decrements
     * first, then signals under waitLock, so the signal cannot fall between the check and the
     * await. Launchers waiting for a collection: a waiter publishes that it waits
     * (launchersWaiting, under waitLock) and then re-reads state; the collector (or a timed
     * collector giving up) writes state first, then reads launchersWaiting and, if set, signals
     * under waitLock (the Dekker pattern over volatiles: either the waiter sees the new state,
     * or the changer sees the waiter). A woken launcher enters (CAS on state) before it stops
     * counting in launchersWaiting, both under waitLock; the next collector, holding
     * `collectors` (so no bit is set and every waiter can enter), waits on waitersEntered until
     * launchersWaiting is 0, then finds them all counted in state.
     *
     * Collections are serialised by their own lock first (collectors), so at most one thread
     * ever waits on launchesDone.
     */

    private static final int COLLECTING = 1 << 30;
    private static final int PENDING = 1 << 29;
    private static final int LAUNCHES = PENDING - 1;
    private static final String COLLECT_IN_LAUNCH = "a collection requested inside a launch (on the thread that "
            + "entered it or on a thread running one of its tasks) would wait for that launch forever; collect after "
            + "the launch exits";
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PhaseLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        // The first execution of each atomic update links its call site, which allocates: done
        // here, so that a launch that a full heap ends (an OutOfMemoryError in a kernel that
        // still holds the heap) can exit without allocating. Linked on that launch's way out,
        // the exit failed before its count went down, and every later collection waited for it.
        new PhaseLock().enterLaunch().close();
    }

    /** COLLECTING | PENDING | launches. Access: volatile reads, compareAndSet, getAndAdd, setVolatile (STATE). */
    @SuppressWarnings("unused")
    private volatile int state;
    private final ReentrantLock collectors = new ReentrantLock();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition launchesDone = waitLock.newCondition();
    private final Condition collectionDone = waitLock.newCondition();
    /** Signalled when the last launch waiting for a collection has entered. */
    private final Condition waitersEntered = waitLock.newCondition();
    /** Launches waiting for a collection to end; written only with waitLock held. */
    private volatile int launchersWaiting;
    /** The thread running an exclusive body, for misuse checks. */
    private volatile Thread collectingThread;
    /** Per thread: [0] launches entered and not exited, [1] tasks entered and not exited. */
    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[2]);

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
     * Enters a launch, waiting while a collection runs or waits, unless this thread already
     * holds the shared phase (a nested launch: it enters at once).
     *
     * @return a token whose {@link Launch#close()} exits the launch
     * @throws IllegalStateException inside an exclusive body on this thread, or with 2^29 - 1 launches active
     */
    public Launch enterLaunch() {
        if (collectingThread == Thread.currentThread()) {
            throw new IllegalStateException("enterLaunch inside an exclusive section on the same thread (a kernel "
                    + "launched from the collector would wait for itself)");
        }
        int[] d = depth.get();
        // A thread that holds the shared phase must not wait for a waiting collection: that
        // collection waits for the launch this thread is part of.
        int blockedBy = d[0] > 0 || d[1] > 0 ? COLLECTING : COLLECTING | PENDING;
        for (;;) {
            int s = state;
            if ((s & blockedBy) != 0) {
                enterAfterCollection(blockedBy);
                break;
            }
            checkRoom(s);
            if (STATE.compareAndSet(this, s, s + 1)) {
                break;
            }
            // Another launch entered or exited, or a collector began to wait, at the same moment: retry.
        }
        d[0]++;
        return new Launch(this);
    }

    private static void checkRoom(int s) {
        if ((s & LAUNCHES) == LAUNCHES) {
            throw new IllegalStateException("launches=" + LAUNCHES + " active: too many");
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
        if (before == (PENDING | 1)) { // the last launch out before a waiting collection
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

    /**
     * Waits while a collection runs or waits, then enters (counts this launch in state) before
     * it stops counting as a waiter, so the next collection, which first lets every waiter in
     * ({@link #admitWaitingLaunches}), finds it counted.
     */
    private void enterAfterCollection(int blockedBy) {
        waitLock.lock();
        try {
            launchersWaiting++;
            try {
                for (;;) {
                    int s = state;
                    if ((s & blockedBy) != 0) {
                        collectionDone.awaitUninterruptibly();
                        continue;
                    }
                    checkRoom(s);
                    if (STATE.compareAndSet(this, s, s + 1)) {
                        return;
                    }
                }
            } finally {
                if (--launchersWaiting == 0) {
                    waitersEntered.signalAll();
                }
            }
        } finally {
            waitLock.unlock();
        }
    }

    // ------------------------------------------------------------------ tasks of a launch

    /**
     * Marks this thread as running a task of an active launch until the matching
     * {@link #exitTask()}: launches it enters meanwhile are nested (they do not wait for a
     * waiting collection) and a collection it requests throws. Marks nest.
     *
     * @throws IllegalStateException if no launch is active
     */
    public void enterTask() {
        if ((state & LAUNCHES) == 0) {
            throw new IllegalStateException("enterTask while no launch is active: a task runs only while the launch "
                    + "that forked it is active");
        }
        depth.get()[1]++;
    }

    /**
     * Ends the mark of {@link #enterTask()} on this thread.
     *
     * @throws IllegalStateException if this thread has no task mark to end
     */
    public void exitTask() {
        int[] d = depth.get();
        if (d[1] == 0) {
            throw new IllegalStateException("exitTask without a matching enterTask on thread "
                    + Thread.currentThread().getName());
        }
        d[1]--;
    }

    // ------------------------------------------------------------------ collection (exclusive)

    /**
     * Runs {@code body} with no launch active and no other exclusive body running: first lets
     * in the launches still waiting for the previous collection (see Progress), then waits for
     * the active launches to exit while launches that arrive meanwhile wait behind it (see
     * Guarantee 3), then keeps new launches waiting until the body returns or throws.
     *
     * @throws IllegalStateException if this thread holds the shared phase or is already inside an exclusive body
     */
    public void exclusive(Runnable body) {
        Objects.requireNonNull(body, "body");
        checkMayCollect();
        collectors.lock();
        try {
            admitWaitingLaunches();
            if (!enterExclusiveAtOnce()) {
                waitLock.lock();
                try {
                    while (!STATE.compareAndSet(this, PENDING, COLLECTING)) {
                        launchesDone.awaitUninterruptibly();
                    }
                } finally {
                    waitLock.unlock();
                }
            }
            runExclusive(body);
        } finally {
            collectors.unlock();
        }
    }

    /**
     * With {@code collectors} held: waits until every launch that waited for the previous
     * collection has entered (phase fairness: a stream of collections cannot starve launches).
     * They do so at once: no collection runs or waits now, so nothing holds them back.
     */
    private void admitWaitingLaunches() {
        if (launchersWaiting == 0) {
            return;
        }
        waitLock.lock();
        try {
            while (launchersWaiting > 0) {
                waitersEntered.awaitUninterruptibly();
            }
        } finally {
            waitLock.unlock();
        }
    }

    /** {@link #admitWaitingLaunches()} that gives up at {@code deadline} ({@link System#nanoTime()}). */
    private boolean admitWaitingLaunches(long deadline) throws InterruptedException {
        if (launchersWaiting == 0) {
            return true;
        }
        waitLock.lockInterruptibly();
        try {
            while (launchersWaiting > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                waitersEntered.awaitNanos(left);
            }
            return true;
        } finally {
            waitLock.unlock();
        }
    }

    /**
     * With {@code collectors} held: sets COLLECTING when no launch is active and returns true;
     * else sets PENDING (new launches wait from now on) and returns false.
     */
    private boolean enterExclusiveAtOnce() {
        for (;;) {
            int s = state;
            if (s == 0) {
                if (STATE.compareAndSet(this, 0, COLLECTING)) {
                    return true;
                }
            } else if ((s & PENDING) != 0 || STATE.compareAndSet(this, s, s | PENDING)) {
                return false;
            }
        }
    }

    /** With {@code collectors} held and PENDING set by this thread: clears it and lets held-back launches in. */
    private void withdraw() {
        for (;;) {
            int s = state;
            if (STATE.compareAndSet(this, s, s & ~PENDING)) {
                break;
            }
        }
        if (launchersWaiting > 0) {
            waitLock.lock();
            try {
                collectionDone.signalAll();
            } finally {
                waitLock.unlock();
            }
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
     * Runs {@code body} exclusively only if that is possible at once: no launch active or
     * waiting to enter, and no other collection running or waiting. Never waits, and never
     * holds launches back.
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
            // Launches still waiting for the previous collection go first.
            if (launchersWaiting > 0 || !STATE.compareAndSet(this, 0, COLLECTING)) {
                return false;
            }
            runExclusive(body);
            return true;
        } finally {
            collectors.unlock();
        }
    }

    /**
     * {@link #exclusive(Runnable)} that gives up after {@code timeout}; launches that arrived
     * while it waited (and waited behind it) enter when it gives up.
     *
     * @return whether the body ran
     * @throws InterruptedException if interrupted while waiting (the body did not run)
     * @throws IllegalStateException if this thread holds the shared phase or is already inside an exclusive body
     */
    public boolean tryExclusive(Runnable body, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(unit, "unit");
        checkMayCollect();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!collectors.tryLock(timeout, unit)) {
            return false;
        }
        try {
            if (!admitWaitingLaunches(deadline)) {
                return false;
            }
            if (!enterExclusiveAtOnce()) {
                boolean entered = false;
                try {
                    waitLock.lockInterruptibly();
                    try {
                        while (!(entered = STATE.compareAndSet(this, PENDING, COLLECTING))) {
                            long left = deadline - System.nanoTime();
                            if (left <= 0) {
                                return false;
                            }
                            launchesDone.awaitNanos(left);
                        }
                    } finally {
                        waitLock.unlock();
                    }
                } finally {
                    if (!entered) {
                        withdraw();
                    }
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
        int[] d = depth.get();
        if (d[0] > 0 || d[1] > 0) {
            throw new IllegalStateException(COLLECT_IN_LAUNCH);
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

    /** Whether a collection waits for the active launches to exit, holding new launches back (a snapshot). */
    public boolean isCollectionWaiting() {
        return (state & PENDING) != 0;
    }

    /** Whether this thread runs an exclusive body now (a collection's, on the thread that called it). */
    public boolean exclusiveOnCurrentThread() {
        return collectingThread == Thread.currentThread();
    }

    /**
     * Whether this thread holds the shared phase: it is inside a launch it entered, or runs a
     * task of one ({@link #enterTask()}).
     */
    public boolean inLaunchOnCurrentThread() {
        int[] d = depth.get();
        return d[0] > 0 || d[1] > 0;
    }

    @Override
    public String toString() {
        int s = state;
        return "PhaseLock[launches=" + (s & LAUNCHES) + ", collecting=" + ((s & COLLECTING) != 0)
                + ", collectionWaiting=" + ((s & PENDING) != 0) + "]";
    }
}
