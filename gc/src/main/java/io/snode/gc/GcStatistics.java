package io.snode.gc;

import java.util.List;
import java.util.Objects;

/**
 * One collection, as seen by a {@link ThreePhaseCollector}: per node manager statistics in the
 * order the managers were given, and totals. Immutable.
 *
 * @param sequence    1 for the collector's first collection, then 2, 3, ...; 0 for {@link #NONE}
 * @param parallelism threads that could work on a phase (1 for the serial collector)
 * @param kernels     the {@link Vectorization} kernels in use, e.g. {@code "panama-512"} or {@code "scalar"}
 * @param totalNanos  wall time of the whole collection, validation included
 * @param snodes      one entry per node manager
 */
public record GcStatistics(long sequence, int parallelism, String kernels, long totalNanos,
                           List<SNodeGcStatistics> snodes) {

    /** What {@link ThreePhaseCollector#lastStatistics()} returns before the first collection. */
    public static final GcStatistics NONE = new GcStatistics(0, 1, "none", 0, List.of());

    public GcStatistics {
        Objects.requireNonNull(kernels, "kernels");
        snodes = List.copyOf(Objects.requireNonNull(snodes, "snodes"));
    }

    public long cellsReclaimed() {
        return snodes.stream().mapToLong(SNodeGcStatistics::cellsReclaimed).sum();
    }

    public long bytesZeroed() {
        return snodes.stream().mapToLong(SNodeGcStatistics::bytesZeroed).sum();
    }

    public long phase0Nanos() {
        return snodes.stream().mapToLong(SNodeGcStatistics::phase0Nanos).sum();
    }

    public long phase1Nanos() {
        return snodes.stream().mapToLong(SNodeGcStatistics::phase1Nanos).sum();
    }

    public long phase2Nanos() {
        return snodes.stream().mapToLong(SNodeGcStatistics::phase2Nanos).sum();
    }

    /**
     * The statistics of the manager charged to {@code ownerName} (an SNode path).
     *
     * @throws NullPointerException     when {@code ownerName} is null (the message is {@code ownerName})
     * @throws IllegalArgumentException if no manager of that name was collected
     */
    public SNodeGcStatistics of(String ownerName) {
        Objects.requireNonNull(ownerName, "ownerName");
        for (SNodeGcStatistics s : snodes) {
            if (s.ownerName().equals(ownerName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("ownerName=" + ownerName + " was not collected (collected: "
                + snodes.stream().map(SNodeGcStatistics::ownerName).toList() + ")");
    }
}
