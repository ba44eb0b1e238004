package io.snode.bench.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;

/**
 * The runner's figures over all rounds: one {@link Row} per workload, structure, way and thread
 * count, with the median of the rounds' medians, the smallest time of any run, and the time
 * ratios against OpenVDB and against the {@code hashmap} baseline. A ratio is taken within each
 * round (ours / theirs, both medians of that round; below 1 we are faster), then the median over
 * the rounds; the table also shows the lowest and highest of the rounds' own ratios against
 * OpenVDB, which says how far one run's ratio can be trusted on the machine. W3's per-cell rows
 * are compared per cell visited (L1 visits 512 cells per active block, OpenVDB only the active
 * voxels); every other ratio is a ratio of times.
 */
public final class BenchReport {
    /** The structure name of OpenVDB's rows. */
    public static final String OPENVDB = "openvdb";
    /** The structure the ratios fall back to without OpenVDB. */
    public static final String HASHMAP = "hashmap";

    /**
     * The width of the table's structure column. A longer name (a layout text given to
     * {@code --structure}) is shown as {@code layout#1}, {@code layout#2}, ... in the order the
     * structures were given, with the full text in a legend below the table.
     */
    public static final int STRUCTURE_WIDTH = 9;

    private final List<Row> rows;
    /** Structure to label, for the names wider than the column; in order. */
    private final Map<String, String> labels;

    private BenchReport(List<Row> rows, Map<String, String> labels) {
        this.rows = List.copyOf(rows);
        this.labels = Collections.unmodifiableMap(labels);
    }

    /**
     * One aggregated row.
     *
     * @param rounds the row's result in each round where it ran, in round order
     * @param roundsVsOpenVdb each round's own ratio, ours / OpenVDB's, in round order (the rounds
     *                        with a comparable row; empty without one)
     * @param roundsVsHashmap the same against {@code hashmap}
     */
    public record Row(Result first, List<Result> rounds, double medianS, double minS, List<Double> roundsVsOpenVdb,
            List<Double> roundsVsHashmap) {
        public Row {
            rounds = List.copyOf(rounds);
            roundsVsOpenVdb = List.copyOf(roundsVsOpenVdb);
            roundsVsHashmap = List.copyOf(roundsVsHashmap);
        }

        /** The median over rounds of ours / OpenVDB's (empty without a comparable row). */
        public OptionalDouble vsOpenVdb() {
            return median(roundsVsOpenVdb);
        }

        /** The median over rounds of ours / hashmap's (empty without a comparable row). */
        public OptionalDouble vsHashmap() {
            return median(roundsVsHashmap);
        }

        public boolean checksumsOk() {
            return rounds.stream().allMatch(Result::checksumsOk);
        }

        /** The first check that failed in any round, or "ok". */
        public String checks() {
            return rounds.stream().filter(r -> !r.checksumsOk()).map(r -> "round " + r.round() + ": " + r.checks())
                    .findFirst().orElse(Result.OK);
        }
    }

    /** Aggregates the results of every round (each tagged with its round), OpenVDB's rows among them. */
    public static BenchReport of(List<Result> results) {
        return of(results, List.of());
    }

    /**
     * As {@link #of(List)}, with the structures in the order they were given: the long names
     * among them are labelled in that order (then any others of the results, in theirs), so
     * that a structure without a result still has its label.
     */
    public static BenchReport of(List<Result> results, List<String> structures) {
        Map<String, String> labels = new LinkedHashMap<>();
        Stream.concat(structures.stream(), results.stream().map(Result::structure))
                .filter(name -> name.length() > STRUCTURE_WIDTH && !labels.containsKey(name))
                .forEach(name -> labels.put(name, "layout#" + (labels.size() + 1)));
        Map<String, List<Result>> byKey = new LinkedHashMap<>();
        for (Result result : results) {
            byKey.computeIfAbsent(result.key(), key -> new ArrayList<>()).add(result);
        }
        List<Row> rows = new ArrayList<>();
        for (List<Result> rounds : byKey.values()) {
            Result first = rounds.get(0);
            double median = median(rounds.stream().mapToDouble(Result::medianS).toArray());
            double min = rounds.stream().mapToDouble(Result::minS).min().orElseThrow();
            List<Double> vdb = first.structure().equals(OPENVDB) ? List.of()
                    : ratios(rounds, r -> comparableOpenVdb(r, results));
            List<Double> map = first.structure().equals(HASHMAP) ? List.of()
                    : ratios(rounds, r -> comparableHashmap(r, results));
            rows.add(new Row(first, rounds, median, min, vdb, map));
        }
        return new BenchReport(rows, labels);
    }

