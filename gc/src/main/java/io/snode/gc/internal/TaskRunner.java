package io.snode.gc.internal;

import java.util.Objects;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;

/**
 * Runs a body over an index range {@code [0, n)}, either on the calling thread or split into
 * disjoint sub-ranges on a {@link ForkJoinPool}. Sub-ranges are contiguous, cover the range
 * exactly once, and each has at least {@code grain} indices (except when the range is smaller);
 * there are at most {@link #MAX_TASKS_PER_THREAD} per thread of parallelism, so that uneven work
 * (scattered cells) balances without a task per cell.
 *
 * <p>Memory ordering: everything the caller wrote before {@link #forRange} happens-before every
 * body invocation, and every body invocation happens-before {@code forRange} returns (fork/join
 * gives both edges). A body's exception propagates out of {@code forRange} after the other
 * sub-ranges finished or were cancelled.
 */
public abstract sealed class TaskRunner {

    /** Sub-ranges per thread of parallelism, at most. */
    public static final int MAX_TASKS_PER_THREAD = 4;

    /** The part of the work a task does: indices {@code [from, to)}. */
    @FunctionalInterface
    public interface RangeBody {
        void run(long from, long to);
    }

    /** A runner that runs every range on the calling thread, in one piece. */
    public static TaskRunner inline() {
        return Inline.INSTANCE;
    }

    /** A runner that splits ranges over {@code pool}'s threads. */
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

    private static final class ForkJoin extends TaskRunner {
        private final ForkJoinPool pool;

        ForkJoin(ForkJoinPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
        }

        @Override
        public int parallelism() {
            return pool.getParallelism();
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
            Split task = new Split(body, n, pieces, 0, pieces);
            if (ForkJoinTask.getPool() == pool) {
                task.invoke();
            } else {
                pool.invoke(task);
            }
        }

        @Override
        public String toString() {
            return "TaskRunner[forkJoin, parallelism=" + parallelism() + "]";
        }
    }

    /** Pieces {@code [lo, hi)} of {@code n} indices cut into {@code pieces} near-equal parts. */
    private static final class Split extends RecursiveAction {
        private final RangeBody body;
        private final long n;
        private final long pieces;
        private final long lo;
        private final long hi;

        Split(RangeBody body, long n, long pieces, long lo, long hi) {
            this.body = body;
            this.n = n;
            this.pieces = pieces;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected void compute() {
            if (hi - lo == 1) {
                // n * piece cannot overflow: n < 2^40 (list limit) and pieces < 2^20.
                body.run(n * lo / pieces, n * hi / pieces);
                return;
            }
            long mid = (lo + hi) >>> 1;
            invokeAll(new Split(body, n, pieces, lo, mid), new Split(body, n, pieces, mid, hi));
        }
    }
}
