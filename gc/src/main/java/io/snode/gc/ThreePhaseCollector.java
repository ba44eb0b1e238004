package io.snode.gc;

import io.snode.runtime.Collector;
import io.snode.runtime.internal.memory.NodeManager;
import java.util.List;

/**
 * A collector that runs Taichi's three GC phases on each node manager: (0) drain the thread
 * caches and compact the untaken tail of the free list to its head, (1) single-threaded
 * bookkeeping, (2) refill the free list from the recycled list and zero the recycled cells.
 * Put one into a runtime with {@code RuntimeOptions.withCollector(...)}.
 *
 * <p>Two implementations, which leave the same free-list multiset and the same memory:
 * {@link SerialCollector} (everything on the calling thread, free-list order kept, like
 * {@link NodeManager#collect()}) and {@link ParallelCollector} (fork/join, Taichi's
 * overlap-aware {@code gc_parallel_0}).
 *
 * <h2>Protocol</h2>
 * <b>Assumptions</b>: {@link #collect} runs only while nothing allocates, unallocates,
 * recycles or reads cells of the given managers (a {@link PhaseLock} held exclusively, or a
 * single-threaded caller); each manager appears once in the list.
 * <br><b>Guarantees</b>: when {@code collect} returns, for every manager: every cell recycled
 * before the call reads zero in all its bytes and is on the free list; every cell a thread cache
 * held is on the free list; the free list starts at entry 0 with cursor 0; the recycled list is
 * empty; cells in use are untouched. All managers are checked before any is changed: a manager
 * that is closed or has more free and recycled cells than cells makes the call throw
 * {@link IllegalStateException} with nothing changed. {@link #lastStatistics()} then describes the
 * call, and JFR events {@code io.snode.gc.Collection} (one) and {@code io.snode.gc.SNodeCollection}
 * (one per manager) are committed when enabled.
 * <br><b>Progress</b>: blocking; the calling thread waits for the worker threads of the phase.
 *
 * <p>Instances are thread-safe: concurrent {@code collect} calls on disjoint manager lists may
 * share one collector (statistics are then those of whichever finished last).
 */
public sealed interface ThreePhaseCollector extends Collector, AutoCloseable
        permits SerialCollector, ParallelCollector {

    /** A serial collector with {@link Vectorization#AUTO} kernels. */
    static SerialCollector serial() {
        return SerialCollector.create(Vectorization.AUTO);
    }

    /** A parallel collector with the default options (all available processors, {@link Vectorization#AUTO}). */
    static ParallelCollector parallel() {
        return ParallelCollector.builder().build();
    }

    @Override
    void collect(List<NodeManager> managers);

    /**
     * The statistics of the most recent completed collection, or {@link GcStatistics#NONE}: on a
     * collector shared by several runtimes, whichever's collection ended last.
     */
    GcStatistics lastStatistics();

    /**
     * Collects as {@link #collect} does and returns what this call did, whatever other callers
     * of a shared collector do meanwhile (an {@code SNodeRuntime} reports its own collections
     * so).
     */
    GcStatistics collectReporting(List<NodeManager> managers);

    /** Threads that may work on one phase. */
    int parallelism();

    /** The kernels in use: {@code "scalar"} or {@code "panama-<bits>"}. */
    String kernels();

    /**
     * Releases worker threads, if any; idempotent. A closed {@link ParallelCollector} throws
     * {@link IllegalStateException} from {@link #collect}; a {@link SerialCollector} has nothing to
     * release and stays usable.
     */
    @Override
    void close();
}
