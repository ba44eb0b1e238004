package io.snode.codegen.internal;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.Kernel;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Structure;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs struct-for launches: takes the snapshot of active blocks, then calls the kernel's
 * generated driver on every block, in parallel over a fork/join pool (blocks split in halves
 * until a task holds about {@link #GRAIN_CELLS} active cells, so tiny and huge active sets both
 * balance) or on the calling thread when the parallelism is 1. The first exception stops the
 * launch: tasks that have not started a block skip the rest, and the caller gets it.
 */
public final class Launcher implements AutoCloseable {
    /** Active cells per fork/join leaf task, about 16 blocks of 8^3. */
    static final long GRAIN_CELLS = 8192;
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final MethodType DRIVER = MethodType.methodType(void.class, Kernel.class, int[].class,
            long[].class, long.class);

    private final Structure structure;
    private final ForkJoinPool pool;
    private final int parallelism;
    private final Map<List<Object>, MethodHandle> drivers = new ConcurrentHashMap<>();
    private final Consumer<io.snode.codegen.GeneratedClass> listing;

    /**
     * @param listing receives every driver class before it is defined: the runtime verifies and
     *                dumps it when its switches say so, and lists it
     */
    public Launcher(Structure structure, int parallelism, Consumer<io.snode.codegen.GeneratedClass> listing) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be at least 1");
        }
        this.structure = structure;
        this.parallelism = parallelism;
        this.listing = listing;
        this.pool = parallelism == 1 ? null : new ForkJoinPool(parallelism);
    }

    public int parallelism() {
        return parallelism;
    }

    /** Calls {@code kernel} (a Kernel1..Kernel8 of {@code arity}) on every active cell of {@code target}. */
    public void forEach(SNode target, Kernel kernel, int arity) {
        if (arity != target.indexAxes().size()) {
            throw new IllegalArgumentException("snode=" + target.path() + " has " + target.indexAxes().size()
                    + " coordinates " + target.indexAxes() + "; the kernel takes " + arity);
        }
        MethodHandle driver = drivers.computeIfAbsent(List.of(kernel.getClass(), target), key -> define(target, arity));
        List<ActiveBlocks.Block> blocks = ActiveBlocks.of(structure, target);
        run(blocks, block -> {
            try {
                driver.invokeExact(kernel, block.base(), block.mask(), block.length());
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new KernelException(target.path(), block.base(), e);
            }
        });
    }

    /** Calls {@code kernel} once per active block of a dense or bitmasked {@code target}. */
    public void forEachBlock(SNode target, BlockKernel kernel) {
        if (target.kind() != NodeKind.DENSE && target.kind() != NodeKind.BITMASKED) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + "; the block form needs a dense or bitmasked node (its cells are one block of memory)");
        }
        SNodePlan plan = structure.plan().node(target);
        long[] fieldOffsets = new long[target.fields().size()];
        for (int slot = 0; slot < fieldOffsets.length; slot++) {
            fieldOffsets[slot] = plan.fieldOffset(slot);
        }
        int[] sizes = sizesByIndexAxis(target);
        run(ActiveBlocks.of(structure, target), block -> {
            int[] origin = block.base().clone();
            for (int n = 0; n < origin.length; n++) {
                origin[n] *= sizes[n];
            }
            MemorySegment cells = block.segment().asSlice(block.container() + plan.cellsOffset(),
                    plan.cellCount() * plan.cellBytes());
            try {
                kernel.apply(new LeafBlock(target, origin, cells, plan.cellBytes(), block.mask(), fieldOffsets));
            } catch (KernelException e) {
                throw e;
            } catch (RuntimeException | Error e) {
                throw new KernelException(target.path(), origin, e);
            }
        });
    }

    /** The target's size on each of its index axes (1 where it does not consume the axis). */
    static int[] sizesByIndexAxis(SNode target) {
        int[] sizes = new int[target.indexAxes().size()];
        for (int n = 0; n < sizes.length; n++) {
            sizes[n] = target.size(target.indexAxes().get(n));
        }
        return sizes;
    }

    private void run(List<ActiveBlocks.Block> blocks, Consumer<ActiveBlocks.Block> body) {
        if (blocks.isEmpty()) {
            return;
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        if (pool == null) {
            for (ActiveBlocks.Block block : blocks) {
                body.accept(block);
            }
            return;
        }
        long[] prefix = new long[blocks.size() + 1];
        for (int n = 0; n < blocks.size(); n++) {
            prefix[n + 1] = prefix[n] + Math.max(1, blocks.get(n).activeCells());
        }
        pool.invoke(new Task(blocks, prefix, 0, blocks.size(), body, failure));
        Throwable thrown = failure.get();
        if (thrown instanceof RuntimeException e) {
            throw e;
        }
        if (thrown instanceof Error e) {
            throw e;
        }
    }

    /** Blocks [from, to), split at the middle of their active cells until small enough. */
    private static final class Task extends RecursiveAction {
        private final List<ActiveBlocks.Block> blocks;
        private final long[] prefix;
        private final int from;
        private final int to;
        private final Consumer<ActiveBlocks.Block> body;
        private final AtomicReference<Throwable> failure;

        Task(List<ActiveBlocks.Block> blocks, long[] prefix, int from, int to, Consumer<ActiveBlocks.Block> body,
             AtomicReference<Throwable> failure) {
            this.blocks = blocks;
            this.prefix = prefix;
            this.from = from;
            this.to = to;
            this.body = body;
            this.failure = failure;
        }

        @Override
        protected void compute() {
            if (to - from > 1 && prefix[to] - prefix[from] > GRAIN_CELLS) {
                long middle = (prefix[from] + prefix[to]) / 2;
                int split = from + 1;
                while (split < to - 1 && prefix[split] < middle) {
                    split++;
                }
                invokeAll(new Task(blocks, prefix, from, split, body, failure),
                        new Task(blocks, prefix, split, to, body, failure));
                return;
            }
            for (int n = from; n < to && failure.get() == null; n++) {
                try {
                    body.accept(blocks.get(n));
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                }
            }
        }
    }

    private MethodHandle define(SNode target, int arity) {
        String name = "io/snode/codegen/generated/Driver" + SEQUENCE.incrementAndGet();
        byte[] bytes = DriverEmitter.emit(name, structure.plan().node(target), arity);
        listing.accept(new io.snode.codegen.GeneratedClass(name, bytes, structure.plan().node(target).toString()));
        try {
            MethodHandles.Lookup hidden = Anchor.lookup().defineHiddenClass(bytes, true,
                    MethodHandles.Lookup.ClassOption.NESTMATE);
            Class<?> kernelType = Class.forName("io.snode.codegen.kernel.Kernel" + arity);
            return hidden.findStatic(hidden.lookupClass(), "run",
                    MethodType.methodType(void.class, kernelType, int[].class, long[].class, long.class)).asType(DRIVER);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define the struct-for driver of " + target.path(), e);
        }
    }

    /** The fork/join pool of parallel launches, or null when the parallelism is 1. */
    public ForkJoinPool pool() {
        return pool;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
