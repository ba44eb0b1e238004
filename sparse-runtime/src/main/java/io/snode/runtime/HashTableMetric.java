package io.snode.runtime;

/**
 * The tables of one hash SNode at one moment, as {@link MemoryStats} hands them out (its cells
 * are counted by its node manager, as a pointer node's are). Exact when no thread activates,
 * deactivates or collects on that SNode meanwhile.
 *
 * @param tables       tables held: one per container in use, plus those waiting for a collection
 * @param bytes        their bytes ({@link HashHeader#tableBytes} each)
 * @param entries      entries of the tables in use (their capacities summed)
 * @param liveEntries  entries of the tables in use whose cell is active
 * @param retired      tables that a resize replaced or a release dropped, freed by the next
 *                     collection (readers on other threads may still probe them until then)
 * @param retiredBytes their bytes
 * @param freed        retired tables freed by collections so far
 */
public record HashTableMetric(long tables, long bytes, long entries, long liveEntries, long retired,
                              long retiredBytes, long freed) {
    /** Live entries per entry of the tables in use: at most 0.5 (the load bound); 0 with no table. */
    public double load() {
        return entries == 0 ? 0 : (double) liveEntries / entries;
    }
}
