package io.snode.gc;

import io.snode.gc.internal.ManagerCollection;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.memory.NodeManager;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The three phases with phases 0 and 2 split between the calling thread and a
 * {@link ForkJoinPool} of its own ({@code parallelism - 1} daemon threads named
 * {@code snode-gc-N}); phase 1 runs on the calling thread. Compaction is Taichi's overlap-aware
 * {@code gc_parallel_0}, and large batches of recycled cells are sorted by index before they are
 * appended ({@link Builder#sortRecycledAtLeast}), so the free entries end up as the same
 * multiset as with {@link SerialCollector}, not always in the same order. A phase too small to
 * be worth splitting ({@link Builder#copyGrain}, {@link Builder#zeroGrainBytes}) runs on the
 * calling thread alone. See {@link ThreePhaseCollector} for the protocol.
 */
public final class ParallelCollector implements ThreePhaseCollector {

    /** Default fewest free-list entries per compaction task: 64 Ki entries, 256 KiB. */
    public static final long DEFAULT_COPY_GRAIN = 64 * 1024;
    /** Default fewest bytes of cells per zeroing task. */
    public static final long DEFAULT_ZERO_GRAIN_BYTES = 512 * 1024;

    /** Default fewest recycled cells of one node manager that are sorted before refill and zero. */
    public static final long DEFAULT_SORT_AT_LEAST = 4096;

    private final ForkJoinPool pool;
    private final CollectionDriver driver;
    private final int parallelism;
    private volatile boolean closed;

    private ParallelCollector(Builder b) {
        this.parallelism = b.parallelism;
        // The calling thread works too, so the pool has one thread fewer than the parallelism.
        this.pool = parallelism > 1 ? new ForkJoinPool(parallelism - 1, ParallelCollector::newThread, null, false) : null;
        TaskRunner runner = pool == null ? TaskRunner.inline() : TaskRunner.forkJoin(pool);
        this.driver = new CollectionDriver("parallel", CollectionDriver.kernels(b.vectorization), runner,
                ManagerCollection.Compaction.OVERLAP_AWARE, b.copyGrain, b.zeroGrainBytes, b.sortAtLeast);
    }

    private static ForkJoinWorkerThread newThread(ForkJoinPool pool) {
        ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
        thread.setName("snode-gc-" + thread.getPoolIndex());
        thread.setDaemon(true);
        return thread;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * @throws IllegalStateException if this collector is closed (see also {@link ThreePhaseCollector#collect})
     */
    @Override
    public void collect(List<NodeManager> managers) {
        collectReporting(managers);
    }

    @Override
    public GcStatistics collectReporting(List<NodeManager> managers) {
        if (closed) {
            throw new IllegalStateException("this ParallelCollector is closed");
        }
        return driver.collect(managers);
    }

    @Override
    public GcStatistics lastStatistics() {
        return driver.lastStatistics();
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public String kernels() {
        return driver.kernels();
    }

    /**
     * Shuts the worker pool down. A collection running at the same time still completes (on the
     * calling thread alone once no worker accepts work); later ones throw.
     */
    @Override
    public void close() {
        closed = true;
        if (pool != null) {
            pool.shutdown();
        }
    }

    @Override
    public String toString() {
        return "ParallelCollector[parallelism=" + parallelism + ", kernels=" + kernels() + (closed ? ", closed" : "") + "]";
    }

    /** Options of a {@link ParallelCollector}; every setter checks its argument. */
    public static final class Builder {
        private int parallelism = Runtime.getRuntime().availableProcessors();
        private Vectorization vectorization = Vectorization.AUTO;
        private long copyGrain = DEFAULT_COPY_GRAIN;
        private long zeroGrainBytes = DEFAULT_ZERO_GRAIN_BYTES;
        private long sortAtLeast = DEFAULT_SORT_AT_LEAST;

        private Builder() {
        }

        /** Worker threads, 1 to 32767; default {@link Runtime#availableProcessors()}. 1 runs on the caller. */
        public Builder parallelism(int parallelism) {
            if (parallelism < 1 || parallelism > 0x7fff) {
                throw new IllegalArgumentException("parallelism=" + parallelism + " (must be in [1, 32767])");
            }
            this.parallelism = parallelism;
            return this;
        }

        public Builder vectorization(Vectorization vectorization) {
            this.vectorization = java.util.Objects.requireNonNull(vectorization, "vectorization");
            return this;
        }

        /** Fewest free-list entries worth a compaction task of their own; positive. */
        public Builder copyGrain(long entries) {
            if (entries < 1) {
                throw new IllegalArgumentException("copyGrain=" + entries + " (must be positive)");
            }
            this.copyGrain = entries;
            return this;
        }

        /** Fewest bytes of cells worth a zeroing task of their own; positive (a task has at least one cell). */
        public Builder zeroGrainBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("zeroGrainBytes=" + bytes + " (must be positive)");
            }
            this.zeroGrainBytes = bytes;
            return this;
        }

        /**
         * From how many recycled cells of one node manager on they are sorted by index before phase
         * 2 appends and zeroes them (an {@code O(R)} radix sort): zeroing then walks memory forwards,
         * which measured about twice as fast as random order for 2 KiB cells scattered over a
         * region larger than the caches, and later allocations hand cells out in memory order.
         * Below it, recycling order is kept (Taichi's). {@link Long#MAX_VALUE} never sorts.
         * Positive; default {@link #DEFAULT_SORT_AT_LEAST}.
         */
        public Builder sortRecycledAtLeast(long cells) {
            if (cells < 1) {
                throw new IllegalArgumentException("sortRecycledAtLeast=" + cells + " (must be positive)");
            }
            this.sortAtLeast = cells;
            return this;
        }

        /**
         * @throws IllegalStateException for {@link Vectorization#VECTOR} when the Vector API is unavailable
         */
        public ParallelCollector build() {
            return new ParallelCollector(this);
        }
    }
}
