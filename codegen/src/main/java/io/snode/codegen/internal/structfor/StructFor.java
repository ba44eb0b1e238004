package io.snode.codegen.internal.structfor;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.GeneratedClass;
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
import io.snode.codegen.kernel.ViewKernel;
import io.snode.codegen.kernel.ViewKernel1;
import io.snode.codegen.kernel.ViewKernel2;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.kernel.ViewKernel4;
import io.snode.codegen.kernel.ViewKernel5;
import io.snode.codegen.kernel.ViewKernel6;
import io.snode.codegen.kernel.ViewKernel7;
import io.snode.codegen.kernel.ViewKernel8;
import io.snode.gc.PhaseLock;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.Foreign;
import io.snode.runtime.internal.NodeTree;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The launches of one runtime: every struct-for form, the reductions, the kept sets, and the
 * rules every launch runs under (the phase lock, the deactivations a launch's own kernels make
 * and the collection after them, and what {@code close()} does to running launches). The
 * runtime's public methods delegate here; their javadoc is the contract.
 */
public final class StructFor {
    private final SparseRuntime runtime;
    private final NodeTree structure;
    private final Layout layout;
    private final PhaseLock phases;
    private final Consumer<GeneratedClass> listing;
    /** What messages call the runtime: its {@code toString()}. */
    private final Object owner;
    private volatile Launcher launcher;
    /** Set when {@link #close} begins, before it waits for running launches. */
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param listing receives every class the launches generate, before it is defined
     * @param owner   the runtime, as messages name it
     */
    public StructFor(SparseRuntime runtime, PhaseLock phases, Consumer<GeneratedClass> listing, Object owner) {
        this.runtime = runtime;
        this.structure = runtime.internalTree();
        this.layout = runtime.layout();
        this.phases = phases;
        this.listing = listing;
        this.owner = owner;
        this.launcher = new Launcher(structure, phases, Runtime.getRuntime().availableProcessors(), listing);
    }

    /**
     * A new launcher with {@code threads}, keeping the old one's generated drivers and walks
     * ({@link Launcher#withParallelism}); the old one's pool shuts down.
     */
    public void parallelism(int threads) {
        checkOpen(); // a new launcher's pool would outlive the closed runtime
        if (phases.inLaunchOnCurrentThread()) {
            throw new IllegalStateException("parallelism(" + threads + ") inside a launch of " + owner + " would wait"
                    + " for that launch forever; change the parallelism after the launch");
        }
        // Exclusive, as a collection: it waits for the running launches, keeps new ones out until
        // the new launcher is in place, and is refused inside a launch (a kernel's call would shut
        // down the pool its own launch runs on).
        phases.exclusive(() -> {
            checkOpen();
            Launcher old = launcher;
            launcher = old.withParallelism(threads);
            old.close();
        });
    }

    public int parallelism() {
        return launcher.parallelism();
    }

    /** Every active cell of {@code snode}, with a Kernel1..Kernel8 of {@code arity}. */
    public void forEach(SNode snode, Kernel kernel, int arity) {
        checkOwned(snode);
        Objects.requireNonNull(kernel, "kernel");
        inLaunch(() -> launcher.withSnapshot(snode, blocks -> {
            launcher.forEach(blocks, kernel, arity);
            return null;
        }));
    }

    /** Every active cell of {@code snode}, with a kernel of as many coordinates as it has. */
    public void forEach(SNode snode, Kernel kernel) {
        Objects.requireNonNull(kernel, "kernel");
        checkOwned(snode);
        forEach(snode, kernel, arity(kernel, snode.indexAxes().size()));
    }

    public <K extends Kernel> List<K> forEachPerTask(SNode snode, Supplier<K> kernels) {
        checkOwned(snode);
        Objects.requireNonNull(kernels, "kernels");
        K first = Objects.requireNonNull(kernels.get(), "the kernel supplier returned null");
        int arity = arity(first, snode.indexAxes().size());
        return inLaunch(() -> launcher.withSnapshot(snode,
                blocks -> launcher.forEachPerTask(blocks, first, kernels, arity)));
    }

    /** Makes the view drivers of a layout ({@code GeneratedLayout#viewDriver}). */
    @FunctionalInterface
    public interface ViewDrivers {
        Supplier<ViewDriver> of(Class<?> api, Class<?> kernelClass, SNode target, int arity);
    }

    /** Every active cell of {@code snode}, with a ViewKernel1..8 and a view of {@code api} per task. */
    public <T> void forEach(SNode snode, Class<T> api, ViewKernel<T> kernel, ViewDrivers drivers) {
        checkOwned(snode);
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(kernel, "kernel");
        int arity = arity(kernel, snode.indexAxes().size());
        Launcher.checkArity(snode, arity);
        Supplier<ViewDriver> views = drivers.of(api, kernel.getClass(), snode, arity);
        inLaunch(() -> launcher.withSnapshot(snode, blocks -> launcher.forEachView(blocks, kernel, null, views)));
    }