    public List<Row> rows() {
        return rows;
    }

    /** How the table names {@code structure}: the name itself, or {@code layout#n} for a long one. */
    public String label(String structure) {
        return labels.getOrDefault(structure, structure);
    }

    /** The long names and their labels, in label order. */
    public Map<String, String> labels() {
        return labels;
    }

    /** Whether every checksum of every structure in every round equals its reference value. */
    public boolean checksumsOk() {
        return rows.stream().allMatch(Row::checksumsOk);
    }

    /** Each round's own ratio of {@code rounds} against {@code theirs}' row of that round, where it has one. */
    private static List<Double> ratios(List<Result> rounds, java.util.function.Function<Result, Optional<Result>> theirs) {
        return rounds.stream().flatMap(ours -> theirs.apply(ours).stream()
                        .map(other -> perItem(ours) ? (ours.medianS() / ours.items()) / (other.medianS() / other.items())
                                : ours.medianS() / other.medianS()))
                .toList();
    }

    private static OptionalDouble median(List<Double> ratios) {
        return ratios.isEmpty() ? OptionalDouble.empty()
                : OptionalDouble.of(median(ratios.stream().mapToDouble(Double::doubleValue).toArray()));
    }

    /** W3's per-cell rows are compared per cell visited. */
    private static boolean perItem(Result ours) {
        return ours.workload().equals(Workload.W3.id()) && isPerCell(ours);
    }

    private static boolean isPerCell(Result result) {
        return result.api().contains("per cell");
    }

    /** OpenVDB's row of the same round that {@code ours} compares with. */
    static Optional<Result> comparableOpenVdb(Result ours, List<Result> all) {
        return all.stream()
                .filter(r -> r.structure().equals(OPENVDB) && r.workload().equals(ours.workload())
                        && java.util.Objects.equals(r.round(), ours.round()))
                .filter(r -> !ours.workload().equals(Workload.W5.id()) || r.threads() == ours.threads())
                .filter(r -> !ours.workload().equals(Workload.W3.id()) || isPerCell(r) == isPerCell(ours))
                .findFirst();
    }

