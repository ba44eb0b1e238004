package io.snode.codegen;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.internal.InterfaceBinder;
import io.snode.codegen.internal.GeneratedLayout;
import io.snode.codegen.internal.LayoutEmitter;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.internal.structfor.Reductions;
import io.snode.codegen.internal.structfor.StructFor;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import io.snode.codegen.kernel.Kernel5;
import io.snode.codegen.kernel.Kernel6;
import io.snode.codegen.kernel.Kernel7;
import io.snode.codegen.kernel.Kernel8;
import io.snode.codegen.kernel.Kernel;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.codegen.kernel.ViewKernel;
import io.snode.gc.GcStatistics;
import io.snode.gc.ParallelCollector;
import io.snode.gc.PhaseLock;
import io.snode.gc.ThreePhaseCollector;
import io.snode.runtime.Collector;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.Plan;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.Foreign;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Objects;
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
 * <p>{@link #close()} frees all memory (a runtime dropped unclosed keeps it until the JVM exits,
 * and is reported on the {@code System.Logger} {@code io.snode.runtime.unclosed}, with where it
 * was created, when the library next creates, closes or collects a runtime after the garbage collector
 * found it unreachable); generated methods, launches and {@link #gc()} called
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
 * whose kernels deactivate. Where the collection after a launch throws (a collector of the
 * application's, {@link RuntimeOptions#withCollector}), the exception reaches the launching
 * thread; the launch's writes and deactivations stand, and what the collection did not reclaim
 * waits for the next one.
 *
 * <p>A field or method name given as null (to {@link #handle}, {@link #getter} and the other
 * handles, {@code forEach}, {@link #sum} and the other reductions) throws
 * {@link NullPointerException} whose message is the parameter's name ({@code field},
 * {@code name}); a name that is not in the layout throws {@link IllegalArgumentException}.
 */
public final class SNodeRuntime implements AutoCloseable {
    private final SparseRuntime runtime;
    /** The layout class, bound interfaces, accessors and drivers: every class generated for this runtime. */
    private final GeneratedLayout code;
    private final PhaseLock phases = new PhaseLock();
    /** The launches: struct-for, reductions, kept sets, the launch rules and close. */
    private final StructFor structFor;
    private final ParallelCollector ownCollector;
    private final Collector collector;

    /** What this runtime's last collection did (a shared collector's last may be another runtime's). */
    private volatile GcStatistics lastGcStatistics = GcStatistics.NONE;

    private SNodeRuntime(Layout layout, RuntimeOptions options, ParallelCollector ownCollector) {
        this.ownCollector = ownCollector;
        this.collector = options.collector();
        // The layout class's name first: the runtime's JFR events carry it from its first allocation.
        String layoutName = GeneratedLayout.nextLayoutName();
        this.runtime = SparseRuntime.create(layout, collector instanceof ThreePhaseCollector threePhase
                ? options.withCollector(managers -> lastGcStatistics = threePhase.collectReporting(managers))
                : options, GeneratedLayout.simpleName(layoutName));
        boolean built = false;
        try {
            this.code = new GeneratedLayout(layout, runtime.internalTree(), layoutName);
            this.structFor = new StructFor(runtime, phases, code::register, this);
            built = true;
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
        ParallelCollector collector = ParallelCollector.builder().build();
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
     * @throws NullPointerException     when {@code name} is null (the message is {@code name})
     * @throws IllegalArgumentException when the class has no such method
     * @throws IllegalStateException    after {@link #close()} (as {@link #getter} and the other handles)
     */
    public MethodHandle handle(String name) {
        Objects.requireNonNull(name, "name");
        structFor.checkOpen();
        return code.handle(name);
    }

    /**
     * {@code get_FIELD(coordinates...)}; as the other field handles ({@link #setter}, {@link #adder},
     * {@link #appender}), it throws {@link NullPointerException} "field" for a null name and
     * {@link IllegalArgumentException} for a name that is not in the layout.
     */
    public MethodHandle getter(String field) {
        return handle(LayoutEmitter.getter(placed(field)));
    }

    public MethodHandle setter(String field) {
        return handle(LayoutEmitter.setter(placed(field)));
    }

    public MethodHandle adder(String field) {
        return handle(LayoutEmitter.adder(placed(field)));
    }

    /** {@code append_FIELD(listCoordinates..., value)}, returning the element's index. */
    public MethodHandle appender(String field) {
        PlacedField placed = placed(field);
        if (placed.snode().kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("field=" + field + " is placed on " + placed.snode().path()
                    + ", not on a dynamic node");
        }
        return handle(LayoutEmitter.appender(placed));
    }

    /** The layout's field called {@code field}, a null name refused with the parameter's name. */
    private PlacedField placed(String field) {
        return layout().field(Objects.requireNonNull(field, "field"));
    }

    private static final List<String> NODE_OPERATIONS =
            List.of("isActive", "activate", "deactivate", "deactivateAll", "appendZero", "length");

    /**
     * A per-SNode method, {@code <operation>_s<id>_<kind>}: {@code operation} is isActive,
     * activate, deactivate (sparse nodes), deactivateAll, appendZero or length (dynamic nodes;
     * appendZero appends an element whose fields are zero and returns its index).
     *
     * @throws IllegalArgumentException for another operation, one the SNode's kind has not, or
     *                                  an SNode of another layout
     */
    public MethodHandle nodeHandle(String operation, SNode snode) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(snode, "snode");
        if (!NODE_OPERATIONS.contains(operation)) {
            throw new IllegalArgumentException("operation=" + operation + " is none of " + NODE_OPERATIONS);
        }
        if (snode.id() >= layout().snodes().size() || layout().snode(snode.id()) != snode) {
            throw Foreign.snode(snode, "this runtime's");
        }
        return handle(operation + "_" + LayoutEmitter.nodeName(snode));
    }

    /**
     * An implementation of the application interface {@code api} whose methods call this
     * layout's generated methods (see {@link InterfaceBinder} for the
     * accepted names and signatures); the calls inline as if made directly. {@code api} may come
     * from any class loader (a plugin's, the source launcher's): the implementation is defined
     * in one that sees both it and this library. The implementation holds no state; binding
     * the same interface again returns the same object and defines no new class.
     *
     * @throws IllegalArgumentException when {@code api} is not a public interface, or a method
     *                                  matches no field or has the wrong types or number of
     *                                  coordinates
     * @throws IllegalStateException    after {@link #close()}, or where {@code api} lies in a package its named
     *                                  module does not export (the message says which export to add)
     */
    public <T> T bind(Class<T> api) {
        structFor.checkOpen();
        return code.bind(api);
    }

    /**
     * A new caching accessor implementing {@code api} (same names and signatures as
     * {@link #bind}): each field access remembers the block it reached and skips the walk from
     * the root while later coordinates stay in that block, like OpenVDB's {@code ValueAccessor}.
     * A remembered block is dropped when the structure changes epoch (any deactivation or
     * collection), so the accessor stays correct across them. An accessor is not thread-safe:
     * use one per thread.
     *
     * @throws IllegalArgumentException as for {@link #bind}
     * @throws IllegalStateException    after {@link #close()}, or where {@code api} lies in a package its named
     *                                  module does not export (as for {@link #bind})
     */
    public <T> T accessor(Class<T> api) {
        structFor.checkOpen();
        return code.accessor(api);
    }

    // ------------------------------------------------------------------ deactivation

    /**
     * Deactivates the cell of {@code snode} at {@code coordinates} and everything below it, as
     * {@link SparseRuntime#deactivate} does (a dynamic node: the whole list, named by its
     * parent's coordinates). It counts as a launch: it does not overlap a collection, and, when
     * it deactivated something, the runtime collects after it when no other launch is running (else the cells wait for a later
     * collection); inside a kernel of a struct-for launch, after that launch; inside
     * {@code phaseLock().launch(...)}, which never collects, not at all (call {@link #gc()}). So it
     * must not run while other threads make direct calls outside launches (that collection would
     * overlap them); beside such threads, use {@code generic().deactivate}, which never
     * collects, and call {@link #gc()} when they are done. Where that collection throws (a
     * collector of the application's), the exception reaches the caller and the deactivation
     * stands; the cells it did not reclaim wait for the next collection.
     *
     * @return whether something was active
     */
    public boolean deactivate(SNode snode, int... coordinates) {
        Objects.requireNonNull(coordinates, "coordinates");
        return structFor.inLaunch(() -> runtime.deactivate(snode, coordinates));
    }

    /**
     * Deactivates in one call every cell of {@code snode} that lies wholly in the box
     * {@code [low, high)}, with everything below, and the cells of sparse nodes above it that lie
     * wholly in the box with their whole subtrees, as {@link SparseRuntime#deactivateBox} does.
     * Launch rules as for {@link #deactivate}.
     *
     * @return the cells deactivated, as {@link SparseRuntime#deactivateBox} counts them (an upper
     *         cell released whole counts as one)
     */
    public long deactivateBox(SNode snode, int[] low, int[] high) {
        return structFor.inLaunch(() -> runtime.deactivateBox(snode, low, high));
    }

    /**
     * Deactivates every cell of {@code snode} and everything below (Taichi's
     * {@code deactivate_all}); on the root, every sparse node, so that only the values of dense
     * cells above every sparse node stay. Launch rules as for {@link #deactivate}; a call that
     * finds nothing to release changes nothing ({@link SparseRuntime#deactivateAll}) and does not
     * collect.
     */
    public void deactivateAll(SNode snode) {
        structFor.inLaunch(() -> {
            runtime.deactivateAll(snode);
            return null;
        });
    }

    /**
     * The classes generated for this layout, with bytes, disassembly, plan and constants: the
     * layout class first, then in the order they were made the accessors, bound interfaces,
     * struct-for drivers, view drivers and walks. Each has a name of its own.
     */
    public List<GeneratedClass> generatedCode() {
        return code.generatedCode();
    }

    /**
     * Memory held and cell counts per pointer, hash and dynamic SNode (see {@link MemoryStats}).
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public MemoryStats memoryStats() {
        structFor.checkOpen();
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
        structFor.gc();
    }

    /**
     * What this runtime's last collection did, per SNode (cells reclaimed, their bytes, time of
     * each phase), when the collector is one of the {@code gc} module's; else, and before the
     * first, {@code GcStatistics.NONE}. A collector shared with other runtimes does not mix
     * theirs in; a collection that failed leaves the previous statistics; after {@link #close()}
     * it still returns the last ones.
     */
    public GcStatistics lastGcStatistics() {
        return lastGcStatistics;
    }

    /**
     * The lock that keeps launches and collections apart. Code that reads or writes from
     * several threads while another thread may call {@link #gc()} wraps its work in
     * {@code phaseLock().launch(...)} (such a launch never collects by itself).
     */
    public PhaseLock phaseLock() {
        return phases;
    }

    // ------------------------------------------------------------------ struct-for

    /**
     * The number of threads launches use: 1 runs kernels on the calling thread, block after block
     * in a fixed order (for debugging and determinism); n runs them on the calling thread and up
     * to n - 1 threads of a pool of the runtime's, each taking the next range of blocks. Default:
     * the available processors; from 1 to 32,768 (a fork/join pool's limit, plus the calling
     * thread), or an {@link IllegalArgumentException} and the parallelism stays as it was. A change
     * waits for the launches running on other threads, as a collection does, and holds new ones
     * back until it is made; from a kernel it throws {@link IllegalStateException}.
     *
     * <p>Blocks are visited in memory order (the allocation order of the cells that hold them),
     * which streams through off-heap memory; it depends on the runtime's history (which cells
     * were allocated, freed and reused), not on the parallelism.
     */
    public void parallelism(int threads) {
        structFor.parallelism(threads);
    }

    public int parallelism() {
        return structFor.parallelism();
    }

    /** Calls {@code kernel} with the coordinates of every active cell of {@code field}'s SNode. */
    public void forEach(String field, Kernel1 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 1);
    }

    public void forEach(String field, Kernel2 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 2);
    }

    public void forEach(String field, Kernel3 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 3);
    }

    public void forEach(String field, Kernel4 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 4);
    }

    public void forEach(String field, Kernel5 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 5);
    }

    public void forEach(String field, Kernel6 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 6);
    }

    public void forEach(String field, Kernel7 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 7);
    }

    public void forEach(String field, Kernel8 kernel) {
        structFor.forEach(placed(field).snode(), kernel, 8);
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
        structFor.forEach(snode, kernel);
    }

    /**
     * Struct-for with a kernel per task: every task of the launch (a range of blocks) gets its
     * own kernel from {@code kernels}, so the kernel's fields can accumulate without atomics;
     * the kernels come back in block order, one per task (the split into tasks depends only on
     * the active blocks, never on the parallelism), for the caller to combine; with no active
     * cell, one kernel that was never called. {@code kernels}
     * must make kernels of one class, a Kernel1..Kernel8 taking as many coordinates as the SNode
     * has (directly, through an interface that extends it, or through a superclass). The launch's
     * threads call {@code kernels}, possibly at the same time: it must be thread-safe. Launch rules
     * as for {@link #forEach(SNode, Kernel)}.
     */
    public <K extends Kernel> List<K> forEachPerTask(SNode snode, Supplier<K> kernels) {
        return structFor.forEachPerTask(snode, kernels);
    }

    /**
     * Struct-for over the active cells of {@code snode} whose kernel reads and writes through a
     * <em>view</em>: a caching accessor of {@code api} (the methods {@link #accessor} accepts)
     * that the launch's generated driver primes with each block as it enters it, and hands to the
     * kernel with every cell: {@code kernel} is a ViewKernel1..ViewKernel8 taking the view and as
     * many coordinates as the SNode has. Accesses of the visited block's fields (of
     * {@code snode}, under a pointer or hash parent) find that block without a walk, and because
     * the driver is itself the view, the JIT inlines the view's methods into the kernel as it
     * inlines the kernel into the driver. Each task of the launch gets a view of its own; the
     * kernel is shared, as with {@link #forEach(SNode, Kernel)}. Coordinates outside the visited
     * block (neighbours) work as through any accessor, and a view stays correct after a
     * deactivation inside the launch (it walks again). Over a dense, bitmasked or dynamic
     * {@code snode}, {@code api} may also declare, for a field of {@code snode}, {@code T phi()}
     * and {@code void phi(T value)} without coordinates: they read and write the cell (a list's
     * element) being visited (at the block, or the list's chunk, and the index the driver keeps,
     * after one test that nothing was deactivated or collected since the launch's walk; else as
     * an accessor would, the write activating again; an element whose chunk had no memory when
     * the launch resolved the list's chunks goes the accessor's way too); {@link #bind} and
     * {@link #accessor} refuse such methods. Launch rules as for
     * {@link #forEach(SNode, Kernel)}.
     *
     * @throws IllegalArgumentException when {@code api} does not bind to this layout (or its
     *                                  methods without coordinates are not of {@code snode}'s
     *                                  fields), or the kernel's coordinates are not the SNode's
     */
    public <T> void forEach(SNode snode, Class<T> api, ViewKernel<T> kernel) {
        structFor.forEach(snode, api, kernel, code::viewDriver);
    }

    /**
     * {@link #forEach(SNode, Class, ViewKernel)} with a kernel per task, as
     * {@link #forEachPerTask(SNode, Supplier)}: every task gets its own kernel from
     * {@code kernels} (one class) and its own view; the kernels come back in block order.
     */
    public <T, K extends ViewKernel<T>> List<K> forEachPerTask(SNode snode, Class<T> api, Supplier<K> kernels) {
        return structFor.forEachPerTask(snode, api, kernels, code::viewDriver);
    }

    /**
     * Calls {@code kernel} once per block of {@code snode}, in parallel over the blocks; launch
     * rules as for {@link #forEach(SNode, Kernel)}. For a dense or bitmasked {@code snode} a block
     * is an active container (one piece of memory, with its activity mask); for a dynamic one it
     * is a list (one per active cell of the parent, empty lists included), handed over as its
     * chunks of contiguous elements with the length the launch's snapshot read
     * ({@link LeafBlock}), so that a visit of every element is a loop over contiguous memory.
     *
     * @throws IllegalArgumentException for a pointer or hash node (use {@link #forEach(SNode, Kernel)})
     */
    public void forEachBlock(SNode snode, BlockKernel kernel) {
        structFor.forEachBlock(snode, kernel);
    }

    /**
     * The block form of a reduction over a dense, bitmasked or dynamic {@code snode} (blocks as
     * for {@link #forEachBlock(SNode, BlockKernel)}: containers, or lists as chunks): every task
     * of the launch gets its own accumulator from {@code identity}, {@code reducer} folds each of
     * the task's blocks into it (no atomics needed; the launch's threads call {@code identity},
     * possibly at the same time), and the accumulators are combined with
     * {@code combiner} in block order. The tasks are the same whatever the parallelism, so the
     * result is too (floating-point sums included). Launch rules as for {@link #forEachBlock}.
     * An exception of {@code reducer} reaches the caller in a {@link KernelException}, one of
     * {@code identity} or {@code combiner} as itself; after a failure (or a {@link #close()}
     * during the launch) {@code combiner} is not called again.
     */
    public <A> A reduceBlocks(SNode snode, Supplier<A> identity, BlockReducer<A> reducer, BinaryOperator<A> combiner) {
        return structFor.reduceBlocks(snode, identity, reducer, combiner);
    }

    // ------------------------------------------------------------------ kept active sets

    /**
     * The active blocks of {@code snode} now, kept for launches that follow (see
     * {@link ActiveSet}): launches over it skip the walk from the root.
     */
    public ActiveSet activeSet(SNode snode) {
        return new ActiveSet(this, structFor.keep(snode));
    }

    /** {@link #forEach(SNode, Kernel)} over the cells of a kept set; throws if the set is stale. */
    public void forEach(ActiveSet set, Kernel kernel) {
        Objects.requireNonNull(set, "set");
        structFor.forEach(set.snode(), kept(set), kernel);
    }

    /** {@link #forEachBlock(SNode, BlockKernel)} over a kept set; throws if the set is stale. */
    public void forEachBlock(ActiveSet set, BlockKernel kernel) {
        structFor.forEachBlock(kept(set), set.snode(), kernel);
    }

    /** {@link #reduceBlocks(SNode, Supplier, BlockReducer, BinaryOperator)} over a kept set; throws if stale. */
    public <A> A reduceBlocks(ActiveSet set, Supplier<A> identity, BlockReducer<A> reducer, BinaryOperator<A> combiner) {
        return structFor.reduceBlocks(kept(set), set.snode(), identity, reducer, combiner);
    }

    /** The blocks of {@code set}, checked (inside the launch) to be this runtime's and current. */
    private Supplier<ActiveBlocks> kept(ActiveSet set) {
        Objects.requireNonNull(set, "set");
        return () -> set.blocks(this);
    }

    /** Whether a kept set's blocks are current: no deactivation or collection since they were taken. */
    boolean isCurrent(ActiveBlocks kept) {
        return structFor.isCurrent(kept);
    }

    /** The structure's epoch: advances on every collection and on every deactivation that changes something (see {@link ActiveSet#isCurrent}). */
    long epoch() {
        return structFor.epoch();
    }

    /**
     * Sum of {@code field} over the active cells (the cells a {@code forEach} over its SNode
     * visits), in {@code double}: each value widened to {@code double} (exact for {@code f32} and
     * {@code i32}; an {@code i64} beyond 2^53 rounds to nearest; integer sums are exact only while
     * the partial sums stay within 2^53, beyond it they round as any {@code double} sum does; a
     * sum of cells that all hold {@code -0.0} is {@code +0.0}, as a loop from {@code 0.0} gives) and added in one fixed order that
     * depends only on the active cells, so the result is the same, to the bit, for any
     * parallelism, on any CPU, with or without the Vector API. The order: every range of blocks
     * of the launch's split (the same ranges as {@link #reduceBlocks}) keeps 32 partial sums; cell
     * {@code n} of a block (in its cell order; a list's index {@code n}; 0 for a hash node's blocks,
     * which are single cells) is added to partial sum {@code n % 32}, the blocks in memory order; the ranges' partial sums are added lane by lane
     * in the split's tree, and the 32 are then added pairwise (lane {@code k} and {@code k + 16},
     * then {@code k + 8}, ..., then lanes 0 and 1). This is not the order of a sequential loop over
     * the cells: expect differences in the last bits from one. Inactive cells add nothing (a list
     * element never written adds zero); 0 when no cell is active. A bitmasked block is read
     * whole, as a block reducer may read it (its inactive cells hold zero), so a cell that another
     * thread activates and writes while the sum runs may be included, unlike in a launch's visit.
     */
    public double sum(String field) {
        return structFor.reduce(Objects.requireNonNull(field, "field"), Reductions::sum);
    }

    /**
     * Smallest value of {@code field} over the active cells, as {@link Math#min(double, double)}
     * (a NaN wins; {@code -0.0} is below {@code 0.0}); +infinity when none is active.
     */
    public double min(String field) {
        return structFor.reduce(Objects.requireNonNull(field, "field"), Reductions::min);
    }

    /**
     * Largest value of {@code field} over the active cells, as {@link Math#max(double, double)};
     * -infinity when none is active.
     */
    public double max(String field) {
        return structFor.reduce(Objects.requireNonNull(field, "field"), Reductions::max);
    }

    /** Number of active cells of {@code field}'s SNode: the cells a {@code forEach} over it visits (1 for a root field). */
    public long count(String field) {
        return structFor.reduce(Objects.requireNonNull(field, "field"), Reductions::count);
    }

    /**
     * Frees all memory. Idempotent: a {@code close()} called while another is under way returns
     * at once, the runtime closed to new work, and the first frees the memory when the running
     * launches have ended (the second does not wait for that: a running kernel may be waiting
     * for the very thread that calls it). A launch running when it begins is stopped between ranges
     * of blocks and its launching thread gets {@link IllegalStateException}: {@code close()}
     * first makes the running launches skip the ranges they have not started, then waits in
     * the phase lock, as a collection does, for the ranges running to finish (so they never
     * see freed memory), then frees. Launches, {@link #gc()} and generated methods called
     * afterwards throw {@code IllegalStateException} naming this runtime, as do {@link #bind},
     * {@link #accessor} and the method handles ({@link #handle}, {@link #getter}, ...): nothing new
     * is generated for a closed runtime ({@link #generatedCode()} still lists what was). Direct accessor
     * calls on other threads are not waited for: one that overlaps {@code close()} may fail
     * with that exception.
     *
     * <p>Close every runtime (try-with-resources): one that becomes unreachable unclosed keeps
     * its off-heap memory, and the address space its regions reserve, until the JVM exits
     * (freeing it when the object is collected could free memory that a bound interface or a
     * handle still reaching it uses). Its generated classes unload as usual.
     *
     * @throws IllegalStateException inside a launch of this runtime (a kernel, on any thread
     *                               of the launch, would wait for its own launch), or inside a
     *                               collection of it (from its collector); the runtime stays open
     */
    @Override
    public void close() {
        structFor.close(() -> {
            if (ownCollector != null) {
                ownCollector.close();
            }
        });
    }

    /** Whether {@link #close()} has begun. */
    public boolean isClosed() {
        return structFor.isClosed();
    }

    /** {@code SNodeRuntime Layout<n> of layout <text>}: names this runtime in messages, e.g. after close. */
    @Override
    public String toString() {
        return code.describe();
    }
}