    /** As {@link #forEachPerTask(SNode, Supplier)}, with ViewKernels and a view of {@code api} per task. */
    public <T, K extends ViewKernel<T>> List<K> forEachPerTask(SNode snode, Class<T> api, Supplier<K> kernels,
                                                               ViewDrivers drivers) {
        checkOwned(snode);
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(kernels, "kernels");
        K first = Objects.requireNonNull(kernels.get(), "the kernel supplier returned null");
        int arity = arity(first, snode.indexAxes().size());
        Launcher.checkArity(snode, arity);
        Supplier<ViewDriver> views = drivers.of(api, first.getClass(), snode, arity);
        return inLaunch(() -> launcher.withSnapshot(snode,
                blocks -> launcher.forEachView(blocks, first, kernels, views)));
    }

    public void forEachBlock(SNode snode, BlockKernel kernel) {
        checkOwned(snode);
        Objects.requireNonNull(kernel, "kernel");
        Launcher.checkBlockTarget(snode);
        inLaunch(() -> launcher.withSnapshot(snode, blocks -> {
            launcher.forEachBlock(blocks, kernel);
            return null;
        }));
    }

    public <A> A reduceBlocks(SNode snode, Supplier<A> identity, BlockReducer<A> reducer, BinaryOperator<A> combiner) {
        checkOwned(snode);
        checkReduction(identity, reducer, combiner);
        Launcher.checkBlockTarget(snode);
        return inLaunch(() -> launcher.withSnapshot(snode,
                blocks -> launcher.reduceBlocks(blocks, identity, reducer, combiner)));
    }

    /** The active blocks of {@code snode} now, for a set the caller keeps ({@link SnapshotCache#keep}). */
    public ActiveBlocks keep(SNode snode) {
        checkOwned(snode);
        if (snode.kind() == NodeKind.ROOT) {
            throw new IllegalArgumentException("snode=root has one cell and no coordinates; read its fields directly");
        }
        return inLaunch(() -> launcher.snapshots().keep(snode));
    }

    /** Whether a kept set is current ({@link SnapshotCache#isCurrent}). */
    public boolean isCurrent(ActiveBlocks kept) {
        return !closed.get() && launcher.snapshots().isCurrent(kept);
    }

    /** The structure's epoch now, for the message about a stale kept set. */
    public long epoch() {
        return launcher.snapshots().epoch();
    }

    /**
     * {@link #forEach(SNode, Kernel)} over a kept set of {@code snode}; {@code kept} checks that it
     * is current, inside the launch.
     */
    public void forEach(SNode snode, Supplier<ActiveBlocks> kept, Kernel kernel) {
        Objects.requireNonNull(kernel, "kernel");
        int arity = arity(kernel, snode.indexAxes().size());
        inLaunch(() -> {
            launcher.forEach(kept.get(), kernel, arity);
            return null;
        });
    }

    /** {@link #forEachBlock(SNode, BlockKernel)} over a kept set of {@code snode}. */
    public void forEachBlock(Supplier<ActiveBlocks> kept, SNode snode, BlockKernel kernel) {
        Objects.requireNonNull(kernel, "kernel");
        Launcher.checkBlockTarget(snode);
        inLaunch(() -> {
            launcher.forEachBlock(kept.get(), kernel);
            return null;
        });
    }

    /** {@link #reduceBlocks(SNode, Supplier, BlockReducer, BinaryOperator)} over a kept set of {@code snode}. */
    public <A> A reduceBlocks(Supplier<ActiveBlocks> kept, SNode snode, Supplier<A> identity, BlockReducer<A> reducer,
                              BinaryOperator<A> combiner) {
        checkReduction(identity, reducer, combiner);
        Launcher.checkBlockTarget(snode);
        return inLaunch(() -> launcher.reduceBlocks(kept.get(), identity, reducer, combiner));
    }

