package io.snode.bench.cli;

import io.snode.bench.workload.BenchReport;
import io.snode.bench.workload.Result;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** TEMPORARY on the bench-runner branch: replaced by the OpenVDB bridge before it merges. */
final class PeerRounds {
    private PeerRounds() {
    }

    static List<Result> run(Path harness, int round, int runs, PrintWriter out, PrintWriter err, List<String> failures) {
        return List.of();
    }

    static void chart(BenchReport report, Path file) {
    }
}
