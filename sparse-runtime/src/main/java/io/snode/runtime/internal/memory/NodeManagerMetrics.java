package io.snode.runtime.internal.memory;

import io.snode.runtime.NodeManagerMetric;

/**
 * A {@link NodeManager}'s counters at one moment. Internal, for the runtime, the collector and
 * their tests: users read them as {@link io.snode.runtime.NodeManagerMetric} (through
 * {@link io.snode.runtime.MemoryStats}), which documents each counter. Exact when no thread allocates, unallocates or
 * recycles on that manager concurrently (for example between launches).
 *
 * <p>Always {@code cellsAllocated == cellsInUse + cellsFree + cellsRecycled}, and
 * {@code cellsFree == (freeListLength - freeListCursor) + cellsCached}.
 *
 * @param ownerName         the SNode path the manager's memory is charged to
 * @param cellStride        bytes per cell (size rounded up to its alignment)
 * @param cellsAllocated    cells that have memory: the data list's length (Taichi's data list size)
 * @param cellsInUse        cells handed out by {@code allocate()} and neither recycled nor unallocated
 * @param cellsFree         cells ready to be handed out: untaken free-list entries plus thread caches
 * @param cellsCached       the part of {@code cellsFree} held by per-thread caches
 * @param cellsRecycled     cells recycled since the last collection (their memory waits for it)
 * @param freeListLength    entries in the free list, taken or not
 * @param freeListCursor    entries of the free list already taken
 * @param chunks            chunks held by the data, free and recycled lists together
 * @param bytesReserved     bytes of those chunks
 * @param cellBytesReserved the part of {@code bytesReserved} held by the data list (the cells)
 */
public record NodeManagerMetrics(
        String ownerName,
        long cellStride,
        long cellsAllocated,
        long cellsInUse,
        long cellsFree,
        long cellsCached,
        long cellsRecycled,
        long freeListLength,
        long freeListCursor,
        int chunks,
        long bytesReserved,
        long cellBytesReserved) implements NodeManagerMetric {
}
