package io.snode.codegen.internal.structfor;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.DriverEmitter;
import io.snode.codegen.internal.WalkerEmitter;
import io.snode.codegen.internal.emit.HiddenClasses;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.Kernel;
import io.snode.codegen.kernel.ViewKernel;
import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs struct-for launches: takes the snapshot of active blocks ({@link ActiveBlocks}, in memory
 * order, through its {@link SnapshotCache}), then calls the kernel's generated driver on the
 * ranges of blocks that {@link LaunchSplit} cuts. It defines the drivers (one hidden class per
 * kernel class and target) and the generated walks of the snapshots, and lists each class it
 * defines. How the ranges are cut, run and stopped, and how a task marks its thread: see
 * {@link LaunchSplit}.
 */
public final class Launcher implements AutoCloseable {
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final MethodType CELL_DRIVER = MethodType.methodType(void.class, Kernel.class, ActiveBlocks.class,
            int.class, int.class);
    private static final MethodType BLOCK_DRIVER = MethodType.methodType(void.class, BlockKernel.class,
            ActiveBlocks.class, int.class, int.class);
    private static final MethodType REDUCER_DRIVER = MethodType.methodType(void.class, BlockReducer.class,
            Object.class, ActiveBlocks.class, int.class, int.class);

    private final NodeTree structure;
    private final LaunchSplit ranges;
    /**
     * The drivers, per kernel class: that class's value maps kind and target to its driver. A
     * {@code ClassValue}, so that the runtime does not keep a kernel's class (and its class
     * loader: a plugin reloaded in a fresh loader) alive: a driver calls its kernel through the
     * kernel interface, so neither it nor its handle refers to the kernel's class. A class that
     * outlives the runtime (a lambda of the application's) keeps its value until the class's
     * {@code ClassValue} entries are cleaned up, so the runtime's close empties every value
     * ({@link #clearDrivers}): a closed runtime's layout and drivers are not kept by such a class.
     */
    private final ClassValue<Map<List<Object>, MethodHandle>> drivers;
    /** Every value {@link #drivers} made, for {@link #clearDrivers}; shared with the launchers made by {@link #withParallelism}. */
    private final Set<Map<List<Object>, MethodHandle>> driverMaps;
    private final PhaseLock phases;
    private final Consumer<GeneratedClass> listing;
    private final SnapshotCache snapshots;

    /**
     * @param listing receives every driver class before it is defined: the runtime verifies and
     *                dumps it when its switches say so, and lists it
     */
    public Launcher(NodeTree structure, int parallelism, Consumer<GeneratedClass> listing) {
        this(structure, null, parallelism, listing);
    }

    /**
     * @param phases the lock the launches run in: every task marks its thread with
     *               {@link PhaseLock#enterTask()} while it runs (null: no marks)
     */
    public Launcher(NodeTree structure, PhaseLock phases, int parallelism, Consumer<GeneratedClass> listing) {
        this(structure, phases, parallelism, WalkSplit.MINIMUM_CELLS, listing);
    }

    /**
     * @param walkSplitCells the least work from which a snapshot's walk splits over the pool
     *                       ({@link WalkSplit}; {@link WalkSplit#MINIMUM_CELLS} by default, less
     *                       in tests, so that small structures split too)
     */
    public Launcher(NodeTree structure, PhaseLock phases, int parallelism, long walkSplitCells,
                    Consumer<GeneratedClass> listing) {
        this.structure = structure;
        this.listing = listing;
        this.phases = phases;
        Set<Map<List<Object>, MethodHandle>> maps = ConcurrentHashMap.newKeySet();
        this.driverMaps = maps;
        this.drivers = new ClassValue<>() {
            @Override
            protected Map<List<Object>, MethodHandle> computeValue(Class<?> kernelClass) {
                Map<List<Object>, MethodHandle> map = new ConcurrentHashMap<>();
                maps.add(map);
                return map;
            }
        };
        this.ranges = new LaunchSplit(structure, phases, parallelism);
        this.snapshots = new SnapshotCache(structure, this::defineWalker,
                new WalkSplit(ranges.pool(), parallelism, walkSplitCells));
    }

    private Launcher(Launcher previous, int parallelism) {
        this.structure = previous.structure;
        this.listing = previous.listing;
        this.phases = previous.phases;
        this.drivers = previous.drivers;
        this.driverMaps = previous.driverMaps;
        this.ranges = new LaunchSplit(structure, phases, parallelism);
        WalkSplit split = previous.snapshots.split();
        this.snapshots = previous.snapshots.withSplit(new WalkSplit(ranges.pool(), parallelism, split.minimumCells()));
    }

    /**
     * A launcher of {@code parallelism} threads (a pool of its own) that keeps this one's
     * generated drivers and walks and its kept snapshots: a program that changes the parallelism
     * runs the same classes after it as before, so their call sites stay as the JIT compiled
     * them. Close this one ({@link #close()} shuts its pool down only) and use the new one.
     */
    public Launcher withParallelism(int parallelism) {
        return new Launcher(this, parallelism);
    }

