package io.snode.codegen.internal.structfor;

import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.NodeTree;
import io.snode.gc.internal.TaskRunner;
import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * How every launch over a snapshot is cut into ranges of blocks and run: the blocks are split in
 * halves (by active cells, {@link ActiveBlocks#weightPrefix()}) until a range holds about
 * {@link #GRAIN_CELLS} active cells (more in launches of over {@link #MAX_RANGES} times that) or
 * one block, so tiny and huge active sets both balance. The calling thread runs the ranges, one
 * after another in block order when the parallelism is 1; above that, up to parallelism - 1
 * helpers on a fork/join pool of as many threads claim pieces of consecutive ranges beside it
 * (the collector's {@link TaskRunner}, at most 16 pieces per thread, which the split walk uses
 * too), so work starts at once on the calling thread and a helper that wakes late only takes
 * what is left (the whole launch is never handed to the pool while the caller sleeps until a
 * worker wakes). The split depends only on the snapshot, never on the parallelism, and the
 * calling thread combines the ranges' partial results in the tree of the split in every mode,
 * so a reduction (a block reducer's or {@link Reductions}') adds the same numbers in the same
 * order whatever the parallelism and whichever thread ran which range. The first exception stops
 * the launch: ranges not claimed yet are skipped, the caller waits for the ranges running and
 * gets it. After {@link #beginClose()} ranges not claimed yet are skipped too.
 *
 * <p>Every thread marks the work it does for a launch, for as long as it does it: as working for
 * an active launch in the phase lock ({@link PhaseLock#enterTask()}: a collection requested
 * there throws, a nested launch enters at once), and with the deactivation counter of the thread
 * that started the launch ({@link NodeTree#swapDeactivationCounter}), so that the launch counts
 * the deactivations of its own kernels on whichever thread they run, and no other thread's. The
 * calling thread is marked from its first range to the end of the combination; a helper around
 * each range it claimed, and never before a claim: a helper that starts after the last range was
 * claimed (its launch may be over) touches nothing and leaves.
 *
 * <p><b>Shared state and failure.</b> A range's accumulator is written by the one thread that
 * claimed the range and read by the calling thread after the runner's latch counted the range's
 * piece down, whose await orders it before the combination. A kernel, identity or combiner that
 * throws, or a mark the phase lock refuses, fails the launch as above; nothing of the launch is
 * published besides what its kernels wrote themselves.
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

    /** The most threads a launch may use: a fork/join pool holds at most 32,767, and the launching thread is one more. */
    public static final int MAX_PARALLELISM = 32_768;

    private final NodeTree structure;
    /** The runtime's phase lock, whose task marks the tasks set; null for a launcher used alone (tests). */
    private final PhaseLock phases;
    private final int parallelism;
    private final ForkJoinPool pool;
    /** Runs a launch's ranges: on the calling thread alone, or with the pool's threads claiming pieces beside it. */
    private final TaskRunner runner;
    /** Set by {@link #beginClose()}: ranges that have not started are skipped. */
    private volatile boolean closing;

    public LaunchSplit(NodeTree structure, PhaseLock phases, int parallelism) {
        if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be between 1 and " + MAX_PARALLELISM);
        }
        this.structure = structure;
        this.phases = phases;
        this.parallelism = parallelism;
        this.pool = parallelism == 1 ? null : new ForkJoinPool(parallelism - 1);
        this.runner = pool == null ? TaskRunner.inline() : TaskRunner.forkJoin(pool);
    }

    public int parallelism() {
        return parallelism;
    }

    /**
     * The fork/join pool of parallel launches (parallelism - 1 threads: the calling thread is the
     * last), or null when the parallelism is 1.
     */
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
        long grain = Math.max(GRAIN_CELLS, prefix[blocks.size()] / MAX_RANGES);
        // The launching thread's counter: the tasks count their kernels' deactivations there.
        LongAdder deactivations = structure.deactivationCounter();
        Launch<A> launch = new Launch<>(prefix, grain, blocks.size(), identity, range, combiner, deactivations);
        A result = launch.runAndCombine();
        rethrow(launch.failure.get());
        return result;
    }

    /**
     * Throws {@code thrown} as it is, a checked exception too (only user code, a reduction's
     * {@code identity} or {@code combiner} throwing one sneakily, raises one here: kernels' are
     * wrapped in a {@code KernelException} first); nothing when it is null. The first failure of
     * a launch's (or a split walk's) tasks reaches the caller so.
     */
    static void rethrow(Throwable thrown) {
        if (thrown != null) {
            throw LaunchSplit.<RuntimeException>sneaky(thrown);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(Throwable thrown) throws T {
        throw (T) thrown;
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
     * One launch's ranges: blocks split at the middle of their active cells until a range is
     * small enough ({@link #bounds}), the ranges run through {@link #runner} (the calling thread,
     * and above parallelism 1 up to parallelism - 1 helpers claiming pieces of ranges beside it),
     * then their accumulators combined on the calling thread in the tree of the split
     * ({@link #combine}): the same ranges, and the same combinations in the same order, at every
     * parallelism.
     */
    private final class Launch<A> {
        private final long[] prefix;
        private final long grain;
        private final Supplier<A> identity;
        private final Range<A> range;
        private final BinaryOperator<A> combiner;
        private final LongAdder deactivations;
        /** Range {@code r} is blocks {@code [bounds[r], bounds[r + 1])}, for r below {@code ranges}. */
        private int[] bounds = new int[64];
        private int ranges;
        /** Range {@code r}'s accumulator once it ran; null where it was skipped. */
        private final Object[] accumulators;
        /** The launch's first failure; ranges not started after it are skipped. */
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        /**
         * Whether a range was skipped because the runtime closes: its accumulator is missing, so
         * nothing is combined (the launch throws that the runtime was closed).
         */
        private volatile boolean skipped;
        /** The next range {@link #combine} takes, in block order. */
        private int combined;
        /** The thread that started the launch, marked from its first range to the combination's end. */
        private final Thread caller = Thread.currentThread();

        Launch(long[] prefix, long grain, int blocks, Supplier<A> identity, Range<A> range, BinaryOperator<A> combiner,
               LongAdder deactivations) {
            this.prefix = prefix;
            this.grain = grain;
            this.identity = identity;
            this.range = range;
            this.combiner = combiner;
            this.deactivations = deactivations;
            collect(0, blocks);
            this.accumulators = new Object[ranges];
        }

        /** Adds the ranges of blocks [from, to) to {@link #bounds}, in order, as the split cuts them. */
        private void collect(int from, int to) {
            int split = splitPoint(from, to);
            if (split >= 0) {
                collect(from, split);
                collect(split, to);
                return;
            }
            if (ranges + 2 > bounds.length) {
                bounds = Arrays.copyOf(bounds, bounds.length * 2);
            }
            bounds[ranges] = from;
            bounds[++ranges] = to;
        }

        /**
         * Where blocks [from, to) split: the first block boundary at or after the middle of
         * their active cells, in (from, to); -1 when they are one range.
         */
        private int splitPoint(int from, int to) {
            if (to - from <= 1 || prefix[to] - prefix[from] <= grain) {
                return -1;
            }
            long middle = (prefix[from] + prefix[to]) / 2;
            int split = Arrays.binarySearch(prefix, from + 1, to, middle);
            return Math.min(to - 1, Math.max(from + 1, split >= 0 ? split : -split - 1));
        }

        /**
         * The calling thread's part, marked as a task of the launch throughout: the ranges
         * through {@link #runner}, which returns once every range has ended (it waits for ranges
         * that helpers run, never for a helper that has not started), then their combination (a
         * combiner may call what a kernel may).
         */
        A runAndCombine() {
            if (phases != null) {
                phases.enterTask();
            }
            LongAdder outer = structure.swapDeactivationCounter(deactivations);
            try {
                runner.forRange(accumulators.length, 1, (from, to) -> {
                    for (int r = (int) from; r < to; r++) {
                        runRange(r);
                    }
                });
                combined = 0;
                return combine(0, bounds[ranges]);
            } finally {
                structure.swapDeactivationCounter(outer);
                if (phases != null) {
                    phases.exitTask();
                }
            }
        }

        /**
         * Range {@code r} with an accumulator of its own, on whichever thread claimed it. A helper
         * marks itself as working for the launch (see the class comment) around the range only:
         * it is never marked before its claim, since the launch is active until every claimed
         * range has ended while a helper that starts after the last claim may find it over. The
         * calling thread is marked already ({@link #runAndCombine}). Skipped once the launch
         * failed or the runtime closes; whatever it throws, the marks refused included, fails the
         * launch.
         */
        private void runRange(int r) {
            if (failure.get() != null) {
                return;
            }
            if (closing) {
                skipped = true;
                return;
            }
            try {
                if (Thread.currentThread() == caller) {
                    runUnmarked(r);
                    return;
                }
                if (phases != null) {
                    phases.enterTask();
                }
                LongAdder outer = structure.swapDeactivationCounter(deactivations);
                try {
                    runUnmarked(r);
                } finally {
                    structure.swapDeactivationCounter(outer);
                    if (phases != null) {
                        phases.exitTask();
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }

        private void runUnmarked(int r) throws Throwable {
            A accumulator = identity.get();
            accumulators[r] = accumulator;
            range.run(bounds[r], bounds[r + 1], accumulator);
        }

        /** The accumulators of blocks [from, to) combined as the split cut them: left part first. */
        @SuppressWarnings("unchecked")
        private A combine(int from, int to) {
            int split = splitPoint(from, to);
            if (split < 0) {
                return (A) accumulators[combined++];
            }
            A first = combine(from, split);
            A second = combine(split, to);
            if (failure.get() != null || skipped) {
                return first;
            }
            try {
                return combiner.apply(first, second);
            } catch (Throwable e) {
                // A throwing combiner stops the launch as a throwing kernel does.
                failure.compareAndSet(null, e);
                return first;
            }
        }
    }
}
