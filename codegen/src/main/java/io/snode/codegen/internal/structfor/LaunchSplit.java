package io.snode.codegen.internal.structfor;

import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.NodeTree;
import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * How every launch over a snapshot is cut into ranges of blocks and run: the blocks are split in
 * halves (by active cells, {@link ActiveBlocks#weightPrefix()}) until a range holds about
 * {@link #GRAIN_CELLS} active cells (more in launches of over {@link #MAX_RANGES} times that) or
 * one block, so tiny and huge active sets both balance; the ranges run on a fork/join pool, or
 * on the calling thread when the parallelism is 1. The split depends only on the snapshot, never
 * on the parallelism, and partial results are combined in the same tree in both modes, so a
 * reduction (a block reducer's or {@link Reductions}') adds the same numbers in the same order
 * whatever the parallelism. The first exception stops the launch: ranges that have not started
 * are skipped, and the caller gets it. After {@link #beginClose()} ranges that have not started
 * are skipped too.
 *
 * <p>Every task marks the thread that runs it, for as long as it runs: as working for an active
 * launch in the phase lock ({@link PhaseLock#enterTask()}: a collection requested there throws,
 * a nested launch enters at once), and with the deactivation counter of the thread that started
 * the launch ({@link NodeTree#swapDeactivationCounter}), so that the launch counts the
 * deactivations of its own kernels on whichever worker they run, and no other thread's.
 */
public final class LaunchSplit implements AutoCloseable {
    /**
     * Active cells per range, at least: 64 blocks of 8^3. Each range costs a task, an
     * accumulator and a driver call.
     */
    static final long GRAIN_CELLS = 32768;
    /**
     * Ranges per launch, at most about: larger launches get larger ranges (W3's 56,628 dense
     * blocks make 256 ranges of 221 blocks, not 885 of 64), which still leaves 4 per thread on
     * 64 cores to balance. Fewer, longer driver calls measured faster on W3 single-threaded.
     */
    static final long MAX_RANGES = 256;

    /** Calls a driver on blocks {@code [from, to)} with the range's accumulator. */
    @FunctionalInterface
    public interface Range<A> {
        void run(int from, int to, A accumulator) throws Throwable;
    }

    private final NodeTree structure;
    /** The runtime's phase lock, whose task marks the tasks set; null for a launcher used alone (tests). */
    private final PhaseLock phases;
    private final int parallelism;
    private final ForkJoinPool pool;
    /** Set by {@link #beginClose()}: ranges that have not started are skipped. */
    private volatile boolean closing;

    public LaunchSplit(NodeTree structure, PhaseLock phases, int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be at least 1");
        }
        this.structure = structure;
        this.phases = phases;
        this.parallelism = parallelism;
        this.pool = parallelism == 1 ? null : new ForkJoinPool(parallelism);
    }

    public int parallelism() {
        return parallelism;
    }

    /** The fork/join pool of parallel launches, or null when the parallelism is 1. */
    public ForkJoinPool pool() {
        return pool;
    }

    /**
     * Runs {@code range} on every range of the snapshot's blocks, each with an accumulator of
     * its own from {@code identity}, and combines the accumulators with {@code combiner} in
     * block order (the identity's when there are no blocks).
     */
    public <A> A run(ActiveBlocks blocks, Supplier<A> identity, Range<A> range, BinaryOperator<A> combiner) {
        if (blocks.size() == 0) {
            return identity.get();
        }
        long[] prefix = blocks.weightPrefix();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long grain = Math.max(GRAIN_CELLS, prefix[blocks.size()] / MAX_RANGES);
        // The launching thread's counter: the tasks count their kernels' deactivations there.
        LongAdder deactivations = structure.deactivationCounter();
        Split<A> all = new Split<>(prefix, grain, 0, blocks.size(), identity, range, combiner, failure, deactivations);
        A result = pool == null ? all.compute() : pool.invoke(all);
        rethrow(failure.get(), "a struct-for driver threw a checked exception");
        return result;
    }

    /**
     * Throws {@code thrown} as it is when it is unchecked, else wrapped with {@code checked} as
     * the message; nothing when it is null. The first failure of a launch's (or a split walk's)
     * tasks reaches the caller so.
     */
    static void rethrow(Throwable thrown, String checked) {
        if (thrown instanceof RuntimeException e) {
            throw e;
        }
        if (thrown instanceof Error e) {
            throw e;
        }
        if (thrown != null) {
            throw new IllegalStateException(checked, thrown);
        }
    }

    /**
     * From now on, ranges of running launches that have not started are skipped (the ranges
     * running finish); the runtime's {@code close()} calls it before it waits for the launches.
     */
    public void beginClose() {
        closing = true;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    /**
     * Blocks [from, to), split at the middle of their active cells until small enough; the same
     * split runs on the pool (forked) and on the calling thread (in order).
     */
    private final class Split<A> extends RecursiveTask<A> {
        private final long[] prefix;
        private final long grain;
        private final int from;
        private final int to;
        private final Supplier<A> identity;
        private final Range<A> range;
        private final BinaryOperator<A> combiner;
        private final AtomicReference<Throwable> failure;
        private final LongAdder deactivations;

        Split(long[] prefix, long grain, int from, int to, Supplier<A> identity, Range<A> range, BinaryOperator<A> combiner,
              AtomicReference<Throwable> failure, LongAdder deactivations) {
            this.prefix = prefix;
            this.grain = grain;
            this.from = from;
            this.to = to;
            this.identity = identity;
            this.range = range;
            this.combiner = combiner;
            this.failure = failure;
            this.deactivations = deactivations;
        }

        /**
         * Marks this thread as running a task of the launch (see the class comment), also while
         * it helps other tasks in a join (they mark it again and restore the marks after).
         */
        @Override
        protected A compute() {
            if (phases != null) {
                phases.enterTask();
            }
            LongAdder outer = structure.swapDeactivationCounter(deactivations);
            try {
                return split();
            } finally {
                structure.swapDeactivationCounter(outer);
                if (phases != null) {
                    phases.exitTask();
                }
            }
        }

        private A split() {
            if (to - from > 1 && prefix[to] - prefix[from] > grain) {
                // The first block boundary at or after the middle of the active cells, in (from, to).
                long middle = (prefix[from] + prefix[to]) / 2;
                int split = Arrays.binarySearch(prefix, from + 1, to, middle);
                split = Math.min(to - 1, Math.max(from + 1, split >= 0 ? split : -split - 1));
                Split<A> left = new Split<>(prefix, grain, from, split, identity, range, combiner, failure,
                        deactivations);
                Split<A> right = new Split<>(prefix, grain, split, to, identity, range, combiner, failure,
                        deactivations);
                if (pool == null) {
                    A first = left.compute();
                    return combine(first, right.compute());
                }
                right.fork();
                A first = left.compute();
                return combine(first, right.join());
            }
            A accumulator = null;
            if (failure.get() == null && !closing) {
                try {
                    accumulator = identity.get();
                    range.run(from, to, accumulator);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }
            return accumulator;
        }

        /**
         * A throwing combiner stops the launch as a throwing kernel does; nothing escapes
         * {@link #compute}, so every forked task has ended when the launch returns.
         */
        private A combine(A first, A second) {
            if (failure.get() != null) {
                return first;
            }
            try {
                return combiner.apply(first, second);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                return first;
            }
        }
    }
}
