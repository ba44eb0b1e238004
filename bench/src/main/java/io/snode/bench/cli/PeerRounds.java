package io.snode.bench.cli;

import io.snode.bench.peer.OpenVdbOutput;
import io.snode.bench.peer.OpenVdbOutput.Counterpart;
import io.snode.bench.peer.OpenVdbPeer;
import io.snode.bench.report.RatioChart;
import io.snode.bench.workload.BenchReport;
import io.snode.bench.workload.DataSet;
import io.snode.bench.workload.Result;
import io.snode.bench.workload.Row;
import io.snode.bench.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Consumer;

/**
 * The bench command's side of OpenVDB: one whole harness run per round through
 * {@link OpenVdbPeer}, turned into rows of structure {@code openvdb} (the harness's counterpart of
 * each workload, its median and minimum, its checksums checked against WORKLOADS.md's values for
 * per-voxel activity, its memory figures), and the ratio chart.
 */
final class PeerRounds {
    private PeerRounds() {
    }

    /**
     * Runs the harness once; its rows for round {@code round}, or empty when it cannot run here
     * (the reason goes to {@code err}, and the bench goes on without OpenVDB).
     */
    static Optional<List<Result>> run(Path harness, int round, int runs, PrintWriter err, Consumer<String> progress) {
        err.println("snode bench: round " + round + ": OpenVDB harness in " + harness + " (" + runs
                + " timed runs per workload; about 1 to 3 minutes, more when it installs its packages)");
        err.flush();
        OpenVdbPeer.Result result = new OpenVdbPeer(harness).run(runs, line -> {
            if (line.startsWith("  [")) {
                progress.accept("openvdb " + line.strip());
            }
        });
        if (result instanceof OpenVdbPeer.Unavailable unavailable) {
            err.println("snode bench: OpenVDB not run: " + unavailable.reason() + "; going on without it");
            err.flush();
            return Optional.empty();
        }
        OpenVdbOutput output = ((OpenVdbPeer.Measured) result).output();
        List<Result> rows = new ArrayList<>();
        for (Result row : rows(output)) {
            rows.add(row.inRound(round));
        }
        return Optional.of(rows);
    }

