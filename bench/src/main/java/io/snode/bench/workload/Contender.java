package io.snode.bench.workload;

import java.util.List;

/**
 * A structure the workloads run on: one of our layouts (through the public API a user would
 * write) or a baseline a Java user would otherwise pick. It runs a workload in each way it
 * offers and returns one checked {@link Result} per way and thread count; a workload it does not
 * take part in gives an empty list. Everything a contender builds outside the timed bodies of
 * {@link Trials} is untimed.
 */
public interface Contender {
    /** The structure's name in the table and the JSON: L1, L2, hashmap, fastutil, dense, floors (or a layout text). */
    String structure();

    /** Whether a write activates the voxel or its whole 8^3 block (the count checksums depend on it). */
    DataSet.Activity activity();

    /** Runs {@code workload} in every way this structure offers; empty when it takes no part. */
    List<Result> run(Workload workload, Context context);

    /**
     * What a run needs: the data set, the timing, and the thread counts of W5 (1 and all cores).
     */
    record Context(DataSet data, Trials trials, List<Integer> threadCounts) {
        public Context {
            threadCounts = List.copyOf(threadCounts);
        }
    }
}