    /**
     * One of {@link Reductions}' reductions ({@code Reductions::sum}, {@code ::min}, {@code ::max},
     * {@code ::count}) of {@code field} over its SNode's active cells, as a launch.
     */
    public <T> T reduce(String field, Reductions.Over<T> reduction) {
        PlacedField placed = layout.field(field);
        return inLaunch(() -> {
            Launcher current = launcher;
            return reduction.reduce(structure, placed, current.snapshots(), current.ranges());
        });
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
    public <T> T inLaunch(Supplier<T> body) {
        checkOpen();
        LongAdder deactivations = new LongAdder();
        LongAdder enclosing = structure.deactivationCounter();
        try (PhaseLock.Launch ignored = phases.enterLaunch()) {
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

    /** Collects now, between launches (the runtime's {@code gc()}). */
    public void gc() {
        checkOpen();
        phases.exclusive(() -> {
            checkOpen();
            runtime.collect();
        });
    }

    /**
     * Closes the runtime (idempotent): running launches skip the ranges they have not started,
     * the ranges running finish in the phase lock, then the memory is freed; {@code last} runs
     * after, also when freeing failed, on the call that closed.
     */
    public void close(Runnable last) {
        if (phases.inLaunchOnCurrentThread()) {
            throw new IllegalStateException("close() inside a launch of " + owner + " would wait for that launch "
                    + "forever; close the runtime after the launch");
        }
        if (phases.exclusiveOnCurrentThread()) {
            // Checked before the runtime is marked closed: the exclusive section below could not
            // be entered, and a runtime marked closed with its memory kept could never be freed.
            throw new IllegalStateException("close() inside a collection of " + owner + " (from its collector) "
                    + "would wait for that collection forever; close the runtime after it");
        }
        if (!closed.compareAndSet(false, true)) {
            // Another close is under way: it frees the memory. Waiting for it here could wait for
            // ever, where a running launch's kernel waits for this very thread.
            return;
        }
        Launcher current = launcher;
        current.beginClose();
        try {
            phases.exclusive(() -> {
                current.close();
                current.clearSnapshots();
                current.clearDrivers();
                runtime.close();
            });
        } finally {
            last.run();
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    public void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(owner + " is closed; compile the layout again for a new runtime");
        }
    }

    private IllegalStateException closedDuringLaunch(Throwable cause) {
        return new IllegalStateException(owner + " was closed during the launch: the ranges of blocks that had started "
                + "finished, the others were skipped", cause);
    }

    private static void checkReduction(Supplier<?> identity, BlockReducer<?> reducer, BinaryOperator<?> combiner) {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(reducer, "reducer");
        Objects.requireNonNull(combiner, "combiner");
    }

    /** The number of coordinates {@code kernel} takes: the N of the Kernel1..Kernel8 it implements. */
    private static final List<Class<?>> KERNELS = List.of(Kernel1.class, Kernel2.class, Kernel3.class, Kernel4.class,
            Kernel5.class, Kernel6.class, Kernel7.class, Kernel8.class);
    private static final List<Class<?>> VIEW_KERNELS = List.of(ViewKernel1.class, ViewKernel2.class, ViewKernel3.class,
            ViewKernel4.class, ViewKernel5.class, ViewKernel6.class, ViewKernel7.class, ViewKernel8.class);

    private static int arity(ViewKernel<?> kernel, int coordinates) {
        return arity(kernel, VIEW_KERNELS, "ViewKernel", coordinates);
    }

    private static int arity(Kernel kernel, int coordinates) {
        return arity(kernel, KERNELS, "Kernel", coordinates);
    }

    /**
     * The N of the {@code family}N that {@code kernel} implements, however its class does (directly,
     * through an interface that extends it, or through a superclass); of several, the one that
     * takes {@code coordinates} (the SNode's), else the only one, which the launch then refuses
     * when it does not fit.
     */
    private static int arity(Object kernel, List<Class<?>> kinds, String family, int coordinates) {
        Objects.requireNonNull(kernel, "kernel");
        int forms = 0; // bit n - 1: the kernel is a familyN
        for (int n = 1; n <= kinds.size(); n++) {
            if (kinds.get(n - 1).isInstance(kernel)) {
                forms |= 1 << (n - 1);
            }
        }
        if (coordinates >= 1 && coordinates <= kinds.size() && (forms & (1 << (coordinates - 1))) != 0) {
            return coordinates;
        }
        if (Integer.bitCount(forms) == 1) {
            return Integer.numberOfTrailingZeros(forms) + 1;
        }
        StringBuilder names = new StringBuilder();
        for (int n = 1; n <= kinds.size(); n++) {
            if ((forms & (1 << (n - 1))) != 0) {
                names.append(names.isEmpty() ? "" : ", ").append(family).append(n);
            }
        }
        throw new IllegalArgumentException("kernel=" + kernel.getClass().getName() + " implements "
                + (forms == 0 ? "none of " + family + "1.." + family + "8" : names)
                + "; the SNode has " + coordinates + " coordinates");
    }

    private void checkOwned(SNode snode) {
        Objects.requireNonNull(snode, "snode");
        if (snode.id() >= layout.snodes().size() || layout.snode(snode.id()) != snode) {
            throw Foreign.snode(snode, "this runtime's");
        }
    }
}