    public int parallelism() {
        return ranges.parallelism();
    }

    /** The snapshots of this launcher's launches and their staleness rule. */
    public SnapshotCache snapshots() {
        return snapshots;
    }

    /** How this launcher cuts and runs launches; reductions run on the same split. */
    public LaunchSplit ranges() {
        return ranges;
    }

    /**
     * Calls {@code kernel} (a Kernel1..Kernel8 of {@code arity}) on every active cell of the
     * snapshot's target.
     */
    public void forEach(ActiveBlocks blocks, Kernel kernel, int arity) {
        MethodHandle driver = cellDriver(blocks.target(), kernel.getClass(), arity);
        ranges.run(blocks, () -> null, (from, to, ignored) -> {
            driver.invokeExact(kernel, blocks, from, to);
        }, (a, b) -> a);
    }

    /**
     * Calls a kernel made per range of blocks on every active cell of the snapshot's target: the
     * first range gets {@code first}, every other range a new one from {@code kernels} (of the
     * same class, else IllegalArgumentException). Returns the kernels in block order.
     */
    public <K extends Kernel> List<K> forEachPerTask(ActiveBlocks blocks, K first, Supplier<K> kernels, int arity) {
        MethodHandle driver = cellDriver(blocks.target(), first.getClass(), arity);
        return ranges.run(blocks, perRange(first, kernels), (from, to, list) -> {
            driver.invokeExact((Kernel) list.getFirst(), blocks, from, to);
        }, Launcher::concatenate);
    }

    /**
     * Calls a ViewKernel on every active cell of the snapshot's target, every range of blocks
     * with a view of its own from {@code views} (a generated driver that is the view,
     * {@link ViewDriver}). With {@code kernels} null every range calls {@code first}; else, as
     * {@link #forEachPerTask}, the first range gets {@code first} and every other a new kernel
     * of its class, and the kernels come back in block order.
     */
    public <K extends ViewKernel<?>> List<K> forEachView(ActiveBlocks blocks, K first, Supplier<K> kernels,
                                                         Supplier<ViewDriver> views) {
        Supplier<List<K>> kernel = kernels == null ? () -> new ArrayList<>(List.of(first)) : perRange(first, kernels);
        record Task<K>(List<K> kernels, ViewDriver view) {
        }
        Task<K> all = ranges.run(blocks, () -> new Task<>(kernel.get(), views.get()), (from, to, task) -> {
            task.view().run(task.kernels().getFirst(), blocks, from, to);
        }, (left, right) -> new Task<>(concatenate(left.kernels(), right.kernels()), left.view()));
        return kernels == null ? List.of(first) : all.kernels();
    }

    /**
     * Kernels for the ranges of a launch, one list of one per range: {@code first} for the first
     * range asked, a new one from {@code kernels} (of the same class, else
     * IllegalArgumentException) for every other.
     */
    private static <K> Supplier<List<K>> perRange(K first, Supplier<K> kernels) {
        Class<?> kernelClass = first.getClass();
        AtomicBoolean firstTaken = new AtomicBoolean();
        return () -> {
            K kernel = firstTaken.compareAndSet(false, true) ? first
                    : Objects.requireNonNull(kernels.get(), "the kernel supplier returned null");
            if (kernel.getClass() != kernelClass) {
                throw new IllegalArgumentException("the kernel supplier made a " + kernel.getClass().getName()
                        + " after a " + kernelClass.getName() + "; it must make one class");
            }
            List<K> list = new ArrayList<>(1);
            list.add(kernel);
            return list;
        };
    }

    private static <K> List<K> concatenate(List<K> left, List<K> right) {
        left.addAll(right);
        return left;
    }

    /** Throws IllegalArgumentException unless a kernel of {@code arity} coordinates fits {@code target}. */
    public static void checkArity(SNode target, int arity) {
        if (arity != target.indexAxes().size()) {
            throw new IllegalArgumentException("snode=" + target.path() + " has " + target.indexAxes().size()
                    + " coordinates " + target.indexAxes() + "; the kernel takes " + arity);
        }
    }

    private MethodHandle cellDriver(SNode target, Class<?> kernelClass, int arity) {
        checkArity(target, arity);
        return drivers.get(kernelClass).computeIfAbsent(List.of("cell", target),
                key -> define(target, "Driver", DriverEmitter.emit(driverName("Driver"), structure.plan().node(target),
                        arity), MethodType.methodType(void.class, kernelType(arity), ActiveBlocks.class, int.class,
                        int.class), CELL_DRIVER));
    }

    /**
     * Calls {@code kernel} once per block of the snapshot (of a dense, bitmasked or dynamic
     * target; a dynamic target's blocks are its lists, whose chunks are resolved first, once
     * per snapshot: {@link ListChunks}).
     */
    public void forEachBlock(ActiveBlocks blocks, BlockKernel kernel) {
        SNode target = blocks.target();
        checkBlockTarget(target);
        MethodHandle driver = drivers.get(kernel.getClass()).computeIfAbsent(List.of("block", target),
                key -> define(target, "BlockDriver", DriverEmitter.emitBlock(driverName("BlockDriver"),
                        structure.plan().node(target), false), BLOCK_DRIVER, BLOCK_DRIVER));
        resolveLists(blocks);
        ranges.run(blocks, () -> null, (from, to, ignored) -> {
            driver.invokeExact(kernel, blocks, from, to);
        }, (a, b) -> a);
    }

