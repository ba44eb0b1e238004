package io.snode.bench.peer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one run of the OpenVDB peer harness ({@code shared/peers/openvdb/bench.cpp}) printed,
 * parsed into an immutable model: the header, one {@link Row} per timed variant, the checksum and
 * memory lines, and whether the harness's own checks passed.
 *
 * <p>The harness prints each result as a progress line
 * <pre>  [W1s ] build sorted: ValueAccessor::setValue    warm 0.1252  min 0.0605  med 0.0610  max 0.0621 s  1.318e+08 /s</pre>
 * (the variant padded to 58 columns, longer ones not cut) and, at the end, the same rows again as
 * a Markdown table. The rows come from the progress lines; only when there are none (the input is
 * the table alone) from the table. Lines this class does not know (the data-set report, the
 * interop section, vdb_print's output when the input is all of {@code run.sh}'s output) are
 * ignored, so the input may be the harness's output alone or everything {@code run.sh} printed.
 *
 * <p>Partial output parses: whatever is missing is an empty {@code Optional}, an empty list or
 * {@code false} for {@link #checksPassed()}. A line that has the shape of a known line but a
 * field that is not a number (a result row without its five numbers, {@code med 0.0x1},
 * {@code nan}) is an {@link IllegalArgumentException} whose message names the line number and
 * quotes the line: the harness changed or the output is corrupt, and a silent zero would be a
 * wrong ratio.
 *
 * <p>{@link #counterpart(Counterpart)} picks, for each of our workloads, the OpenVDB row it is
 * compared with; rows are matched by id and a prefix of the variant with runs of spaces
 * collapsed, never by position.
 */
public final class OpenVdbOutput {

    /** The first two lines: {@code OpenVDB library 10.0.1abi10 (ABI 10), ... hardware threads 2}. */
    public record Header(String line, String openVdbVersion, int hardwareThreads, int timedRuns) {
        public Header {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(openVdbVersion, "openVdbVersion");
        }
    }

    /**
     * One timed variant: times in seconds (the warm-up run, then min, median and max of the timed
     * runs) and the rate the harness derived, items per median second. {@code variant} is the text
     * without its padding (leading indentation of sub-rows removed too).
     */
    public record Row(String id, String variant, double warmSeconds, double minSeconds, double medianSeconds,
            double maxSeconds, double itemsPerSecond) {
        public Row {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(variant, "variant");
        }
    }

    /** A checksum pair: how many voxels (active, or visited) and the double sum of their values. */
    public record CountSum(long count, double sum) {
    }

    /** {@code MEMORY W4 memUsage before ... -> after delete ... -> after rewrite ...}, in bytes. */
    public record W4Memory(long before, long afterDelete, long afterRewrite) {
    }

    /**
     * {@code CHECKSUM W6 count = ..., sum of particle ids = ..., non-empty 8^3 blocks = ...};
     * {@code threads} is the T of the {@code T=<T> createPointIndexGrid} row printed before it, 0
     * when there is none.
     */
    public record W6Check(int threads, long count, long idSum, long nonEmptyBlocks) {
    }

    /**
     * Our workloads that have an OpenVDB counterpart row, and which row that is. "All threads" is
     * the harness's {@code hardware threads} (from the header; without a header, the largest
     * {@code T=} printed); on a one-thread machine the harness prints only T=1 rows, and the
     * all-threads keys give those.
     */
    public enum Counterpart {
        /** W1s: {@code build sorted: ValueAccessor::setValue}. */
        W1S,
        /** W1r: {@code build shuffled: ValueAccessor::setValue}. */
        W1R,
        /** W2: {@code read random: ConstAccessor::getValue, ijk precomputed}, on the W1s grid. */
        W2,
        /** W3, block-wise or our best loop: {@code LeafManager leaf array, buffer 512, 32 accs}. */
        W3_BLOCK,
        /** W3, per active cell: {@code grid->cbeginValueOn()} on the W1s grid. */
        W3_PER_CELL,
        /** W4: the {@code total: delete + rewrite} row of the {@code delete: addTile} variant. */
        W4,
        /** W5 with T=1: {@code T=1 one grid (tbb arena of 1), no merge: TOTAL}. */
        W5_ONE_THREAD,
        /** W5 with T=all: {@code T=n per-thread grids + SumMergeOp: TOTAL}. */
        W5_ALL_THREADS,
        /** W6 append, T=1: {@code T=1 createPointIndexGrid (bin 4M particles by voxel/leaf)}. */
        W6_APPEND_ONE_THREAD,
        /** W6 visit after the T=1 build: the {@code visit every leaf's index list} row following it. */
        W6_VISIT_ONE_THREAD,
        /** W6 append, T=all: {@code T=n createPointIndexGrid (...)}. */
        W6_APPEND_ALL_THREADS,
        /** W6 visit after the T=all build: the {@code visit every leaf's index list} row following it. */
        W6_VISIT_ALL_THREADS
    }

    private static final String NUMBER = "([^\\s,;()]+)";
    private static final Pattern ROW_START = Pattern.compile("^\\s*\\[\\s*([A-Za-z0-9]+)\\s*\\]\\s");
    private static final Pattern ROW = Pattern.compile("^\\s*\\[\\s*([A-Za-z0-9]+)\\s*\\]\\s(.*?)\\s+warm\\s+(\\S+)"
            + "\\s+min\\s+(\\S+)\\s+med\\s+(\\S+)\\s+max\\s+(\\S+)\\s+s\\s+(\\S+)\\s+/s\\s*$");
    private static final Pattern TABLE_START = Pattern.compile("^\\|\\s*([A-Za-z0-9]+)\\s*\\|");
    private static final Pattern TABLE_ROW = Pattern.compile("^\\|\\s*([A-Za-z0-9]+)\\s*\\|(.*)\\|"
            + "\\s*([^|\\s]+)\\s*\\|\\s*([^|\\s]+)\\s*\\|\\s*([^|\\s]+)\\s*\\|\\s*([^|\\s]+)\\s*\\|"
            + "\\s*([^|\\s]+)\\s*\\|\\s*([^|\\s]+)\\s*\\|\\s*$");
    private static final Pattern HEADER = Pattern.compile("^OpenVDB library (\\S+) .*hardware threads (\\S+)\\s*$");
    private static final Pattern RUNS = Pattern.compile("^timed runs per workload: (\\S+)");
    private static final Pattern N = Pattern.compile("^CHECKSUM N = " + NUMBER);
    private static final Pattern SORTED_SUM = Pattern.compile("^CHECKSUM sorted-list value sum\\b[^=]*= " + NUMBER);
    private static final Pattern W1S = Pattern.compile(
            "^CHECKSUM W1s N\\(active\\) = " + NUMBER + ",.*value sum read back[^=]*= " + NUMBER);
    private static final Pattern W1R = Pattern.compile(
            "^CHECKSUM W1r N\\(active\\) = " + NUMBER + ",.*value sum read back[^=]*= " + NUMBER);
    private static final Pattern W2 = Pattern.compile("^CHECKSUM W2 sum = " + NUMBER);
    private static final Pattern W3 = Pattern.compile("^CHECKSUM W3 count = " + NUMBER + ", sum[^=]*= " + NUMBER);
    private static final Pattern W4 = Pattern.compile(
            "^CHECKSUM W4 after rewrite: N\\(active\\) = " + NUMBER + ", sum read back = " + NUMBER);
    private static final Pattern W5 = Pattern.compile(
            "^CHECKSUM W5 (.+): N\\(active\\) = " + NUMBER + ", sum read back = " + NUMBER);
    private static final Pattern W6 = Pattern.compile("^CHECKSUM W6 count = " + NUMBER
            + ", sum of particle ids = " + NUMBER + ", non-empty 8\\^3 blocks = " + NUMBER);
    private static final Pattern MEMORY_W1S = Pattern.compile(
            "^MEMORY after W1s: memUsage " + NUMBER + " B,.*bytes/active voxel = " + NUMBER);
    private static final Pattern MEMORY_W4 = Pattern.compile("^MEMORY W4 memUsage before " + NUMBER
            + " B -> after delete " + NUMBER + " B.*-> after rewrite " + NUMBER + " B");
    private static final Pattern SUMMARY = Pattern.compile("^total benchmark wall time .*; checks (.+?)\\s*$");
    private static final Pattern CHECK_FAILED = Pattern.compile("^\\s*CHECK FAILED: (.*)$");
    private static final Pattern THREADS = Pattern.compile("^T=(\\d+)\\s");

    private final Optional<Header> header;
    private final List<Row> rows;
    private final OptionalLong n;
    private final OptionalDouble sortedValueSum;
    private final Optional<CountSum> w1s;
    private final Optional<CountSum> w1r;
    private final OptionalDouble w2Sum;
    private final Optional<CountSum> w3;
    private final Optional<CountSum> w4;
    private final Map<String, CountSum> w5;
    private final List<W6Check> w6;
    private final OptionalLong memUsageAfterW1s;
    private final OptionalDouble bytesPerActiveVoxel;
    private final Optional<W4Memory> w4Memory;
    private final List<String> failedChecks;
    private final boolean checksPassed;

    private OpenVdbOutput(Parser p) {
        header = p.headerLine == null || p.timedRuns == null ? Optional.empty()
                : Optional.of(new Header(p.headerLine, p.version, p.hardwareThreads, p.timedRuns));
        rows = List.copyOf(p.rows.isEmpty() ? p.tableRows : p.rows);
        n = p.n;
        sortedValueSum = p.sortedValueSum;
        w1s = Optional.ofNullable(p.w1s);
        w1r = Optional.ofNullable(p.w1r);
        w2Sum = p.w2Sum;
        w3 = Optional.ofNullable(p.w3);
        w4 = Optional.ofNullable(p.w4);
        w5 = Collections.unmodifiableMap(new LinkedHashMap<>(p.w5));
        w6 = List.copyOf(p.w6);
        memUsageAfterW1s = p.memUsageAfterW1s;
        bytesPerActiveVoxel = p.bytesPerActiveVoxel;
        w4Memory = Optional.ofNullable(p.w4Memory);
        failedChecks = List.copyOf(p.failedChecks);
        checksPassed = p.summary != null && p.summary.equals("ALL PASSED") && p.failedChecks.isEmpty();
    }

    /**
     * Parses the harness's output, line by line.
     *
     * @throws IllegalArgumentException naming the line (1-based) when a known line has a field
     *     that is not a number
     */
    public static OpenVdbOutput parse(List<String> lines) {
        Objects.requireNonNull(lines, "lines");
        Parser parser = new Parser();
        for (int index = 0; index < lines.size(); index++) {
            parser.line(index + 1, Objects.requireNonNull(lines.get(index), "lines[" + index + "]"));
        }
        return new OpenVdbOutput(parser);
    }

    public Optional<Header> header() {
        return header;
    }

    /** Every result row, in the order printed. */
    public List<Row> rows() {
        return rows;
    }

    /**
     * The first row with this id (ignoring case) whose variant, with runs of whitespace collapsed
     * to one space, starts with {@code variantPrefix} (collapsed the same way).
     */
    public Optional<Row> row(String id, String variantPrefix) {
        String prefix = normalize(variantPrefix);
        return rows.stream().filter(r -> r.id().equalsIgnoreCase(id) && normalize(r.variant()).startsWith(prefix))
                .findFirst();
    }

    /** OpenVDB's row comparable with one of our workloads; empty when the output lacks it. */
    public Optional<Row> counterpart(Counterpart key) {
        return switch (key) {
            case W1S -> row("W1s", "build sorted:");
            case W1R -> row("W1r", "build shuffled:");
            case W2 -> first("W2", v -> v.startsWith("read random: ConstAccessor::getValue") && !v.contains("W1r"));
            case W3_BLOCK -> first("W3", v -> v.startsWith("LeafManager leaf array") && !v.contains("W1r"));
            case W3_PER_CELL -> first("W3", v -> v.startsWith("grid->cbeginValueOn()") && !v.contains("W1r"));
            case W4 -> following("W4", v -> v.startsWith("delete: addTile"), v -> v.startsWith("total: delete"),
                    v -> v.startsWith("delete:"));
            case W5_ONE_THREAD -> w5Total(1);
            case W5_ALL_THREADS -> w5Total(allThreads());
            case W6_APPEND_ONE_THREAD -> first("W6", w6Append(1));
            case W6_APPEND_ALL_THREADS -> first("W6", w6Append(allThreads()));
            case W6_VISIT_ONE_THREAD -> w6Visit(1);
            case W6_VISIT_ALL_THREADS -> w6Visit(allThreads());
        };
    }

    /** Every {@link Counterpart} the output has, in the enum's order. */
    public Map<Counterpart, Row> counterparts() {
        Map<Counterpart, Row> found = new EnumMap<>(Counterpart.class);
        for (Counterpart key : Counterpart.values()) {
            counterpart(key).ifPresent(row -> found.put(key, row));
        }
        return Collections.unmodifiableMap(found);
    }

    /** {@code CHECKSUM N}: the length of the sorted list. */
    public OptionalLong n() {
        return n;
    }

    /** {@code CHECKSUM sorted-list value sum}: the double sum of the values in sorted order. */
    public OptionalDouble sortedValueSum() {
        return sortedValueSum;
    }

    /** After W1s: active voxels and the value sum read back. */
    public Optional<CountSum> w1s() {
        return w1s;
    }

    /** After W1r: active voxels and the value sum read back. */
    public Optional<CountSum> w1r() {
        return w1r;
    }

    /** The W2 sum on the W1s grid (not the dense reference's). */
    public OptionalDouble w2Sum() {
        return w2Sum;
    }

    /** W3's count and sum on the W1s grid. */
    public Optional<CountSum> w3() {
        return w3;
    }

    /** W4's N and sum read back after the first variant's rewrite. */
    public Optional<CountSum> w4() {
        return w4;
    }

    /** W5's N and sum read back per variant, keyed by the variant text the line names, in order. */
    public Map<String, CountSum> w5() {
        return w5;
    }

    /** W6's checksum lines, in order (one per T). */
    public List<W6Check> w6() {
        return w6;
    }

    /** {@code memUsage} of the W1s grid, in bytes. */
    public OptionalLong memUsageAfterW1s() {
        return memUsageAfterW1s;
    }

    /** {@code bytes/active voxel} of the W1s grid (memUsage / N). */
    public OptionalDouble bytesPerActiveVoxel() {
        return bytesPerActiveVoxel;
    }

    /** The first W4 variant's memory line. */
    public Optional<W4Memory> w4Memory() {
        return w4Memory;
    }

    /** The text of every {@code CHECK FAILED:} line, in order. */
    public List<String> failedChecks() {
        return failedChecks;
    }

    /** Whether the closing line says {@code checks ALL PASSED} (and no check failed on the way). */
    public boolean checksPassed() {
        return checksPassed;
    }

    private Optional<Row> first(String id, Predicate<String> variant) {
        return rows.stream().filter(r -> r.id().equalsIgnoreCase(id) && variant.test(normalize(r.variant())))
                .findFirst();
    }

    /** The first {@code wanted} row after the first {@code anchor} row, before the next {@code stop} row. */
    private Optional<Row> following(String id, Predicate<String> anchor, Predicate<String> wanted,
            Predicate<String> stop) {
        boolean anchored = false;
        for (Row r : rows) {
            if (!r.id().equalsIgnoreCase(id)) {
                continue;
            }
            String v = normalize(r.variant());
            if (!anchored) {
                anchored = anchor.test(v);
            } else if (wanted.test(v)) {
                return Optional.of(r);
            } else if (stop.test(v)) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private Optional<Row> w5Total(int threads) {
        if (threads == 1) {
            return first("W5", v -> v.startsWith("T=1 one grid") && v.contains("TOTAL"));
        }
        return first("W5", v -> v.startsWith("T=" + threads + " per-thread grids") && v.contains("TOTAL"));
    }

    private static Predicate<String> w6Append(int threads) {
        return v -> v.startsWith("T=" + threads + " createPointIndexGrid");
    }

    private Optional<Row> w6Visit(int threads) {
        return following("W6", w6Append(threads), v -> v.startsWith("visit every leaf"),
                v -> v.contains("createPointIndexGrid"));
    }

    private int allThreads() {
        if (header.isPresent()) {
            return header.get().hardwareThreads();
        }
        int max = 1;
        for (Row r : rows) {
            Matcher m = THREADS.matcher(normalize(r.variant()));
            if (m.find()) {
                max = Math.max(max, Integer.parseInt(m.group(1)));
            }
        }
        return max;
    }

    private static String normalize(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }

    @Override
    public String toString() {
        return "OpenVdbOutput[" + header.map(Header::line).orElse("no header") + ", " + rows.size() + " rows, checks "
                + (checksPassed ? "passed" : "not passed") + "]";
    }

    /** Collects the fields line by line; the first occurrence of a once-per-run line wins. */
    private static final class Parser {
        String headerLine;
        String version;
        int hardwareThreads;
        Integer timedRuns;
        final List<Row> rows = new ArrayList<>();
        final List<Row> tableRows = new ArrayList<>();
        OptionalLong n = OptionalLong.empty();
        OptionalDouble sortedValueSum = OptionalDouble.empty();
        CountSum w1s;
        CountSum w1r;
        OptionalDouble w2Sum = OptionalDouble.empty();
        CountSum w3;
        CountSum w4;
        final Map<String, CountSum> w5 = new LinkedHashMap<>();
        final List<W6Check> w6 = new ArrayList<>();
        int lastW6Threads;
        OptionalLong memUsageAfterW1s = OptionalLong.empty();
        OptionalDouble bytesPerActiveVoxel = OptionalDouble.empty();
        W4Memory w4Memory;
        final List<String> failedChecks = new ArrayList<>();
        String summary;

        private int lineNumber;
        private String line;

        void line(int number, String text) {
            lineNumber = number;
            line = text;
            Matcher m;
            if (ROW_START.matcher(text).find()) {
                row(text);
            } else if ((m = TABLE_START.matcher(text)).find() && !m.group(1).equals("id")) {
                tableRow(text);
            } else if (text.startsWith("CHECKSUM ")) {
                checksum(text);
            } else if (text.startsWith("MEMORY ")) {
                memory(text);
            } else if (headerLine == null && (m = HEADER.matcher(text)).find()) {
                version = m.group(1);
                hardwareThreads = integer(m.group(2), "hardware threads");
                headerLine = text.strip();
            } else if (timedRuns == null && (m = RUNS.matcher(text)).find()) {
                timedRuns = integer(m.group(1), "timed runs");
            } else if ((m = SUMMARY.matcher(text)).find()) {
                summary = m.group(1);
            } else if ((m = CHECK_FAILED.matcher(text)).find()) {
                failedChecks.add(m.group(1).strip());
            }
        }

        private void row(String text) {
            Matcher m = ROW.matcher(text);
            if (!m.find()) {
                throw malformed("is a result row but not '[id] variant warm W min M med M max M s R /s'");
            }
            Row row = new Row(m.group(1), m.group(2).strip(), real(m.group(3), "warm"), real(m.group(4), "min"),
                    real(m.group(5), "med"), real(m.group(6), "max"), real(m.group(7), "rate"));
            rows.add(row);
            Matcher t = THREADS.matcher(normalize(row.variant()));
            if (row.id().equalsIgnoreCase("W6") && row.variant().contains("createPointIndexGrid") && t.find()) {
                lastW6Threads = integer(t.group(1), "T");
            }
        }

        private void tableRow(String text) {
            Matcher m = TABLE_ROW.matcher(text);
            if (!m.find()) {
                throw malformed("is a table row but not '| id | variant | warm | min | median | max | items | rate |'");
            }
            tableRows.add(new Row(m.group(1), m.group(2).strip(), real(m.group(3), "warmup s"),
                    real(m.group(4), "min s"), real(m.group(5), "median s"), real(m.group(6), "max s"),
                    real(m.group(8), "items/s")));
            real(m.group(7), "items");
        }

        private void checksum(String text) {
            Matcher m;
            if (n.isEmpty() && (m = N.matcher(text)).find()) {
                n = OptionalLong.of(integer64(m.group(1), "N"));
            } else if (sortedValueSum.isEmpty() && (m = SORTED_SUM.matcher(text)).find()) {
                sortedValueSum = OptionalDouble.of(real(m.group(1), "sorted-list value sum"));
            } else if (w1s == null && (m = W1S.matcher(text)).find()) {
                w1s = countSum(m, "W1s");
            } else if (w1r == null && (m = W1R.matcher(text)).find()) {
                w1r = countSum(m, "W1r");
            } else if (w2Sum.isEmpty() && (m = W2.matcher(text)).find()) {
                w2Sum = OptionalDouble.of(real(m.group(1), "W2 sum"));
            } else if (w3 == null && (m = W3.matcher(text)).find()) {
                w3 = countSum(m, "W3");
            } else if (w4 == null && (m = W4.matcher(text)).find()) {
                w4 = countSum(m, "W4");
            } else if ((m = W5.matcher(text)).find()) {
                w5.putIfAbsent(m.group(1).strip(), new CountSum(integer64(m.group(2), "W5 N(active)"),
                        real(m.group(3), "W5 sum")));
            } else if ((m = W6.matcher(text)).find()) {
                w6.add(new W6Check(lastW6Threads, integer64(m.group(1), "W6 count"),
                        integer64(m.group(2), "W6 id sum"), integer64(m.group(3), "W6 non-empty blocks")));
            }
        }

        private void memory(String text) {
            Matcher m;
            if (memUsageAfterW1s.isEmpty() && (m = MEMORY_W1S.matcher(text)).find()) {
                memUsageAfterW1s = OptionalLong.of(integer64(m.group(1), "memUsage"));
                bytesPerActiveVoxel = OptionalDouble.of(real(m.group(2), "bytes/active voxel"));
            } else if (w4Memory == null && (m = MEMORY_W4.matcher(text)).find()) {
                w4Memory = new W4Memory(integer64(m.group(1), "memUsage before"),
                        integer64(m.group(2), "after delete"), integer64(m.group(3), "after rewrite"));
            }
        }

        private CountSum countSum(Matcher m, String what) {
            return new CountSum(integer64(m.group(1), what + " N(active)"), real(m.group(2), what + " sum"));
        }

        private double real(String text, String field) {
            try {
                double value = Double.parseDouble(text);
                if (Double.isFinite(value)) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw malformed("has " + field + "=" + text + ", not a finite number");
        }

        private long integer64(String text, String field) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw malformed("has " + field + "=" + text + ", not an integer");
            }
        }

        private int integer(String text, String field) {
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw malformed("has " + field + "=" + text + ", not an integer");
            }
        }

        private IllegalArgumentException malformed(String what) {
            return new IllegalArgumentException(String.format(Locale.ROOT, "OpenVDB output line %d %s: \"%s\"",
                    lineNumber, what, line.strip()));
        }
    }
}
