package io.snode.runtime;

/**
 * The counters of one SNode's node manager (the allocator of a pointer's child cells, a dynamic
 * node's element chunks or its directory blocks) at one moment, as {@link MemoryStats} hands
 * them out. Exact when no thread allocates, deactivates or collects on that SNode meanwhile
 * (for example between launches).
 *
 * <p>Always {@code cellsAllocated() == cellsInUse() + cellsFree() + cellsRecycled()}, and
 * {@code cellsFree() == (freeListLength() - freeListCursor()) + cellsCached()}.
 */
public interface NodeManagerMetric {
    /** The SNode path the manager's memory is charged to. */
    String ownerName();

    /** Bytes per cell (its size rounded up to its alignment). */
    long cellStride();

    /** Cells that have memory: the data list's length (Taichi's data list size). */
    long cellsAllocated();

    /** Cells handed out and neither deactivated nor returned. */
    long cellsInUse();

    /** Cells ready to be handed out: untaken free-list entries plus per-thread caches. */
    long cellsFree();

    /** The part of {@link #cellsFree()} held by per-thread caches. */
    long cellsCached();

    /** Cells deactivated since the last collection (their memory waits for it). */
    long cellsRecycled();

    /** Entries in the free list, taken or not. */
    long freeListLength();

    /** Entries of the free list already taken. */
    long freeListCursor();

    /** Chunks held by the data, free and recycled lists together. */
    int chunks();

    /** Bytes of those chunks. */
    long bytesReserved();

    /** The part of {@link #bytesReserved()} held by the data list (the cells). */
    long cellBytesReserved();
}