    /** The hashmap baseline's row of the same round, workload and thread count. */
    static Optional<Result> comparableHashmap(Result ours, List<Result> all) {
        return all.stream()
                .filter(r -> r.structure().equals(HASHMAP) && r.workload().equals(ours.workload())
                        && r.threads() == ours.threads() && java.util.Objects.equals(r.round(), ours.round()))
                .findFirst();
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The table: one line per row, grouped by workload in the order of {@link Workload}. */
    public void printTable(PrintWriter out) {
        printTable(out, Map.of());
    }

    /**
     * The table, then a legend line per label ({@code layout#1 = TEXT}) followed by the lines
     * {@code notes} has for that structure (indented), then W4's memory figures.
     */
    public void printTable(PrintWriter out, Map<String, List<String>> notes) {
        String format = "%-4s %-9s %-44s %3s %10s %10s %11s %13s %9s %11s %9s  %s%n";
        out.printf(Locale.ROOT, format, "id", "structure", "way", "T", "median s", "min s", "items/s", "B/voxel h/r",
                "/OpenVDB", "rounds", "/hashmap", "checks");
        for (Workload workload : Workload.values()) {
            for (Row row : rows) {
                Result r = row.first();
                if (!r.workload().equals(workload.id())) {
                    continue;
                }
                String bytes = r.bytesPerVoxel() == null ? "" : String.format(Locale.ROOT, "%.2f/%.2f",
                        r.bytesPerVoxel(), r.reservedBytesPerVoxel() == null ? r.bytesPerVoxel() : r.reservedBytesPerVoxel());
                out.printf(Locale.ROOT, format, r.workload(), label(r.structure()), abbreviate(r.api(), 44), r.threads(),
                        String.format(Locale.ROOT, "%.4f", row.medianS()), String.format(Locale.ROOT, "%.4f", row.minS()),
                        String.format(Locale.ROOT, "%.3e", r.items() / row.medianS()), bytes, ratio(row.vsOpenVdb()),
                        range(row.roundsVsOpenVdb()), ratio(row.vsHashmap()), row.checks());
            }
        }
        labels.forEach((structure, label) -> {
            out.println(label + " = " + structure);
            notes.getOrDefault(structure, List.of()).forEach(line -> out.println("  " + line));
        });
        for (Row row : rows) {
            Result r = row.first();
            if (r.heldBytesBefore() != null) {
                out.printf(Locale.ROOT, "memory held, W4 %s %s: before %.1f MB, after the delete %.1f MB, after the rewrite %.1f MB%n",
                        label(r.structure()), r.api(), r.heldBytesBefore() / 1e6, r.heldBytesAfterDelete() / 1e6,
                        r.heldBytesAfter() / 1e6);
            }
        }
        out.flush();
    }

    private static String ratio(OptionalDouble ratio) {
        return ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : "";
    }

    /** The lowest and the highest of the rounds' own ratios ({@code 0.56-0.67}), or nothing for fewer than two. */
    private static String range(List<Double> ratios) {
        if (ratios.size() < 2) {
            return "";
        }
        double low = ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double high = ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return String.format(Locale.ROOT, "%.2f-%.2f", low, high);
    }

    private static String abbreviate(String text, int width) {
        return text.length() <= width ? text : text.substring(0, width - 3) + "...";
    }

    /**
     * Writes one JSON record per row: the fields of {@link Result} (snake_case) with the
     * aggregated {@code median_s} and {@code min_s}, {@code rounds}, each round's median in
     * {@code round_medians_s}, {@code ratio_openvdb} / {@code ratio_hashmap} where defined with
     * each round's own ratio in {@code round_ratios_openvdb} / {@code round_ratios_hashmap}, and
     * the table's {@code label} of a layout text ({@code structure} is the whole text).
     */
    public void writeJson(Path file, Map<String, Object> header) throws IOException {
        ObjectMapper json = WorkloadMain.json();
        ObjectNode root = json.createObjectNode();
        root.set("run", json.valueToTree(header));
        ArrayNode records = root.putArray("results");
        for (Row row : rows) {
            ObjectNode record = json.valueToTree(row.first());
            if (labels.containsKey(row.first().structure())) {
                record.put("label", labels.get(row.first().structure()));
            }
            record.remove("round");
            record.remove("times_s");
            record.put("median_s", row.medianS());
            record.put("min_s", row.minS());
            record.put("voxels_per_s", row.first().items() / row.medianS());
            record.put("rounds", row.rounds().size());
            ArrayNode medians = record.putArray("round_medians_s");
            row.rounds().forEach(r -> medians.add(r.medianS()));
            record.put("checks", row.checks());
            row.vsOpenVdb().ifPresent(v -> record.put("ratio_openvdb", v));
            row.vsHashmap().ifPresent(v -> record.put("ratio_hashmap", v));
            if (!row.roundsVsOpenVdb().isEmpty()) {
                ArrayNode each = record.putArray("round_ratios_openvdb");
                row.roundsVsOpenVdb().forEach(each::add);
            }
            if (!row.roundsVsHashmap().isEmpty()) {
                ArrayNode each = record.putArray("round_ratios_hashmap");
                row.roundsVsHashmap().forEach(each::add);
            }
            records.add(record);
        }
        json.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
    }
}
