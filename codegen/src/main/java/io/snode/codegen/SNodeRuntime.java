package io.snode.codegen;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.Kernel;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import io.snode.codegen.kernel.Kernel5;
import io.snode.codegen.kernel.Kernel6;
import io.snode.codegen.kernel.Kernel7;
import io.snode.codegen.kernel.Kernel8;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.internal.LayoutEmitter;
import io.snode.codegen.internal.emit.HiddenClasses;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.Plan;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.Structure;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * A compiled layout: its data in off-heap memory plus a hidden class of static methods with
 * every constant of the plan baked in. The generated methods are reached through method handles
 * ({@link #handle}) or through an application interface bound to them ({@link #bind}); the
 * {@link #generic()} path works on the same memory and stays the reference.
 *
 * <p>Generated method names: per field {@code get_NAME(coords)}, {@code set_NAME(coords, v)},
 * {@code add_NAME(coords, delta)} (atomic, returns the previous value), and
 * {@code append_NAME(listCoords, v)} for fields of dynamic nodes; per SNode, named
 * {@code s<id>_<kind>}: {@code deactivateAll_} (every SNode, the root included: there it empties
 * every sparse node), {@code isActive_} and {@code activate_} (every SNode but the root),
 * {@code deactivate_} (sparse SNodes), and for dynamic nodes {@code append_} and
 * {@code length_}. A dynamic node's {@code append_}, {@code length_} and {@code deactivate_}
 * take the list's coordinates (its parent's), as in Taichi.
 *
 * <p>{@link #close()} frees all memory; generated methods, launches and {@link #gc()} called
 * afterwards throw {@link IllegalStateException} naming this runtime ({@link #toString()}). A
 * launch running when {@code close()} begins is stopped between ranges: the ranges already
 * running finish (the memory stays valid until they do, because {@code close()} waits for
 * them in the phase lock, as a collection does), the others are skipped, and the launching
 * thread gets {@code IllegalStateException} "... was closed during the launch". The hidden class
 * unloads once this object and every handle or bound interface obtained from it are unreachable.
 *
 * <p>When memory is reused: a deactivated cell's memory is reused only after a collection, and
 * collections run only in {@link #gc()} and automatically after a launch whose own kernels (on
 * any thread of that launch, nested launches included) deactivated something; never because of
 * what other threads did meanwhile. Launches and collections never overlap (see
 * {@link #phaseLock()}); direct accessor calls made outside launches are not guarded by the
 * phase lock and must not overlap a collection, i.e. another thread's {@code gc()} or a launch
 * whose kernels deactivate.
 */
public final class SNodeRuntime implements AutoCloseable {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final SparseRuntime runtime;
    private final MethodHandles.Lookup generated;
    private final GeneratedClass code;
    private final LayoutEmitter.RuntimeObjects objects;
    private final java.util.Map<Class<?>, MethodHandle> accessors = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.List<GeneratedClass> extraCode = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile io.snode.codegen.internal.Launcher launcher;
    private final io.snode.gc.PhaseLock phases = new io.snode.gc.PhaseLock();
    private final io.snode.gc.ParallelCollector ownCollector;
    private final io.snode.runtime.Collector collector;
    /** Set when {@link #close()} begins, before it waits for running launches. */
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private SNodeRuntime(Layout layout, RuntimeOptions options, io.snode.gc.ParallelCollector ownCollector) {
        this.ownCollector = ownCollector;
        this.collector = options.collector();
        this.runtime = SparseRuntime.create(layout, options);
        boolean built = false;
        try {
            Plan plan = runtime.plan();
            Structure structure = runtime.internalStructure();
            String name = "io/snode/codegen/generated/Layout" + SEQUENCE.incrementAndGet();
            LayoutEmitter emitter = new LayoutEmitter(plan, name);
            this.objects = new LayoutEmitter.RuntimeObjects() {
                @Override
                public Object structure() {
                    return structure;
                }

                @Override
                public Object root() {
                    return structure.root();
                }

                @Override
                public Object cells(SNode snode) {
                    return structure.cells(snode);
                }

                @Override
                public Object ambient(SNode snode) {
                    return structure.ambient(snode);
                }

                @Override
                public Object directories(SNode snode) {
                    return structure.directories(snode);
                }

                @Override
                public String runtimeName() {
                    return describe(name, layout);
                }
            };
            byte[] bytes = emitter.emit(objects);
            this.code = new GeneratedClass(name, bytes, plan.describe(), emitter.sourceText());
            this.generated = HiddenClasses.define(Anchor.lookup(), code, emitter.classData());
            this.launcher = new io.snode.codegen.internal.Launcher(structure, phases,
                    Runtime.getRuntime().availableProcessors(), this::register);
            built = true;
        } catch (IllegalAccessException e) {
            throw new AssertionError("the anchor's lookup defines classes in its own package", e);
        } finally {
            if (!built) {
                runtime.close();
                if (ownCollector != null) {
                    ownCollector.close();
                }
            }
        }
    }

    /**
     * Compiles {@code layout} with the default runtime options and the parallel three-phase
     * collector of the {@code gc} module (parallelism: the available processors).
     */
    public static SNodeRuntime compile(Layout layout) {
        return compile(layout, RuntimeOptions.DEFAULT);
    }

    /**
     * Compiles {@code layout} with {@code options}. The collector {@link #gc()} uses is the one
     * the options name; when they name none ({@link RuntimeOptions#usesDefaultCollector()}, as
     * {@code RuntimeOptions.DEFAULT.withMemoryCap(cap)} does), it is the {@code gc} module's
     * parallel collector, as for {@link #compile(Layout)}, owned and closed by this runtime.
     */
    public static SNodeRuntime compile(Layout layout, RuntimeOptions options) {
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(options, "options");
        if (!options.usesDefaultCollector()) {
            return new SNodeRuntime(layout, options, null);
        }
        io.snode.gc.ParallelCollector collector = io.snode.gc.ParallelCollector.builder().build();
        try {
            return new SNodeRuntime(layout, options.withCollector(collector), collector);
        } catch (RuntimeException | Error e) {
            collector.close(); // idempotent; the constructor closes it too when it fails late
            throw e;
        }
    }

    public Layout layout() {
        return runtime.layout();
    }

    public Plan plan() {
        return runtime.plan();
    }

    /** The generic path over the same memory: the reference the generated code is tested against. */
    public SparseRuntime generic() {
        return runtime;
    }

    /**
     * The generated static method {@code name}, for example {@code get_phi} or
     * {@code isActive_s2_pointer}.
     *
     * @throws IllegalArgumentException when the class has no such method
     */
    public MethodHandle handle(String name) {
        for (var method : generated.lookupClass().getDeclaredMethods()) {
            if (method.getName().equals(name)) {
                try {
                    return generated.unreflect(method);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new IllegalArgumentException("name=" + name + " is not a generated method of layout " + layout()
                + "; see generatedCode() for the list");
    }

    public MethodHandle getter(String field) {
        return handle(LayoutEmitter.getter(layout().field(field)));
    }

    public MethodHandle setter(String field) {
        return handle(LayoutEmitter.setter(layout().field(field)));
    }

    public MethodHandle adder(String field) {
        return handle(LayoutEmitter.adder(layout().field(field)));
    }

    /** {@code append_FIELD(listCoordinates..., value)}, returning the element's index. */
    public MethodHandle appender(String field) {
        PlacedField placed = layout().field(field);
        if (placed.snode().kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("field=" + field + " is placed on " + placed.snode().path()
                    + ", not on a dynamic node");
        }
        return handle(LayoutEmitter.appender(placed));
    }

    /** A per-SNode method: {@code operation} is isActive, activate, deactivate, deactivateAll, append or length. */
    public MethodHandle nodeHandle(String operation, SNode snode) {
        if (layout().snode(snode.id()) != snode) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is not from this layout");
        }
        return handle(operation + "_" + LayoutEmitter.nodeName(snode));
    }

    /**
     * An implementation of the application interface {@code api} whose methods call this
     * layout's generated methods (see {@link io.snode.codegen.internal.InterfaceBinder} for the
     * accepted names and signatures); the calls inline as if made directly. {@code api} may come
     * from any class loader (a plugin's, the source launcher's): the implementation is defined
     * in one that sees both it and this library.
     *
     * @throws IllegalArgumentException when a method matches no field, or has the wrong types
     *                                  or number of coordinates
     */
    public <T> T bind(Class<T> api) {
        Objects.requireNonNull(api, "api");
        return io.snode.codegen.internal.InterfaceBinder.bind(api, layout(), this::handle, extraCode::add);
    }

    /**
     * A new caching accessor implementing {@code api} (same names and signatures as
     * {@link #bind}): each field access remembers the block it reached and skips the walk from
     * the root while later coordinates stay in that block, like OpenVDB's {@code ValueAccessor}.
     * A remembered block is dropped when the structure changes epoch (any deactivation or
     * collection), so the accessor stays correct across them. An accessor is not thread-safe:
     * use one per thread.
     */
    public <T> T accessor(Class<T> api) {
        Objects.requireNonNull(api, "api");
        MethodHandle constructor = accessors.computeIfAbsent(api, this::defineAccessor);
        try {
            return api.cast(constructor.invoke());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot create an accessor for " + api.getName(), e);
        }
    }

    private MethodHandle defineAccessor(Class<?> api) {
        var bindings = io.snode.codegen.internal.InterfaceBinder.bindings(api, layout());
        String name = "io/snode/codegen/generated/Accessor" + SEQUENCE.incrementAndGet();
        LayoutEmitter emitter = new LayoutEmitter(plan(), name);
        byte[] bytes = emitter.emitAccessor(api, bindings, objects);
        GeneratedClass generatedClass = new GeneratedClass(name, bytes, plan().describe(), emitter.sourceText());
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(
                    io.snode.codegen.internal.ImplementationHost.lookupFor(api), generatedClass, emitter.classData());
            extraCode.add(generatedClass);
            return hidden.findConstructor(hidden.lookupClass(), java.lang.invoke.MethodType.methodType(void.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw io.snode.codegen.internal.InterfaceBinder.cannotDefine("the accessor class", api, e);
        }
    }

    // ------------------------------------------------------------------ deactivation

    /**
     * Deactivates the cell of {@code snode} at {@code coordinates} and everything below it, as
     * {@link SparseRuntime#deactivate} does (a dynamic node: the whole list, named by its
     * parent's coordinates). It counts as a launch: it does not overlap a collection, and the
     * runtime collects after it, unless it runs inside a launch (then after that launch).
     *
     * @return whether something was active
     */
    public boolean deactivate(SNode snode, int... coordinates) {
        Objects.requireNonNull(coordinates, "coordinates");
        return inLaunch(() -> runtime.deactivate(snode, coordinates));
    }

    /**
     * Deactivates every cell of {@code snode} and everything below (Taichi's
     * {@code deactivate_all}); on the root, every sparse node, so that only the values of dense
     * cells above every sparse node stay. Launch rules as for {@link #deactivate}.
     */
    public void deactivateAll(SNode snode) {
        inLaunch(() -> {
            runtime.deactivateAll(snode);
            return null;
        });
    }

    /** The classes generated for this layout (the layout class, then any accessors), with bytes, disassembly and plan. */
    public List<GeneratedClass> generatedCode() {
        List<GeneratedClass> all = new java.util.ArrayList<>();
        all.add(code);
        all.addAll(extraCode);
        return List.copyOf(all);
    }

    public MemoryStats memoryStats() {
        checkOpen();
        return runtime.memoryStats();
    }

    /**
     * Collects now: every cell recycled since the last collection is zeroed and made available
     * for reuse. Waits for the launches running now to end; launches that start while it waits
     * wait behind it. Launches also collect by themselves when their own kernels deactivated
     * something. Direct accessor calls outside launches must not overlap it from another thread.
     *
     * @throws IllegalStateException inside a launch of this runtime (a kernel, on any thread of
     *                               the launch, must not wait for its own launch), or after {@link #close()}
     */
    public void gc() {
        checkOpen();
        phases.exclusive(() -> {
            checkOpen();
            runtime.collect();
        });
    }

    /**
     * What the last collection did, per SNode (cells reclaimed, bytes zeroed, time of each
     * phase), when the collector is one of the {@code gc} module's; else {@code GcStatistics.NONE}.
     */
    public io.snode.gc.GcStatistics lastGcStatistics() {
        return collector instanceof io.snode.gc.ThreePhaseCollector threePhase
                ? threePhase.lastStatistics() : io.snode.gc.GcStatistics.NONE;
    }

    /**
     * The lock that keeps launches and collections apart. Code that reads or writes from
     * several threads while another thread may call {@link #gc()} wraps its work in
     * {@code phaseLock().launch(...)} (such a launch never collects by itself).
     */
    public io.snode.gc.PhaseLock phaseLock() {
        return phases;
    }

    MethodHandles.Lookup generatedLookup() {
        return generated;
    }

    // ------------------------------------------------------------------ struct-for

    /**
     * The number of threads launches use: 1 runs kernels on the calling thread, block after block
     * in a fixed order (for debugging and determinism). Default: the available processors. Must
     * not be changed while a launch runs.
     *
     * <p>Blocks are visited in memory order (the allocation order of the cells that hold them),
     * which streams through off-heap memory; it depends on the runtime's history (which cells
     * were allocated, freed and reused), not on the parallelism.
     */
    public void parallelism(int threads) {
        io.snode.codegen.internal.Launcher old = launcher;
        launcher = new io.snode.codegen.internal.Launcher(runtime.internalStructure(), phases, threads,
                this::register);
        old.close();
    }

    public int parallelism() {
        return launcher.parallelism();
    }

    /** Calls {@code kernel} with the coordinates of every active cell of {@code field}'s SNode. */
    public void forEach(String field, Kernel1 kernel) {
        launch(layout().field(field).snode(), kernel, 1);
    }

    public void forEach(String field, Kernel2 kernel) {
        launch(layout().field(field).snode(), kernel, 2);
    }

    public void forEach(String field, Kernel3 kernel) {
        launch(layout().field(field).snode(), kernel, 3);
    }

    public void forEach(String field, Kernel4 kernel) {
        launch(layout().field(field).snode(), kernel, 4);
    }

    public void forEach(String field, Kernel5 kernel) {
        launch(layout().field(field).snode(), kernel, 5);
    }

    public void forEach(String field, Kernel6 kernel) {
        launch(layout().field(field).snode(), kernel, 6);
    }

    public void forEach(String field, Kernel7 kernel) {
        launch(layout().field(field).snode(), kernel, 7);
    }

    public void forEach(String field, Kernel8 kernel) {
        launch(layout().field(field).snode(), kernel, 8);
    }

    /**
     * Struct-for over the active cells of {@code snode}: {@code kernel} is a Kernel1..Kernel8
     * taking as many coordinates as the SNode has. A launch visits the cells active when it
     * starts (cells it activates are not visited), runs in parallel over the active blocks, and
     * is not atomic: when a kernel throws, the launch stops, what was written stays, and the
     * caller gets a {@link KernelException} with the cell's coordinates.
     *
     * <p>A launch first finds the active blocks by walking the tree. The runtime keeps that
     * snapshot: the next launch over the same SNode uses it as it is when no activation,
     * deactivation or collection completed in between (else it walks again into the same
     * arrays), so repeated launches over an unchanged structure pay for the walk once.
     */
    public void forEach(SNode snode, Kernel kernel) {
        Objects.requireNonNull(kernel, "kernel");
        launch(snode, kernel, Kernel.arity(kernelInterface(kernel)));
    }

    /**
     * Struct-for with a kernel per task: every task of the launch (a range of blocks) gets its
     * own kernel from {@code kernels}, so the kernel's fields can accumulate without atomics;
     * the kernels come back in block order, one per task (the split into tasks depends only on
     * the active blocks, never on the parallelism), for the caller to combine. {@code kernels}
     * must make kernels of one class, a Kernel1..Kernel8 taking as many coordinates as the SNode
     * has. Launch rules as for {@link #forEach(SNode, Kernel)}.
     */
    public <K extends Kernel> List<K> forEachPerTask(SNode snode, Supplier<K> kernels) {
        checkOwned(snode);
        Objects.requireNonNull(kernels, "kernels");
        K first = Objects.requireNonNull(kernels.get(), "the kernel supplier returned null");
        int arity = Kernel.arity(kernelInterface(first));
        return inLaunch(() -> launcher.withSnapshot(snode,
                blocks -> launcher.forEachPerTask(blocks, first, kernels, arity)));
    }

    /**
     * Calls {@code kernel} once per active leaf block of a dense or bitmasked {@code snode}, in
     * parallel over the blocks; launch rules as for {@link #forEach(SNode, Kernel)}.
     */
    public void forEachBlock(SNode snode, BlockKernel kernel) {
        checkOwned(snode);
        Objects.requireNonNull(kernel, "kernel");
        io.snode.codegen.internal.Launcher.checkBlockTarget(snode);
        inLaunch(() -> launcher.withSnapshot(snode, blocks -> {
            launcher.forEachBlock(blocks, kernel);
            return null;
        }));
    }

    /**
     * The block form of a reduction over a dense or bitmasked {@code snode}: every task of the
     * launch gets its own accumulator from {@code identity}, {@code reducer} folds each of the
     * task's blocks into it (no atomics needed), and the accumulators are combined with
     * {@code combiner} in block order. The tasks are the same whatever the parallelism, so the
     * result is too (floating-point sums included). Launch rules as for {@link #forEachBlock}.
     */
    public <A> A reduceBlocks(SNode snode, Supplier<A> identity, BlockReducer<A> reducer, BinaryOperator<A> combiner) {
        checkOwned(snode);
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(reducer, "reducer");
        Objects.requireNonNull(combiner, "combiner");
        io.snode.codegen.internal.Launcher.checkBlockTarget(snode);
        return inLaunch(() -> launcher.withSnapshot(snode,
                blocks -> launcher.reduceBlocks(blocks, identity, reducer, combiner)));
    }

    // ------------------------------------------------------------------ kept active sets

    /**
     * The active blocks of {@code snode} now, kept for launches that follow (see
     * {@link ActiveSet}): launches over it skip the walk from the root.
     */
    public ActiveSet activeSet(SNode snode) {
        checkOwned(snode);
        if (snode.kind() == NodeKind.ROOT) {
            throw new IllegalArgumentException("snode=root has one cell and no coordinates; read its fields directly");
        }
        return inLaunch(() -> {
            long epoch = runtime.internalStructure().epoch(); // before the walk: a deactivation during it makes the set stale
            return new ActiveSet(this, launcher.snapshot(snode), epoch);
        });
    }

    /** {@link #forEach(SNode, Kernel)} over the cells of a kept set; throws if the set is stale. */
    public void forEach(ActiveSet set, Kernel kernel) {
        Objects.requireNonNull(set, "set");
        Objects.requireNonNull(kernel, "kernel");
        int arity = Kernel.arity(kernelInterface(kernel));
        inLaunch(() -> {
            launcher.forEach(set.blocks(this), kernel, arity);
            return null;
        });
    }

    /** {@link #forEachBlock(SNode, BlockKernel)} over a kept set; throws if the set is stale. */
    public void forEachBlock(ActiveSet set, BlockKernel kernel) {
        Objects.requireNonNull(set, "set");
        Objects.requireNonNull(kernel, "kernel");
        io.snode.codegen.internal.Launcher.checkBlockTarget(set.snode());
        inLaunch(() -> {
            launcher.forEachBlock(set.blocks(this), kernel);
            return null;
        });
    }

    /** {@link #reduceBlocks(SNode, Supplier, BlockReducer, BinaryOperator)} over a kept set; throws if stale. */
    public <A> A reduceBlocks(ActiveSet set, Supplier<A> identity, BlockReducer<A> reducer, BinaryOperator<A> combiner) {
        Objects.requireNonNull(set, "set");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(reducer, "reducer");
        Objects.requireNonNull(combiner, "combiner");
        io.snode.codegen.internal.Launcher.checkBlockTarget(set.snode());
        return inLaunch(() -> launcher.reduceBlocks(set.blocks(this), identity, reducer, combiner));
    }

    /** The structure's epoch: advances on every deactivation and collection. */
    long epoch() {
        return runtime.internalStructure().epoch();
    }

    /** Sum of {@code field} over the active cells, in double; the same for any parallelism. */
    public double sum(String field) {
        return summarize(field).sum();
    }

    /** Smallest value of {@code field} over the active cells; +infinity when none is active. */
    public double min(String field) {
        return summarize(field).min();
    }

    /** Largest value of {@code field} over the active cells; -infinity when none is active. */
    public double max(String field) {
        return summarize(field).max();
    }

    /** Number of active cells of {@code field}'s SNode. */
    public long count(String field) {
        return summarize(field).count();
    }

    private io.snode.codegen.internal.Reductions.Summary summarize(String field) {
        PlacedField placed = layout().field(field);
        return inLaunch(() -> io.snode.codegen.internal.Reductions.summarize(runtime.internalStructure(),
                placed, launcher));
    }

    private void launch(SNode snode, Kernel kernel, int arity) {
        checkOwned(snode);
        inLaunch(() -> launcher.withSnapshot(snode, blocks -> {
            launcher.forEach(blocks, kernel, arity);
            return null;
        }));
    }

    /**
     * Runs a launch inside the phase lock (shared), counting the deactivations its own kernels
     * make (the launcher's tasks count them on whichever thread they run; other threads'
     * deactivations are not counted), then collects when they made any: unless the launch is
     * nested in a task of another launch of this runtime (that launch gets the count and
     * collects when it ends), this thread is otherwise inside a launch, or another launch is
     * active (the collection never blocks the launcher; the deactivated cells wait for a later
     * collection).
     */
    private <T> T inLaunch(Supplier<T> body) {
        checkOpen();
        Structure structure = runtime.internalStructure();
        java.util.concurrent.atomic.LongAdder deactivations = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder enclosing = structure.deactivationCounter();
        try (io.snode.gc.PhaseLock.Launch ignored = phases.enterLaunch()) {
            checkOpen(); // close() began before this launch entered: it waits for this launch to exit
            structure.swapDeactivationCounter(deactivations);
            T result;
            try {
                result = body.get();
            } catch (RuntimeException | Error e) {
                if (closed.get()) {
                    throw closedDuringLaunch(e);
                }
                throw e;
            } finally {
                structure.swapDeactivationCounter(enclosing);
            }
            if (closed.get()) {
                throw closedDuringLaunch(null);
            }
            return result;
        } finally {
            long count = deactivations.sum();
            if (count > 0) {
                if (enclosing != null) {
                    enclosing.add(count);
                } else if (!closed.get() && !phases.inLaunchOnCurrentThread()) {
                    phases.tryExclusive(() -> {
                        if (!closed.get()) {
                            runtime.collect();
                        }
                    });
                }
            }
        }
    }

    private IllegalStateException closedDuringLaunch(Throwable cause) {
        return new IllegalStateException(this + " was closed during the launch: the ranges of blocks that had started "
                + "finished, the others were skipped", cause);
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed; compile the layout again for a new runtime");
        }
    }

    private static Class<?> kernelInterface(Kernel kernel) {
        for (Class<?> type : kernel.getClass().getInterfaces()) {
            if (Kernel.class.isAssignableFrom(type) && type != Kernel.class) {
                return type;
            }
        }
        throw new IllegalArgumentException("kernel=" + kernel + " implements none of Kernel1..Kernel8");
    }

    private void checkOwned(SNode snode) {
        Objects.requireNonNull(snode, "snode");
        if (snode.id() >= layout().snodes().size() || layout().snode(snode.id()) != snode) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is not from this runtime's layout");
        }
    }

    /**
     * Frees all memory. Idempotent. A launch running when it begins is stopped between ranges
     * of blocks and its launching thread gets {@link IllegalStateException}: {@code close()}
     * first makes the running launches skip the ranges they have not started, then waits in
     * the phase lock, as a collection does, for the ranges running to finish (so they never
     * see freed memory), then frees. Launches, {@link #gc()} and generated methods called
     * afterwards throw {@code IllegalStateException} naming this runtime. Direct accessor
     * calls on other threads are not waited for: one that overlaps {@code close()} may fail
     * with that exception.
     *
     * @throws IllegalStateException inside a launch of this runtime (a kernel, on any thread
     *                               of the launch, would wait for its own launch); the runtime stays open
     */
    @Override
    public void close() {
        if (phases.inLaunchOnCurrentThread()) {
            throw new IllegalStateException("close() inside a launch of " + this + " would wait for that launch "
                    + "forever; close the runtime after the launch");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        io.snode.codegen.internal.Launcher current = launcher;
        current.beginClose();
        try {
            phases.exclusive(() -> {
                current.close();
                runtime.close();
            });
        } finally {
            if (ownCollector != null) {
                ownCollector.close();
            }
        }
    }

    /** Whether {@link #close()} has begun. */
    public boolean isClosed() {
        return closed.get();
    }

    /** {@code SNodeRuntime Layout<n> of layout <text>}: names this runtime in messages, e.g. after close. */
    @Override
    public String toString() {
        return describe(code.name(), layout());
    }

    private static String describe(String className, Layout layout) {
        return "SNodeRuntime " + className.substring(className.lastIndexOf('/') + 1) + " of layout "
                + io.snode.codegen.internal.LayoutEmitter.abbreviated(layout.toString());
    }

    /** A struct-for driver about to be defined ({@link HiddenClasses} checks it by the switches): listed. */
    private void register(GeneratedClass driver) {
        extraCode.add(driver);
    }
}
