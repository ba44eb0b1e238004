package io.snode.bench.cli;

import io.snode.bench.soak.Soak;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code snode soak}: threads churn one runtime for a while, checked against a model. */
@Command(name = "soak", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
        header = "Runs a stress test of many threads on one runtime, checked against a model.",
        description = {"Runs threads that activate, write, add, append and deactivate (cell by cell,",
                "in bulk and by region) and collect on one compiled runtime, and checks every",
                "result against a model of the calls that returned normally (each thread owns",
                "its leaves and some lists; upper pointer cells and half of the lists are",
                "shared); a bulk call refused partway must leave exactly what its contract names.",
                "Now and then a thread runs a struct-for launch whose kernels write its own",
                "cells (or deactivate some) while the other threads go on.",
                "",
                "Layout: " + Soak.LAYOUT_TEXT,
                "",
                "Every second the threads pause while the whole model is compared, the shared",
                "upper cells are reset and memory is collected; at the first of those pauses",
                "after each --report-seconds a line shows throughput and footprint. The",
                "footprint (bytes reserved) must stay within the live peak plus one largest",
                "chunk per list of each SNode. At the end everything is deactivated and",
                "collected, and no cell (and with --hash no hash table) may stay in use.",
                "With --fault-every, injected allocator faults refuse calls as the cap does.",
                "",
                "Exit code 0 when all of that held, 1 when something was lost or leaked."})
final class SoakCommand implements Callable<Integer> {
    @Option(names = "--minutes", paramLabel = "M", defaultValue = "1",
            description = "how long the threads run, above 0 and at most 10080 (a week),"
                    + " fractions allowed (default: ${DEFAULT-VALUE})")
    double minutes;

    @Option(names = "--threads", paramLabel = "T",
            description = "worker threads, 1 to 64 (default: the available processors, at most 64)")
    Integer threads;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--cap-mib", paramLabel = "MIB",
            description = "memory cap of the runtime in MiB, above 0 and at most 1048576 (1 TiB), to make"
                    + " activations and appends be refused (default: the runtime's default cap)")
    Double capMib;

    @Option(names = "--huge-pages",
            description = "put the runtime's regions on huge pages (RuntimeOptions.withHugePages)")
    boolean hugePages;

    @Option(names = "--hash",
            description = "hash nodes in place of the layout's two pointer nodes: " + Soak.HASH_LAYOUT_TEXT)
    boolean hash;

    @Option(names = "--3d",
            description = "the layout on three coordinates, one cell deep along k (with --hash too): "
                    + Soak.LAYOUT_TEXT_3D)
    boolean threeD;

    @Option(names = "--fault-every", paramLabel = "N",
            description = "inject allocator faults: about one request for memory in N (a chunk, or a part of"
                    + " a region) fails with an OutOfMemoryError while the threads run, 1 to 1000000000;"
                    + " the call it reaches must change nothing, as when the cap refuses it (default: none)")
    Long faultEvery;

    @Option(names = "--report-seconds", paramLabel = "S", defaultValue = "5",
            description = "seconds between progress lines, above 0 and at most 3600"
                    + " (default: ${DEFAULT-VALUE})")
    double reportSeconds;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final double MAX_MINUTES = 7 * 24 * 60; // the help's 10080

    @Override
    public Integer call() {
        // The default is capped at the most the soak takes, so that a machine of many cores runs it without the option.
        int threadCount = threads == null ? Math.min(Runtime.getRuntime().availableProcessors(), Soak.MAX_THREADS) : threads;
        if (!(minutes > 0) || minutes > MAX_MINUTES) {
            throw new SnodeCli.BadInputException("--minutes=" + SnodeCli.typed(spec, "--minutes", minutes) + " must be above 0 and at most "
                    + (long) MAX_MINUTES + " (a week); fractions are allowed, e.g. 0.1");
        }
        if (threadCount < 1 || threadCount > Soak.MAX_THREADS) {
            throw new SnodeCli.BadInputException("--threads=" + threadCount + " must be between 1 and "
                    + Soak.MAX_THREADS);
        }
        if (capMib != null && !(capMib > 0 && capMib <= 1024 * 1024)) {
            throw new SnodeCli.BadInputException("--cap-mib=" + SnodeCli.typed(spec, "--cap-mib", capMib)
                    + " must be above 0 and at most 1048576 (1 TiB)");
        }
        if (!(reportSeconds > 0) || reportSeconds > 3600) {
            throw new SnodeCli.BadInputException("--report-seconds=" + SnodeCli.typed(spec, "--report-seconds", reportSeconds)
                    + " must be above 0 and at most 3600");
        }
        if (faultEvery != null && (faultEvery < 1 || faultEvery > 1_000_000_000L)) {
            throw new SnodeCli.BadInputException("--fault-every=" + SnodeCli.typed(spec, "--fault-every", faultEvery)
                    + " must be between 1 and 1000000000");
        }
        long capBytes = capMib == null ? 0 : Math.max(1, (long) (capMib * 1024 * 1024));
        Soak.Config config = new Soak.Config((long) Math.max(1, Math.ceil(minutes * 60e9)), threadCount, seed, capBytes,
                TimeUnit.SECONDS.toNanos(1), (long) (reportSeconds * 1e9), hugePages, hash, threeD,
                faultEvery == null ? 0 : faultEvery);
        PrintWriter out = spec.commandLine().getOut();
        Soak.Result result;
        try {
            result = new Soak(config, out).run();
        } catch (Soak.CapTooSmallException e) {
            throw new SnodeCli.BadInputException("--cap-mib=" + SnodeCli.typed(spec, "--cap-mib", capMib) + " is too small: " + e.getMessage()
                    + "; give more");
        }
        return result.passed() ? SnodeCli.OK : SnodeCli.FAILURE;
    }
}
