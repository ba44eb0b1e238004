package io.snode.bench.cli;

import io.snode.api.LayoutParseException;
import io.snode.bench.peer.OpenVdbPeer;
import io.snode.bench.workload.BaselineFloors;
import io.snode.bench.workload.BenchReport;
import io.snode.bench.workload.ChildRunner;
import io.snode.bench.workload.Contenders;
import io.snode.bench.workload.Result;
import io.snode.bench.workload.Trials;
import io.snode.bench.workload.Workload;
import io.snode.bench.workload.WorkloadLayout;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code snode bench}: the reference workloads of WORKLOADS.md on our layouts, on the Java
 * baselines and, where the machine can build it, on OpenVDB, in alternating rounds; a table of
 * medians, throughput, memory and time ratios, checked checksums, optional JSON and chart.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
        header = "Runs the reference workloads against Java baselines and OpenVDB; prints time ratios.",
        description = {"Runs the reference workloads (W1s build sorted, W1r build shuffled, W2 random",
                "reads, W3 iterate active, W4 delete half + rewrite, W5 parallel build, W6",
                "particle lists, W6v visit every list) on L1 and L2, on layouts given as text,",
                "on the Java baselines (hashmap, fastutil, dense), on the floors of our design",
                "(floors: L1's and L2's memory and atomic operations without our code, for W1s",
                "and W2), each structure in a JVM of its own, and",
                "on OpenVDB through its harness (--peers). Whole harness runs alternate with",
                "whole runs of ours; ratios (ours / theirs, below 1 = faster) are taken within",
                "a round, then the median over rounds. Every structure's checksums are",
                "compared with the reference values; the exit code is 1 when one differs or a",
                "structure fails.",
                "",
                "A layout text (the form ./snode inspect reads) needs an f32 field phi on ijk,",
                "placed on a dense or bitmasked node and reaching 2048 on each axis. A",
                "bitmasked leaf activates per voxel (as L2); a dense leaf activates the whole",
                "cell of the sparse node above it (as L1), which must hold 8^3 voxels: the",
                "reference checksums count 8^3 blocks. W4 deletes 8^3 blocks, so it needs a",
                "sparse node with such cells; W6 and W6v (L1's particle lists) do not apply.",
                "The table names layouts layout#1, layout#2, ... and prints their text below.",
                "",
                "Example (a deeper L1):",
                "  ./snode bench --no-peers --workload W1s,W2,W3 --structure \\",
                "    'pointer(ijk,64).pointer(ijk,16).dense(ijk,8).place(f32 phi)'",
                "",
                "Options:"})
final class BenchCommand implements Callable<Integer> {
    static final List<String> STRUCTURES = Contenders.NAMES;

    @Option(names = "--quick", description = "every workload once on the quick band (radius 100), without OpenVDB and"
            + " without the 4 GiB dense array; reference values computed in this process")
    boolean quick;

    @Option(names = "--workload", split = ",", paramLabel = "ID",
            description = "workloads to run, comma-separated (default: all: W1s,W1r,W2,W3,W4,W5,W6,W6v)")
    List<String> workloads;

    /** Each occurrence's value is split by {@link CommaList}: a layout text has commas inside its parentheses. */
    @Option(names = "--structure", paramLabel = "NAME|LAYOUT",
            description = "structures to run, comma-separated (default: L1,L2,hashmap,fastutil,dense,floors): names or"
                    + " layout texts (quoted; the commas inside their parentheses do not separate); repeatable")
    List<String> structures;

    @Option(names = "--rounds", paramLabel = "N", description = "rounds, 1 to 1000 (default: 2, --quick: 1)")
    Integer rounds;

    @Option(names = "--runs", paramLabel = "N", description = "timed runs per workload, 1 to 1000 (default: 5, --quick: 1)")
    Integer runs;

    @Option(names = "--warmups", paramLabel = "N", description = "least untimed warm-up runs before them, 0 to 100"
            + " (default: 2, --quick: 0)")
    Integer warmups;

    @Option(names = "--warmup-seconds", paramLabel = "S", description = "least wall clock of a workload's warm-ups"
            + " in seconds, 0 to 60, set-ups included: they go on past --warmups until S seconds passed (at most "
            + Trials.MAX_WARMUPS + " runs), so that a short run is timed after the JIT compiled it"
            + " (default: 1, --quick: 0)")
    Double warmupSeconds;

