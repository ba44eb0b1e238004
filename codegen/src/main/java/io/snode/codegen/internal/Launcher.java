package io.snode.codegen.internal;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.emit.HiddenClasses;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.Kernel;
import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.Structure;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs struct-for launches: takes the snapshot of active blocks ({@link ActiveBlocks}, in memory
 * order), then calls the kernel's generated driver on ranges of blocks. The blocks are split in
 * halves (by active cells) until a range holds about {@link #GRAIN_CELLS} active cells (more in
 * launches of over {@link #MAX_RANGES} times that) or one
 * block, so tiny and huge active sets both balance; the ranges run on a fork/join pool, or on the
 * calling thread when the parallelism is 1. The split depends only on the snapshot, so a
 * reduction combines the same partial results in the same order whatever the parallelism. The
 * first exception stops the launch: ranges that have not started are skipped, and the caller
 * gets it. After {@link #beginClose()} ranges that have not started are skipped too.
 *
 * <p>Every task marks the thread that runs it, for as long as it runs: as working for an active
 * launch in the phase lock ({@link PhaseLock#enterTask()}: a collection requested there throws,
 * a nested launch enters at once), and with the deactivation counter of the thread that started
 * the launch ({@link Structure#swapDeactivationCounter}), so that the launch counts the
 * deactivations of its own kernels on whichever worker they run, and no other thread's.
 */
public final class Launcher implements AutoCloseable {
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
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final MethodType CELL_DRIVER = MethodType.methodType(void.class, Kernel.class, ActiveBlocks.class,
            int.class, int.class);
    private static final MethodType BLOCK_DRIVER = MethodType.methodType(void.class, BlockKernel.class,
            ActiveBlocks.class, int.class, int.class);
    private static final MethodType REDUCER_DRIVER = MethodType.methodType(void.class, BlockReducer.class,
            Object.class, ActiveBlocks.class, int.class, int.class);

    private final Structure structure;
    /** The runtime's phase lock, whose task marks the tasks set; null for a launcher used alone (tests). */
    private final PhaseLock phases;
    private final ForkJoinPool pool;
    /** Set by {@link #beginClose()}: ranges that have not started are skipped. */
    private volatile boolean closing;
    private final int parallelism;
    private final Map<List<Object>, MethodHandle> drivers = new ConcurrentHashMap<>();
    private final Consumer<GeneratedClass> listing;
    /** Generated first phases of snapshots, per target under a pointer parent. */
    private final Map<SNode, MethodHandle> walkers = new ConcurrentHashMap<>();
    /** Blocks in the latest snapshot per target: sizes the next one's arrays. */
    private final Map<SNode, Integer> lastSizes = new ConcurrentHashMap<>();
    /**
     * Per target, the snapshot of the latest launch that ended normally: the next launch uses it
     * as it is when the structure has not changed since, else refills its arrays instead of
     * allocating them (several megabytes for 56,628 blocks). Taken with
     * {@code remove}, so two launches never share one; kept sets ({@link #snapshot}) never go here.
     */
    private final Map<SNode, ActiveBlocks> spares = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.LongAdder walks = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param listing receives every driver class before it is defined: the runtime verifies and
     *                dumps it when its switches say so, and lists it
     */
    public Launcher(Structure structure, int parallelism, Consumer<GeneratedClass> listing) {
        this(structure, null, parallelism, listing);
    }

    /**
     * @param phases the lock the launches run in: every task marks its thread with
     *               {@link PhaseLock#enterTask()} while it runs (null: no marks)
     */
    public Launcher(Structure structure, PhaseLock phases, int parallelism, Consumer<GeneratedClass> listing) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be at least 1");
        }
        this.structure = structure;
        this.phases = phases;
        this.parallelism = parallelism;
        this.listing = listing;
        this.pool = parallelism == 1 ? null : new ForkJoinPool(parallelism);
    }

    public int parallelism() {
        return parallelism;
    }

    /**
     * Calls {@code kernel} (a Kernel1..Kernel8 of {@code arity}) on every active cell of the
     * snapshot's target.
     */
    public void forEach(ActiveBlocks blocks, Kernel kernel, int arity) {
        MethodHandle driver = cellDriver(blocks.target(), kernel.getClass(), arity);
        run(blocks, () -> null, (from, to, ignored) -> {
            driver.invokeExact(kernel, blocks, from, to);
        }, (a, b) -> a);
    }

    /**
     * Calls a kernel made per range of blocks on every active cell of the snapshot's target: the
     * first range gets {@code first}, every other range a new one from {@code kernels} (of the
     * same class, else IllegalArgumentException). Returns the kernels in block order.
     */
    public <K extends Kernel> List<K> forEachPerTask(ActiveBlocks blocks, K first, Supplier<K> kernels, int arity) {
        Class<?> kernelClass = first.getClass();
        MethodHandle driver = cellDriver(blocks.target(), kernelClass, arity);
        java.util.concurrent.atomic.AtomicBoolean firstTaken = new java.util.concurrent.atomic.AtomicBoolean();
        Supplier<List<K>> perRange = () -> {
            K kernel = firstTaken.compareAndSet(false, true) ? first
                    : Objects.requireNonNull(kernels.get(), "the kernel supplier returned null");
            if (kernel.getClass() != kernelClass) {
                throw new IllegalArgumentException("the kernel supplier made a " + kernel.getClass().getName()
                        + " after a " + kernelClass.getName() + "; it must make one class");
            }
            List<K> list = new java.util.ArrayList<>(1);
            list.add(kernel);
            return list;
        };
        return run(blocks, perRange, (from, to, list) -> {
            driver.invokeExact((Kernel) list.getFirst(), blocks, from, to);
        }, (left, right) -> {
            left.addAll(right);
            return left;
        });
    }

    private MethodHandle cellDriver(SNode target, Class<?> kernelClass, int arity) {
        if (arity != target.indexAxes().size()) {
            throw new IllegalArgumentException("snode=" + target.path() + " has " + target.indexAxes().size()
                    + " coordinates " + target.indexAxes() + "; the kernel takes " + arity);
        }
        return drivers.computeIfAbsent(List.of("cell", kernelClass, target),
                key -> define(target, "Driver", DriverEmitter.emit(driverName("Driver"), structure.plan().node(target),
                        arity), MethodType.methodType(void.class, kernelType(arity), ActiveBlocks.class, int.class,
                        int.class), CELL_DRIVER));
    }

    /** Calls {@code kernel} once per block of the snapshot (of a dense or bitmasked target). */
    public void forEachBlock(ActiveBlocks blocks, BlockKernel kernel) {
        SNode target = blocks.target();
        checkBlockTarget(target);
        MethodHandle driver = drivers.computeIfAbsent(List.of("block", kernel.getClass(), target),
                key -> define(target, "BlockDriver", DriverEmitter.emitBlock(driverName("BlockDriver"),
                        structure.plan().node(target), false), BLOCK_DRIVER, BLOCK_DRIVER));
        run(blocks, () -> null, (from, to, ignored) -> {
            driver.invokeExact(kernel, blocks, from, to);
        }, (a, b) -> a);
    }

    /**
     * Folds every block of the snapshot (of a dense or bitmasked target) into accumulators (one
     * per range of blocks, from {@code identity}) and combines them in block order.
     */
    public <A> A reduceBlocks(ActiveBlocks blocks, Supplier<A> identity, BlockReducer<A> reducer,
                              BinaryOperator<A> combiner) {
        SNode target = blocks.target();
        checkBlockTarget(target);
        MethodHandle driver = drivers.computeIfAbsent(List.of("reduce", reducer.getClass(), target),
                key -> define(target, "ReduceDriver", DriverEmitter.emitBlock(driverName("ReduceDriver"),
                        structure.plan().node(target), true), REDUCER_DRIVER, REDUCER_DRIVER));
        Supplier<A> checked = () -> Objects.requireNonNull(identity.get(), "the identity supplier returned null");
        return run(blocks, checked, (from, to, accumulator) -> {
            driver.invokeExact(reducer, (Object) accumulator, blocks, from, to);
        }, combiner);
    }

    /**
     * The active blocks of {@code target} now, in memory order, in arrays of its own (call
     * inside the phase lock): for a snapshot the caller keeps.
     */
    public ActiveBlocks snapshot(SNode target) {
        return snapshot(target, null);
    }

    /**
     * Runs {@code launch} over the active blocks of {@code target} now (call inside the phase
     * lock). The snapshot is kept for the next launch of the same target once this one has
     * returned normally, every task of it ended ({@code launch} must not keep it): when no
     * activation, deactivation or collection completed in between, that launch uses it as it is,
     * without a walk; else it walks again into the same arrays.
     */
    public <R> R withSnapshot(SNode target, java.util.function.Function<ActiveBlocks, R> launch) {
        // Both read before the walk: an activation or deactivation that completes later changes
        // one of them, and the next launch walks again.
        long activations = structure.activations();
        long epoch = structure.epoch();
        ActiveBlocks blocks = spares.remove(target);
        if (blocks == null || !blocks.describes(epoch, activations)) {
            blocks = snapshot(target, blocks);
            blocks.stamp(epoch, activations);
            walks.increment();
        }
        R result = launch.apply(blocks);
        spares.put(target, blocks);
        return result;
    }

    /** Walks for the active blocks that launches made so far (a launch over an unchanged structure makes none). */
    public long walks() {
        return walks.sum();
    }

    private ActiveBlocks snapshot(SNode target, ActiveBlocks spare) {
        MethodHandle walker = WalkerEmitter.applies(target) ? walkers.computeIfAbsent(target, this::defineWalker) : null;
        ActiveBlocks blocks = ActiveBlocks.of(structure, target, lastSizes.getOrDefault(target, 0), walker, spare);
        lastSizes.put(target, blocks.size());
        return blocks;
    }

    public static void checkBlockTarget(SNode target) {
        if (target.kind() != NodeKind.DENSE && target.kind() != NodeKind.BITMASKED) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + "; the block form needs a dense or bitmasked node (its cells are one block of memory)");
        }
    }

    /** Calls a driver on blocks {@code [from, to)} with the range's accumulator. */
    @FunctionalInterface
    private interface Range<A> {
        void run(int from, int to, A accumulator) throws Throwable;
    }

    private <A> A run(ActiveBlocks blocks, Supplier<A> identity, Range<A> range, BinaryOperator<A> combiner) {
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
        Throwable thrown = failure.get();
        if (thrown instanceof RuntimeException e) {
            throw e;
        }
        if (thrown instanceof Error e) {
            throw e;
        }
        if (thrown != null) {
            throw new IllegalStateException("a struct-for driver threw a checked exception", thrown);
        }
        return result;
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
                int split = java.util.Arrays.binarySearch(prefix, from + 1, to, middle);
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

    private static String driverName(String kind) {
        return "io/snode/codegen/generated/" + kind + SEQUENCE.incrementAndGet();
    }

    private static Class<?> kernelType(int arity) {
        try {
            return Class.forName("io.snode.codegen.kernel.Kernel" + arity);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("Kernel1..Kernel8 exist", e);
        }
    }

    private MethodHandle define(SNode target, String kind, byte[] bytes, MethodType declared, MethodType erased) {
        String name = new org.objectweb.asm.ClassReader(bytes).getClassName();
        GeneratedClass code = new GeneratedClass(name, bytes, structure.plan().node(target).toString());
        listing.accept(code);
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(Anchor.lookup(), code, null);
            return hidden.findStatic(hidden.lookupClass(), "run", declared).asType(erased);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define the struct-for " + kind + " of " + target.path(), e);
        }
    }

    private MethodHandle defineWalker(SNode target) {
        WalkerEmitter emitter = new WalkerEmitter(structure.plan(), driverName("Walk"), target);
        List<SNode> chain = target.ancestry();
        Object[] cells = new Object[chain.size()];
        for (int level = 1; level < chain.size() - 1; level++) {
            if (chain.get(level).kind() == NodeKind.POINTER) {
                cells[level] = structure.cells(chain.get(level));
            }
        }
        byte[] bytes = emitter.emit(structure.root(), cells);
        String name = new org.objectweb.asm.ClassReader(bytes).getClassName();
        GeneratedClass code = new GeneratedClass(name, bytes, structure.plan().node(target).toString());
        listing.accept(code);
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(Anchor.lookup(), code, emitter.classData());
            return hidden.findStatic(hidden.lookupClass(), "walk",
                    MethodType.methodType(int.class, int[].class, long[].class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define the active-block walk of " + target.path(), e);
        }
    }

    /** The fork/join pool of parallel launches, or null when the parallelism is 1. */
    public ForkJoinPool pool() {
        return pool;
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
        spares.clear();
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
