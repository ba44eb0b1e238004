package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a {@link Result} from a timing, then checks its checksums against the data set's
 * reference values for the structure's activity: W1s, W1r, W4 and W5 read back N voxels and the
 * value sum (and, where given, the active cells); W2 the read sum; W3 the count of active cells
 * and the value sum; W6v the particles, the id sum and the non-empty blocks. Sums are compared
 * exactly (every sum is exact in double, so any order gives it).
 */
public final class Row {
    private final Workload workload;
    private final String structure;
    private final int threads;
    private final String api;
    private final List<Double> seconds;
    private final double median;
    private final double min;
    private final long items;
    private final int warmups;
    private Long n;
    private Double sum;
    private Long count;
    private Double bytesPerVoxel;
    private Double reservedBytesPerVoxel;
    private Long heldBefore;
    private Long heldAfterDelete;
    private Long heldAfter;
    private String note;

    private Row(Workload workload, String structure, int threads, String api, List<Double> seconds, double median,
            double min, long items, int warmups) {
        this.workload = workload;
        this.structure = structure;
        this.threads = threads;
        this.api = api;
        this.seconds = List.copyOf(seconds);
        this.median = median;
        this.min = min;
        this.items = items;
        this.warmups = warmups;
    }

    /** A row of {@code timed}, whose runs each handled {@code items} voxels, reads, cells or particles. */
    public static Row of(Workload workload, Contender contender, int threads, String api, Trials.Timed<?> timed,
            long items) {
        return new Row(workload, contender.structure(), threads, api, timed.seconds(), timed.median(), timed.min(),
                items, timed.warmups());
    }

    /** A row of times measured elsewhere (a peer's harness prints only its median and minimum). */
    public static Row measured(Workload workload, String structure, int threads, String api, int warmups, double median,
            double min, long items) {
        return new Row(workload, structure, threads, api, List.of(), median, min, items, warmups);
    }

    /** The checksums: voxels read back (or particles), the value sum, the active cells (or blocks); null where undefined. */
    public Row checksums(Long n, Double sum, Long count) {
        this.n = n;
        this.sum = sum;
        this.count = count;
        return this;
    }

    /** Held (committed) and reserved bytes after a build of {@code voxels} voxels. */
    public Row memory(long held, long reserved, long voxels) {
        this.bytesPerVoxel = (double) held / voxels;
        this.reservedBytesPerVoxel = (double) reserved / voxels;
        return this;
    }

    /** W4's held bytes before the delete, after the delete and reclaim, after the rewrite. */
    public Row held(long before, long afterDelete, long after) {
        this.heldBefore = before;
        this.heldAfterDelete = afterDelete;
        this.heldAfter = after;
        return this;
    }

    public Row note(String text) {
        this.note = text;
        return this;
    }

    /** The result, with its checks against {@code references} for {@code activity}. */
    public Result check(DataSet.References references, DataSet.Activity activity) {
        List<String> wrong = new ArrayList<>();
        switch (workload) {
            case W1S, W1R, W4, W5 -> {
                expect(wrong, "n", n, references.voxels());
                expect(wrong, "sum", sum, references.valueSum());
                if (count != null) {
                    expect(wrong, "count", count, references.activeCells(activity));
                }
            }
            case W2 -> expect(wrong, "sum", sum, references.readSum());
            case W3 -> {
                expect(wrong, "count", count, references.activeCells(activity));
                expect(wrong, "sum", sum, references.valueSum());
            }
            case W6V -> {
                expect(wrong, "n", n, references.particles());
                expect(wrong, "sum", sum, (double) references.particleIdSum());
                expect(wrong, "count", count, references.particleBlocks());
            }
            case W6 -> {
                if (n != null) {
                    expect(wrong, "n", n, references.particles());
                }
            }
        }
        String checks = wrong.isEmpty() ? Result.OK : String.join("; ", wrong);
        return new Result(workload.id(), structure, threads, api, null, warmups, seconds, median, min,
                items, items / median, bytesPerVoxel, reservedBytesPerVoxel, n, sum, count, heldBefore,
                heldAfterDelete, heldAfter, checks, note);
    }

    private static void expect(List<String> wrong, String name, Object actual, Object expected) {
        if (!Objects.equals(actual, expected)) {
            wrong.add(name + " " + (actual instanceof Double d ? NarrowBand.decimal12(d) : actual) + " (expected "
                    + (expected instanceof Double d ? NarrowBand.decimal12(d) : expected) + ")");
        }
    }
}