    @Option(names = "--threads", paramLabel = "T", description = "The thread count besides 1 for W5 and for W3's launch after a"
            + " change, 1 to 256 (default: the available processors, at most 256)")
    Integer threads;

    @Option(names = "--peers", paramLabel = "DIR", description = "the OpenVDB harness directory; refused with"
            + " --quick and --no-peers (default, when it exists, from here or from the checkout:"
            + " ../shared/peers/openvdb)")
    Path peers;

    @Option(names = "--no-peers", description = "do not run OpenVDB")
    boolean noPeers;

    @Option(names = "--json", paramLabel = "FILE", description = "also write every row as JSON to FILE")
    Path json;

    @Option(names = "--chart", paramLabel = "FILE.png", description = "also draw the ratios against OpenVDB (without it,"
            + " against hashmap) as a bar chart")
    Path chart;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** A child JVM is stopped after this long. */
    static final long CHILD_TIMEOUT_S = 30 * 60;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Workload> chosen = chosenWorkloads();
        List<String> names = chosenStructures();
        if (peers != null && (quick || noPeers)) {
            String without = quick ? "--quick" : "--no-peers";
            throw new SnodeCli.BadInputException("--peers=" + peers + " names the OpenVDB harness, which " + without
                    + " does not run: drop --peers, or " + without + " to run it");
        }
        int roundCount = positive("--rounds", rounds, quick ? 1 : 2);
        int runCount = positive("--runs", runs, quick ? 1 : 5);
        int warmupCount = warmups == null ? (quick ? 0 : 2) : warmups;
        if (warmupCount < 0 || warmupCount > 100) {
            throw new SnodeCli.BadInputException("--warmups=" + warmupCount + " must be between 0 and 100");
        }
        double warmupTime = warmupSeconds == null ? (quick ? 0 : 1) : warmupSeconds;
        if (!(warmupTime >= 0 && warmupTime <= 60)) {
            throw new SnodeCli.BadInputException("--warmup-seconds=" + SnodeCli.typed(spec, "--warmup-seconds",
                    warmupSeconds) + " must be between 0 and 60");
        }
        int cores = Runtime.getRuntime().availableProcessors();
        int parallel = threads == null ? Math.min(cores, 256) : threads; // the default fits the limit on any machine
        if (parallel < 1 || parallel > 256) {
            throw new SnodeCli.BadInputException("--threads=" + parallel + " must be between 1 and 256");
        }
        List<Integer> threadCounts = parallel == 1 ? List.of(1) : List.of(1, parallel);
        Path harness = harness();
        if (harness != null) {
            harness = harness.toAbsolutePath().normalize();
        }
        if (chart != null && harness == null && !names.contains("hashmap")) {
            throw new SnodeCli.BadInputException("--chart draws the time ratios against OpenVDB or hashmap; this run"
                    + " has neither (add hashmap to --structure, or run OpenVDB: without --quick and --no-peers)");
        }
        // Refused now, not after a run of many minutes; the last refusal, as it creates directories.
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("--json", json);
        outputs.put("--chart", chart);
        OutputPaths.files(outputs);
        boolean progress = System.console() != null && System.console().isTerminal();

        long physical = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        Map<String, Object> header = header(roundCount, runCount, warmupCount, warmupTime, threadCounts, physical);
        out.printf(Locale.ROOT, "snode bench: %s band, %d round(s) of %d timed run(s) after %d warm-up(s) and %s s of them;"
                        + " threads (W3 after a change, W5) %s%n",
                quick ? "quick (R = 100)" : "reference (R = 400)", roundCount, runCount, warmupCount, warmupTime,
                threadCounts);
        out.printf(Locale.ROOT, "machine: %s, %d cores, %.1f GiB; JDK %s; child JVM flags: %s -Xmx<per structure>%n",
                header.get("cpu"), cores, physical / (double) (1L << 30), Runtime.version(),
                String.join(" ", ChildRunner.FLAGS));
        out.flush();

