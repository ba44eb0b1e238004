package io.snode.gc;

import java.util.Objects;

/**
 * What one collection did to one node manager (one SNode's cells, or a dynamic SNode's
 * directory blocks).
 *
 * @param ownerName          the manager's pool owner: the SNode's path (plus {@code " directory"}
 *                           for a dynamic SNode's directory blocks, {@code " tables (N)"} for a
 *                           hash SNode's small tables of N entries, which node managers of their
 *                           own hold and {@code memoryStats()} counts in the SNode's
 *                           {@code HashTableMetric}, not in its cells)
 * @param cellStride         bytes per cell
 * @param cellsReclaimed     recycled cells zeroed and moved to the free list (phase 2)
 * @param bytesZeroed        {@code cellsReclaimed * cellStride}: the bytes of the reclaimed
 *                           cells, which read zero afterwards; not what was written to make
 *                           them so (pages of large cells that read zero are skipped, pages
 *                           given back with {@code withFreePageRelease} are not written)
 * @param cachedCellsDrained free cells taken back from thread caches before phase 0
 * @param freeEntriesMoved   free-list entries copied by phase 0 (compaction)
 * @param freeCellsAfter     free-list length after the collection (cursor 0)
 * @param phase0Nanos        draining the thread caches and compacting the free list
 * @param phase1Nanos        bookkeeping
 * @param phase2Nanos        refilling the free list and zeroing
 */
public record SNodeGcStatistics(
        String ownerName,
        long cellStride,
        long cellsReclaimed,
        long bytesZeroed,
        long cachedCellsDrained,
        long freeEntriesMoved,
        long freeCellsAfter,
        long phase0Nanos,
        long phase1Nanos,
        long phase2Nanos) {

    public SNodeGcStatistics {
        Objects.requireNonNull(ownerName, "ownerName");
    }

    /** Time of the three phases together. */
    public long totalNanos() {
        return phase0Nanos + phase1Nanos + phase2Nanos;
    }
}