    /**
     * Folds every block of the snapshot (of a dense, bitmasked or dynamic target) into
     * accumulators (one per range of blocks, from {@code identity}) and combines them in block
     * order.
     */
    public <A> A reduceBlocks(ActiveBlocks blocks, Supplier<A> identity, BlockReducer<A> reducer,
                              BinaryOperator<A> combiner) {
        SNode target = blocks.target();
        checkBlockTarget(target);
        MethodHandle driver = drivers.get(reducer.getClass()).computeIfAbsent(List.of("reduce", target),
                key -> define(target, "ReduceDriver", DriverEmitter.emitBlock(driverName("ReduceDriver"),
                        structure.plan().node(target), true), REDUCER_DRIVER, REDUCER_DRIVER));
        Supplier<A> checked = () -> Objects.requireNonNull(identity.get(), "the identity supplier returned null");
        resolveLists(blocks);
        return ranges.run(blocks, checked, (from, to, accumulator) -> {
            driver.invokeExact(reducer, (Object) accumulator, blocks, from, to);
        }, combiner);
    }

    /**
     * The active blocks of {@code target} now, in memory order, in arrays of its own (call
     * inside the phase lock): for a snapshot the caller keeps ({@link SnapshotCache#keep}).
     */
    public ActiveBlocks snapshot(SNode target) {
        return snapshots.keep(target);
    }

    /** {@link SnapshotCache#withSnapshot}: a launch over the snapshot of {@code target}, reused while current. */
    public <R> R withSnapshot(SNode target, Function<ActiveBlocks, R> launch) {
        return snapshots.withSnapshot(target, launch);
    }

    /** Walks for the active blocks that launches made so far (a launch over an unchanged structure makes none). */
    public long walks() {
        return snapshots.walks();
    }

    public static void checkBlockTarget(SNode target) {
        if (target.kind() != NodeKind.DENSE && target.kind() != NodeKind.BITMASKED
                && target.kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + "; the block form needs a dense, bitmasked or dynamic node (a container whose cells are one "
                    + "block of memory, or a list in chunks); launch per cell over this one with forEach");
        }
    }

    /** A dynamic target's list chunks, resolved on the launching thread before the ranges run (once per snapshot). */
    private static void resolveLists(ActiveBlocks blocks) {
        if (blocks.activity.hasLengths() && blocks.size() > 0) {
            blocks.listChunks();
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

    private GeneratedWalk defineWalker(SNode target) {
        WalkerEmitter emitter = new WalkerEmitter(structure.plan(), driverName("Walk"), target);
        List<SNode> chain = target.ancestry();
        Object[] cells = new Object[chain.size()];
        for (int level = 1; level < chain.size() - 1; level++) {
            if (structure.plan().node(chain.get(level)).hasChildCells()) {
                cells[level] = structure.cells(chain.get(level));
            }
        }
        byte[] bytes = emitter.emit(structure.root(), cells);
        String name = new org.objectweb.asm.ClassReader(bytes).getClassName();
        GeneratedClass code = new GeneratedClass(name, bytes, structure.plan().node(target).toString(),
                emitter.sourceText(), emitter.constantNotes());
        listing.accept(code);
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(Anchor.lookup(), code, emitter.classData());
            MethodHandle walk = hidden.findStatic(hidden.lookupClass(), "walk",
                    MethodType.methodType(int.class, int[].class, long[].class, int.class));
            MethodHandle below = !emitter.splitsBelowTop() ? null : hidden.findStatic(hidden.lookupClass(),
                    "walkBelow", MethodType.methodType(int.class, MemorySegment.class, long.class, int[].class,
                            int[].class, long[].class, int.class));
            return new GeneratedWalk(walk, below);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define the active-block walk of " + target.path(), e);
        }
    }

    /** The fork/join pool of parallel launches' helpers (parallelism - 1 threads), or null when the parallelism is 1. */
    public ForkJoinPool pool() {
        return ranges.pool();
    }

    /**
     * From now on, ranges of running launches that have not started are skipped (the ranges
     * running finish); the runtime's {@code close()} calls it before it waits for the launches.
     */
    public void beginClose() {
        ranges.beginClose();
    }

    @Override
    public void close() {
        ranges.close();
    }

    /**
     * Empties every kernel class's map of drivers (the runtime's close calls it): the maps stay
     * with their classes until those classes' {@code ClassValue} entries are cleaned up, empty.
     */
    public void clearDrivers() {
        for (Map<List<Object>, MethodHandle> map : driverMaps) {
            map.clear();
        }
        driverMaps.clear();
    }

    /** Forgets the kept snapshots (their arrays go to the garbage collector); the runtime's close calls it. */
    public void clearSnapshots() {
        snapshots.clear();
    }
}
