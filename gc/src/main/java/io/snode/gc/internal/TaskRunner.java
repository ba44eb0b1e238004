package io.snode.gc.internal;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a body over an index range {@code [0, n)}, either on the calling thread or split into
 * disjoint sub-ranges that the calling thread and the threads of a {@link ForkJoinPool} share. Sub-ranges are contiguous, cover the range
 * exactly once, and each has at least {@code grain} indices (except when the range is smaller);
 * there are at most {@link #MAX_TASKS_PER_THREAD} per thread of parallelism, so that uneven work
 * (scattered cells) balances without a task per cell.
 *
 * <p>Memory ordering: everything the caller wrote before {@link #forRange} happens-before every
 * body invocation (task submission), and every body invocation happens-before {@code forRange}
 * returns (a latch counted down after each piece). A body's exception propagates out of
 * {@code forRange} after every piece finished or was skipped; pieces not yet started when one
 * failed are skipped.
 */
public abstract sealed class TaskRunner {

    /**
     * Sub-ranges per thread of parallelism, at most. Pieces are claimed one at a time, so many
     * small pieces cost little, and they bound what a thread that is descheduled in the middle of
     * a piece (an oversubscribed machine) leaves the others waiting for.
     */
    public static final int MAX_TASKS_PER_THREAD = 16;

    /** The part of the work a task does: indices {@code [from, to)}. */
    @FunctionalInterface
    public interface RangeBody {
        void run(long from, long to);
    }

    /** A runner that runs every range on the calling thread, in one piece. */
    public static TaskRunner inline() {
        return Inline.INSTANCE;
    }

    /** A runner that splits ranges over the calling thread and {@code pool}'s threads (parallelism: the pool's plus one). */
    public static TaskRunner forkJoin(ForkJoinPool pool) {
        return new ForkJoin(pool);
    }

    /** Threads that may work on one range at a time. */
    public abstract int parallelism();

    /**
     * Runs {@code body} over {@code [0, n)}.
     *
     * @param grain the fewest indices worth a task of their own, positive
     */
    public abstract void forRange(long n, long grain, RangeBody body);

    /** How many sub-ranges {@code [0, n)} is split into. */
    public final long pieces(long n, long grain) {
        if (grain <= 0) {
            throw new IllegalArgumentException("grain=" + grain + " (must be positive)");
        }
        if (n <= 0) {
            return 0;
        }
        long byGrain = (n + grain - 1) / grain;
        return Math.max(1, Math.min(byGrain, (long) MAX_TASKS_PER_THREAD * parallelism()));
    }

    private static final class Inline extends TaskRunner {
        static final Inline INSTANCE = new Inline();

        @Override
        public int parallelism() {
            return 1;
        }

        @Override
        public void forRange(long n, long grain, RangeBody body) {
            if (pieces(n, grain) > 0) {
                body.run(0, n);
            }
        }

        @Override
        public String toString() {
            return "TaskRunner[inline]";
        }
    }

    /**
     * The calling thread works too: pieces are claimed from a shared counter by the caller and by
     * up to {@code pool.getParallelism()} helper tasks. The caller returns as soon as every piece
     * is done, without waiting for helpers that started too late to claim one (they find none and
     * end), so a short job never pays for waking a thread it did not need.
     */
    private static final class ForkJoin extends TaskRunner {
        private final ForkJoinPool pool;

        ForkJoin(ForkJoinPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
        }

        @Override
        public int parallelism() {
            return pool.getParallelism() + 1;
        }

        @Override
        public void forRange(long n, long grain, RangeBody body) {
            long pieces = pieces(n, grain);
            if (pieces == 0) {
                return;
            }
            if (pieces == 1) {
                body.run(0, n);
                return;
            }
            Job job = new Job(body, n, pieces);
            long helpers = Math.min(pool.getParallelism(), pieces - 1);
            for (long h = 0; h < helpers; h++) {
                try {
                    pool.execute(job::work);
                } catch (RejectedExecutionException e) {
                    break; // the pool is shut down: the caller does the rest on its own
                }
            }
            job.work();
            job.awaitAndRethrow();
        }

        @Override
        public String toString() {
            return "TaskRunner[forkJoin, parallelism=" + parallelism() + "]";
        }
    }

    /** One {@link #forRange} call: pieces to claim, pieces done, the first failure. */
    private static final class Job {
        private final RangeBody body;
        private final long n;
        private final long pieces;
        private final AtomicLong next = new AtomicLong();
        /** Counted down once per piece, run or skipped: await gives happens-before from every piece. */
        private final CountDownLatch done;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Job(RangeBody body, long n, long pieces) {
            this.body = body;
            this.n = n;
            this.pieces = pieces;
            this.done = new CountDownLatch(Math.toIntExact(pieces));
        }

        void work() {
            for (;;) {
                long p = next.getAndIncrement();
                if (p >= pieces) {
                    return;
                }
                try {
                    if (failure.get() == null) {
                        // n * p cannot overflow: n < 2^40 (list limit) and pieces < 2^20.
                        body.run(n * p / pieces, n * (p + 1) / pieces);
                    }
                } catch (Throwable t) {
                    if (!failure.compareAndSet(null, t)) {
                        failure.get().addSuppressed(t);
                    }
                } finally {
                    done.countDown();
                }
            }
        }

        void awaitAndRethrow() {
            boolean interrupted = false;
            for (;;) {
                try {
                    done.await();
                    break;
                } catch (InterruptedException e) {
                    // Pieces write memory the caller owns: never return before they are done.
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            Throwable t = failure.get();
            if (t instanceof RuntimeException re) {
                throw re;
            } else if (t instanceof Error e) {
                throw e;
            } else if (t != null) {
                throw new IllegalStateException("a parallel task failed", t);
            }
        }
    }
}
