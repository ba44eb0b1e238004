package io.snode.bench.workload;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One row of the runner's table and one record of its JSON: a workload on one structure, in one
 * way ({@code api}), with a number of threads, in one round. Times in seconds over the timed runs
 * (warm-up runs excluded); {@code items} is what {@code voxelsPerS} counts (voxels written or
 * read, cells visited, particles). Checksums and memory figures are null where a workload does
 * not define them. Serialised with snake_case names ({@code median_s}, {@code bytes_per_voxel},
 * ...).
 *
 * @param heldBytesBefore W4: committed bytes before the delete
 * @param heldBytesAfterDelete W4: after the delete and the reclaim
 * @param heldBytesAfter W4: after the rewrite
 * @param bytesPerVoxel after W1 (and W5): committed (held) bytes per active voxel
 * @param checks "ok", or which checksum differs from its reference value and by what
 * @param reservedBytesPerVoxel after W1: reserved bytes per active voxel (ours: address space
 *     the pool has mapped; the baselines: equal to held)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Result(String workload, String structure, int threads, String api, Integer round, int warmups,
        List<Double> timesS, double medianS, double minS, long items, double voxelsPerS, Double bytesPerVoxel,
        Double reservedBytesPerVoxel, Long n, Double sum, Long count, Long heldBytesBefore, Long heldBytesAfterDelete,
        Long heldBytesAfter, String checks, String note) {

    /** {@code checks} when every checksum equals its reference value. */
    public static final String OK = "ok";

    public Result {
        timesS = List.copyOf(timesS);
    }

    /** This result in round {@code number}. */
    public Result inRound(int number) {
        return new Result(workload, structure, threads, api, number, warmups, timesS, medianS, minS, items, voxelsPerS,
                bytesPerVoxel, reservedBytesPerVoxel, n, sum, count, heldBytesBefore, heldBytesAfterDelete,
                heldBytesAfter, checks, note);
    }

    /** Whether every checksum of this row equals its reference value ({@code checks} is "ok"). */
    public boolean checksumsOk() {
        return OK.equals(checks);
    }

    /** The key of this row across rounds: workload, structure, api, threads. */
    public String key() {
        return workload + "|" + structure + "|" + api + "|" + threads;
    }
}