        ChildRunner children = ChildRunner.ofThisJvm(CHILD_TIMEOUT_S);
        List<Result> all = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int round = 1; round <= roundCount; round++) {
            if (harness != null) {
                int shown = round;
                Optional<List<Result>> peer = PeerRounds.run(harness, round, runCount, err, line -> {
                    if (progress) {
                        err.println("  round " + shown + ": " + line);
                        err.flush();
                    }
                });
                if (peer.isPresent()) {
                    all.addAll(peer.get());
                } else {
                    harness = null; // it says why; the later rounds go without it too
                }
            }
            for (String name : names) {
                List<Workload> own = name.equals("dense") ? denseWorkloads(chosen, physical, err)
                        : name.equals("floors") ? chosen.stream().filter(BaselineFloors::takesPart).toList()
                        : applicable(name, chosen);
                if (own.isEmpty()) {
                    continue;
                }
                String heap = heap(name);
                int shown = round;
                ChildRunner.Outcome outcome = children.run(
                        children.command(name, own, quick, warmupCount, warmupTime, runCount, threadCounts, heap),
                        line -> {
                            if (progress) {
                                err.println("  round " + shown + ": " + line);
                                err.flush();
                            }
                        });
                for (Result result : outcome.results()) {
                    all.add(result.inRound(round));
                }
                if (outcome.failed()) {
                    failures.add(name + " (round " + round + "): " + outcome.error());
                    err.println("snode bench: " + name + " failed in round " + round + ": " + outcome.error());
                    err.flush();
                }
            }
        }
        BenchReport report = BenchReport.of(all, names);
        out.println();
        report.printTable(out, layoutNotes(names, chosen));
        if (json != null) {
            report.writeJson(json, header);
            out.println("wrote " + json);
        }
        if (chart != null) {
            String baseline = PeerRounds.chart(report, chart);
            out.println("wrote " + chart + " (time ratios against " + baseline + ")");
        }
        boolean ok = report.checksumsOk() && failures.isEmpty();
        out.println(ok ? "checksums: all equal their reference values" : "checksums or runs FAILED: "
                + String.join("; ", failures) + (report.checksumsOk() ? "" : " (see the checks column)"));
        out.flush();
        return ok ? SnodeCli.OK : SnodeCli.FAILURE;
    }

    private List<Workload> chosenWorkloads() {
        if (workloads == null || workloads.isEmpty()) {
            return List.of(Workload.values());
        }
        List<Workload> chosen = new ArrayList<>();
        for (String id : workloads) {
            try {
                Workload workload = Workload.of(id);
                if (!chosen.contains(workload)) {
                    chosen.add(workload);
                }
            } catch (IllegalArgumentException e) {
                throw new SnodeCli.BadInputException("--workload: " + e.getMessage());
            }
        }
        return chosen;
    }

    /**
     * The structures, in the order given: known names as {@link #STRUCTURES} spells them, layout
     * texts in their canonical form (so that two spellings of one layout run once), each checked
     * before any child starts.
     */
    private List<String> chosenStructures() {
        if (structures == null || structures.isEmpty()) {
            return STRUCTURES;
        }
        List<String> chosen = new ArrayList<>();
        for (String value : structures) {
            for (String name : CommaList.split(value)) {
                String canonical;
                try {
                    canonical = Contenders.canonical(name);
                } catch (IllegalArgumentException e) {
                    String message = e.getMessage();
                    String hint = e.getCause() instanceof LayoutParseException
                            ? " (fix the layout text; the grammar is in ./snode inspect --help)" : "";
                    throw new SnodeCli.BadInputException(message.startsWith("structure=") ? "--" + message
                            : "--structure: " + message + hint);
                }
                if (!chosen.contains(canonical)) {
                    chosen.add(canonical);
                }
            }
        }
        if (chosen.isEmpty()) {
            throw new SnodeCli.BadInputException("--structure=" + String.join(",", structures)
                    + " names no structure (known: " + String.join(", ", STRUCTURES) + ", or a layout text)");
        }
        return chosen;
    }

    /**
     * The chosen workloads that {@code structure} takes part in: a layout text takes no part in
     * W6 and W6v, nor in W4 without 8^3 blocks ({@link WorkloadLayout#notApplicable}).
     */
    private static List<Workload> applicable(String structure, List<Workload> chosen) {
        if (!Contenders.isLayout(structure)) {
            return chosen;
        }
        Map<Workload, String> skipped = WorkloadLayout.parse(structure).notApplicable();
        return chosen.stream().filter(w -> !skipped.containsKey(w)).toList();
    }

    /**
     * The legend's lines for each layout text: what the workloads use of it, and which of the
     * chosen workloads it takes no part in, and why (one line per reason).
     */
    private static Map<String, List<String>> layoutNotes(List<String> names, List<Workload> chosen) {
        Map<String, List<String>> notes = new LinkedHashMap<>();
        for (String name : names) {
            if (!Contenders.isLayout(name)) {
                continue;
            }
            WorkloadLayout layout = WorkloadLayout.parse(name);
            List<String> lines = new ArrayList<>();
            lines.add(layout.describe());
            Map<String, List<String>> byReason = new LinkedHashMap<>();
            layout.notApplicable().forEach((workload, why) -> {
                if (chosen.contains(workload)) {
                    byReason.computeIfAbsent(why, w -> new ArrayList<>()).add(workload.id());
                }
            });
            byReason.forEach((why, ids) -> lines.add("not applicable: " + String.join(", ", ids) + " (" + why + ")"));
            notes.put(name, lines);
        }
        return notes;
    }


    private static int positive(String option, Integer value, int fallback) {
        int chosen = value == null ? fallback : value;
        if (chosen < 1 || chosen > 1000) {
            throw new SnodeCli.BadInputException(option + "=" + chosen + " must be between 1 and 1000");
        }
        return chosen;
    }

    /** The harness to run, or null: never with --quick or --no-peers (refused with --peers); a given directory must exist. */
    private Path harness() {
        if (quick || noPeers) {
            return null;
        }
        if (peers != null) {
            if (!Files.isDirectory(peers)) {
                throw new SnodeCli.BadInputException("--peers=" + peers + " is not a directory (the OpenVDB harness,"
                        + " e.g. ../shared/peers/openvdb; --no-peers runs without it)");
            }
            return peers;
        }
        Path fallback = Path.of(OpenVdbPeer.DEFAULT_RELATIVE_DIRECTORY);
        if (Files.isDirectory(fallback)) {
            return fallback;
        }
        return repositoryRoot().flatMap(OpenVdbPeer::defaultDirectory).orElse(null);
    }

    /** The checkout this command runs from: three levels above bench/target/snode-bench.jar (or bench/target/classes). */
    private static Optional<Path> repositoryRoot() {
        try {
            Path source = Path.of(BenchCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path bench = source.getParent() == null ? null : source.getParent().getParent();
            return bench == null || bench.getParent() == null ? Optional.empty() : Optional.of(bench.getParent());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The 4 GiB dense array runs W1s, W1r and W2 only where the machine has memory for its heap; W3's limit always. */
    private List<Workload> denseWorkloads(List<Workload> chosen, long physical, PrintWriter err) {
        List<Workload> own = new ArrayList<>();
        boolean fits = physical >= DENSE_HEAP_BYTES + (2L << 30);
        for (Workload workload : chosen) {
            boolean big = workload == Workload.W1S || workload == Workload.W1R || workload == Workload.W2;
            if (workload == Workload.W3 || (big && !quick && fits)) {
                own.add(workload);
            }
        }
        if (!quick && !fits && chosen.stream().anyMatch(w -> w == Workload.W1S || w == Workload.W1R || w == Workload.W2)) {
            err.printf(Locale.ROOT, "snode bench: dense W1s/W1r/W2 skipped: the float[1024^3] limit needs a %d GiB heap"
                    + " and this machine has %.1f GiB%n", DENSE_HEAP_BYTES >> 30, physical / (double) (1L << 30));
        }
        return own;
    }

    /** The dense limit's heap: 4 GiB of floats, the data set and W3's copy of the leaf data. */
    static final long DENSE_HEAP_BYTES = 6L << 30;

    private String heap(String structure) {
        if (quick) {
            return "1g";
        }
        return switch (structure) {
            case "dense" -> (DENSE_HEAP_BYTES >> 30) + "g";
            case "hashmap", "fastutil" -> "4g";
            // L1, L2 and layout texts: the data set (about 260 MB) on the heap, the grid off it.
            default -> "3g";
        };
    }

    private Map<String, Object> header(int roundCount, int runCount, int warmupCount, double warmupTime,
            List<Integer> threadCounts, long physical) {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        header.put("band", quick ? "quick" : "reference");
        header.put("rounds", roundCount);
        header.put("runs", runCount);
        header.put("warmups", warmupCount);
        header.put("warmup_seconds", warmupTime);
        header.put("w5_threads", threadCounts);
        header.put("cores", Runtime.getRuntime().availableProcessors());
        header.put("memory_bytes", physical);
        header.put("cpu", cpuModel());
        header.put("jdk", Runtime.version().toString());
        header.put("child_flags", ChildRunner.FLAGS);
        return header;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse(System.getProperty("os.arch"));
        } catch (IOException | RuntimeException e) {
            return System.getProperty("os.arch");
        }
    }
}
