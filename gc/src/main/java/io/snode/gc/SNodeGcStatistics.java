package io.snode.gc;

/**
 * What one collection did to one node manager (one SNode's cells, or a dynamic SNode's
 * directory blocks).
 *
 * @param ownerName          the manager's pool owner: the SNode's path (plus {@code " directory"}
 *                           for a dynamic SNode's directory blocks)
 * @param cellStride         bytes per cell
 * @param cellsReclaimed     recycled cells zeroed and moved to the free list (phase 2)
 * @param bytesZeroed        {@code cellsReclaimed * cellStride}
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

    /** Time of the three phases together. */
    public long totalNanos() {
        return phase0Nanos + phase1Nanos + phase2Nanos;
    }
}