    /** OpenVDB's rows for our workloads, checked against the reference values. */
    static List<Result> rows(OpenVdbOutput output) {
        DataSet.References reference = DataSet.References.DOCUMENTED;
        int all = output.header().map(OpenVdbOutput.Header::hardwareThreads).orElse(1);
        int warmups = 1;
        List<Result> rows = new ArrayList<>();
        String harnessChecks = output.checksPassed() ? null : "the harness's own checks failed: " + output.failedChecks();
        output.counterpart(Counterpart.W1S).ifPresent(r -> rows.add(row(Workload.W1S, 1, r.variant(), r, warmups,
                reference.voxels())
                .checksums(output.w1s().map(OpenVdbOutput.CountSum::count).orElse(null),
                        output.w1s().map(OpenVdbOutput.CountSum::sum).orElse(null),
                        output.w1s().map(OpenVdbOutput.CountSum::count).orElse(null))
                .memory(output.memUsageAfterW1s().orElse(0), output.memUsageAfterW1s().orElse(0), reference.voxels())
                .note(harnessChecks)
                .check(reference, DataSet.Activity.VOXEL)));
        output.counterpart(Counterpart.W1R).ifPresent(r -> rows.add(row(Workload.W1R, 1, r.variant(), r, warmups,
                reference.voxels())
                .checksums(output.w1r().map(OpenVdbOutput.CountSum::count).orElse(null),
                        output.w1r().map(OpenVdbOutput.CountSum::sum).orElse(null), null)
                .check(reference, DataSet.Activity.VOXEL)));
        output.counterpart(Counterpart.W2).ifPresent(r -> rows.add(row(Workload.W2, 1, r.variant(), r, warmups,
                DataSet.READS)
                .checksums((long) DataSet.READS, output.w2Sum().isPresent() ? output.w2Sum().getAsDouble() : null, null)
                .check(reference, DataSet.Activity.VOXEL)));
        for (Counterpart w3 : List.of(Counterpart.W3_BLOCK, Counterpart.W3_PER_CELL)) {
            String kind = w3 == Counterpart.W3_BLOCK ? "best leaf loop: " : "per cell: ";
            output.counterpart(w3).ifPresent(r -> rows.add(row(Workload.W3, 1, kind + r.variant(), r, warmups,
                    reference.voxels())
                    .checksums(null, output.w3().map(OpenVdbOutput.CountSum::sum).orElse(null),
                            output.w3().map(OpenVdbOutput.CountSum::count).orElse(null))
                    .check(reference, DataSet.Activity.VOXEL)));
        }
        output.counterpart(Counterpart.W4).ifPresent(r -> {
            Row w4 = row(Workload.W4, 1, r.variant(), r, warmups, reference.lowVoxels())
                    .checksums(output.w4().map(OpenVdbOutput.CountSum::count).orElse(null),
                            output.w4().map(OpenVdbOutput.CountSum::sum).orElse(null), null);
            output.w4Memory().ifPresent(m -> w4.held(m.before(), m.afterDelete(), m.afterRewrite()));
            rows.add(w4.check(reference, DataSet.Activity.VOXEL));
        });
        Map<Counterpart, Integer> w5 = new LinkedHashMap<>();
        w5.put(Counterpart.W5_ONE_THREAD, 1);
        if (all > 1) {
            w5.put(Counterpart.W5_ALL_THREADS, all);
        }
        w5.forEach((key, threads) -> output.counterpart(key).ifPresent(r -> {
            OpenVdbOutput.CountSum sums = output.w5().get(r.variant());
            rows.add(row(Workload.W5, threads, r.variant(), r, warmups, reference.voxels())
                    .checksums(sums == null ? null : sums.count(), sums == null ? null : sums.sum(), null)
                    .check(reference, DataSet.Activity.VOXEL));
        }));
        Optional<OpenVdbOutput.W6Check> w6 = output.w6().stream().filter(c -> c.threads() == 1).findFirst();
        output.counterpart(Counterpart.W6_APPEND_ONE_THREAD).ifPresent(r -> rows.add(row(Workload.W6, 1, r.variant(),
                r, warmups, reference.particles())
                .checksums(w6.map(OpenVdbOutput.W6Check::count).orElse(null), null, null)
                .check(reference, DataSet.Activity.VOXEL)));
        output.counterpart(Counterpart.W6_VISIT_ONE_THREAD).ifPresent(r -> rows.add(row(Workload.W6V, 1, r.variant(),
                r, warmups, reference.particles())
                .checksums(w6.map(OpenVdbOutput.W6Check::count).orElse(null),
                        w6.map(c -> (double) c.idSum()).orElse(null),
                        w6.map(OpenVdbOutput.W6Check::nonEmptyBlocks).orElse(null))
                .check(reference, DataSet.Activity.VOXEL)));
        return rows;
    }

    private static Row row(Workload workload, int threads, String api, OpenVdbOutput.Row row, int warmups, long items) {
        return Row.measured(workload, BenchReport.OPENVDB, threads, api, warmups, row.medianSeconds(),
                row.minSeconds(), items);
    }

    /**
     * The chart of ratios against OpenVDB, or against {@code hashmap} where no row has an OpenVDB
     * ratio: one bar per workload and structure, the structure's fastest way (W5 one group per
     * thread count).
     */
    static String chart(BenchReport report, Path file) throws IOException {
        boolean vdb = report.rows().stream().anyMatch(r -> r.vsOpenVdb().isPresent());
        Map<String, RatioChart.Bar> best = new LinkedHashMap<>();
        for (Workload workload : Workload.values()) {
            for (BenchReport.Row row : report.rows()) {
                Result r = row.first();
                OptionalDouble ratio = vdb ? row.vsOpenVdb() : row.vsHashmap();
                if (!r.workload().equals(workload.id()) || ratio.isEmpty() || !(ratio.getAsDouble() > 0)) {
                    continue;
                }
                String group = workload == Workload.W5 ? r.workload() + " T=" + r.threads() : r.workload();
                String key = group + "|" + r.structure();
                RatioChart.Bar bar = new RatioChart.Bar(group, report.label(r.structure()), ratio.getAsDouble());
                best.merge(key, bar, (a, b) -> a.ratio() <= b.ratio() ? a : b);
            }
        }
        String baseline = vdb ? "OpenVDB" : "HashMap";
        if (best.isEmpty()) {
            throw new SnodeCli.BadInputException("--chart: no ratio to draw (no " + baseline
                    + " row to compare with; run with the hashmap structure or OpenVDB)");
        }
        RatioChart.write(new ArrayList<>(best.values()), baseline, file);
        return baseline;
    }
}
