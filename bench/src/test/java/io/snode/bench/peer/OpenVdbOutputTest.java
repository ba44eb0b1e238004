package io.snode.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.bench.peer.OpenVdbOutput.Counterpart;
import io.snode.bench.peer.OpenVdbOutput.CountSum;
import io.snode.bench.peer.OpenVdbOutput.Row;
import io.snode.bench.peer.OpenVdbOutput.W4Memory;
import io.snode.bench.peer.OpenVdbOutput.W6Check;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OpenVdbOutputTest {
    /** One full run of the harness (a copy of shared/peers/openvdb/reference-output.txt). */
    static List<String> reference() {
        return resource("reference-output.txt");
    }

    private static List<String> resource(String name) {
        try (InputStream in = OpenVdbOutputTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final OpenVdbOutput REFERENCE = OpenVdbOutput.parse(reference());

    @Test
    void readsTheHeaderAndTheClosingVerdict() {
        OpenVdbOutput.Header header = REFERENCE.header().orElseThrow();
        assertThat(header.openVdbVersion()).isEqualTo("10.0.1abi10");
        assertThat(header.hardwareThreads()).isEqualTo(2);
        assertThat(header.timedRuns()).isEqualTo(5);
        assertThat(header.line()).startsWith("OpenVDB library 10.0.1abi10 (ABI 10)").endsWith("hardware threads 2");
        assertThat(REFERENCE.checksPassed()).isTrue();
        assertThat(REFERENCE.failedChecks()).isEmpty();
    }

    @Test
    void readsEveryProgressRowWithItsFiveNumbers() {
        assertThat(REFERENCE.rows()).hasSize(39);
        assertThat(REFERENCE.rows().getFirst())
                .isEqualTo(new Row("W1s", "build sorted: ValueAccessor::setValue", 0.1252, 0.0605, 0.0610, 0.0621, 1.318e8));
        // Sub-rows lose their indentation; the last row is the second W6 visit.
        assertThat(REFERENCE.rows().getLast())
                .isEqualTo(new Row("W6", "visit every leaf's index list", 0.0075, 0.0072, 0.0075, 0.0083, 5.321e8));
        assertThat(REFERENCE.rows()).extracting(Row::id).containsOnly("W1s", "W1r", "W2", "W3", "REF", "W4", "W5", "W6");
    }

    @Test
    void aVariantLongerThanItsColumnIsReadWhole() {
        Row merge = REFERENCE.row("W5", "T=2 merge only, on deep copies: tree.merge").orElseThrow();
        assertThat(merge.variant()).isEqualTo("T=2   merge only, on deep copies: tree.merge(other, MERGE_ACTIVE_STATES)");
        assertThat(merge.warmSeconds()).isEqualTo(0.0513);
        assertThat(merge.medianSeconds()).isEqualTo(0.0403);
        assertThat(merge.itemsPerSecond()).isEqualTo(1.995e8);
    }

    @Test
    void givesTheComparableRowForEachOfOurWorkloads() {
        Map<Counterpart, Row> rows = REFERENCE.counterparts();
        assertThat(rows).containsOnlyKeys(Counterpart.values());
        assertThat(median(Counterpart.W1S)).isEqualTo(0.0610);
        assertThat(median(Counterpart.W1R)).isEqualTo(1.3400);
        assertThat(rows.get(Counterpart.W2).variant()).isEqualTo("read random: ConstAccessor::getValue, ijk precomputed");
        assertThat(median(Counterpart.W2)).isEqualTo(1.1661); // not 0.8930, the W1r grid's
        assertThat(rows.get(Counterpart.W3_BLOCK).variant()).isEqualTo("LeafManager leaf array, buffer 512, 32 accs");
        assertThat(median(Counterpart.W3_BLOCK)).isEqualTo(0.0224);
        assertThat(rows.get(Counterpart.W3_PER_CELL).variant()).isEqualTo("grid->cbeginValueOn()");
        assertThat(median(Counterpart.W3_PER_CELL)).isEqualTo(0.0577); // not 0.0759, the W1r grid's
        assertThat(rows.get(Counterpart.W4).variant()).isEqualTo("total: delete + rewrite");
        assertThat(median(Counterpart.W4)).isEqualTo(0.0440); // the addTile variant, not 0.0430 or 0.0372
        assertThat(rows.get(Counterpart.W5_ONE_THREAD).variant())
                .isEqualTo("T=1 one grid (tbb arena of 1), no merge: TOTAL");
        assertThat(median(Counterpart.W5_ONE_THREAD)).isEqualTo(1.1733);
        assertThat(rows.get(Counterpart.W5_ALL_THREADS).variant()).isEqualTo("T=2 per-thread grids + SumMergeOp: TOTAL");
        assertThat(median(Counterpart.W5_ALL_THREADS)).isEqualTo(0.8496);
        assertThat(rows.get(Counterpart.W6_APPEND_ONE_THREAD).variant()).startsWith("T=1 createPointIndexGrid");
        assertThat(median(Counterpart.W6_APPEND_ONE_THREAD)).isEqualTo(0.2941);
        assertThat(median(Counterpart.W6_VISIT_ONE_THREAD)).isEqualTo(0.0074);
        assertThat(rows.get(Counterpart.W6_APPEND_ALL_THREADS).variant()).startsWith("T=2 createPointIndexGrid");
        assertThat(median(Counterpart.W6_APPEND_ALL_THREADS)).isEqualTo(0.1586);
        assertThat(rows.get(Counterpart.W6_VISIT_ALL_THREADS).variant()).isEqualTo("visit every leaf's index list");
        assertThat(rows.get(Counterpart.W6_VISIT_ALL_THREADS).medianSeconds()).isEqualTo(0.0075);
        assertThat(rows.get(Counterpart.W6_VISIT_ALL_THREADS).maxSeconds()).isEqualTo(0.0083); // the T=2 one
    }

    @Test
    void readsTheChecksums() {
        assertThat(REFERENCE.n()).hasValue(8_048_580);
        assertThat(REFERENCE.sortedValueSum()).hasValue(33845.922322932631);
        CountSum full = new CountSum(8_048_580, 33845.922322932631);
        assertThat(REFERENCE.w1s()).contains(full);
        assertThat(REFERENCE.w1r()).contains(full);
        assertThat(REFERENCE.w2Sum()).hasValue(21268.324701510253);
        assertThat(REFERENCE.w3()).contains(full);
        assertThat(REFERENCE.w4()).contains(full);
        assertThat(REFERENCE.w5()).hasSize(7);
        assertThat(REFERENCE.w5().keySet()).startsWith("T=1 one grid (tbb arena of 1), no merge: TOTAL",
                "T=1 one shared grid, std::mutex around each setValue",
                "merge on copies: tree.merge(other, MERGE_ACTIVE_STATES)");
        assertThat(REFERENCE.w5()).containsEntry("T=2 per-thread grids + SumMergeOp: TOTAL", full);
        assertThat(REFERENCE.w5().values()).containsOnly(full);
        assertThat(REFERENCE.w6()).containsExactly(new W6Check(1, 4_000_000, 7_999_998_000_000L, 54_932),
                new W6Check(2, 4_000_000, 7_999_998_000_000L, 54_932));
    }

    @Test
    void readsTheMemoryLines() {
        assertThat(REFERENCE.bytesPerActiveVoxel()).hasValue(15.858);
        assertThat(REFERENCE.memUsageAfterW1s()).hasValue(127_631_588);
        assertThat(REFERENCE.w4Memory()).contains(new W4Memory(127_631_588, 63_994_500, 127_631_588));
    }

    @Test
    void matchesRowsByIdAndVariantWhateverTheirOrder() {
        List<String> lines = new ArrayList<>(reference());
        List<String> rows = lines.stream().filter(l -> l.startsWith("  [W2") || l.startsWith("  [W3")).toList();
        lines.removeAll(rows);
        List<String> reversed = new ArrayList<>(rows);
        Collections.reverse(reversed);
        lines.addAll(0, reversed);
        OpenVdbOutput output = OpenVdbOutput.parse(lines);
        assertThat(output.counterpart(Counterpart.W2).orElseThrow().medianSeconds()).isEqualTo(1.1661);
        assertThat(output.counterpart(Counterpart.W3_PER_CELL).orElseThrow().medianSeconds()).isEqualTo(0.0577);
        assertThat(output.counterpart(Counterpart.W3_BLOCK).orElseThrow().medianSeconds()).isEqualTo(0.0224);
        assertThat(output.rows().getFirst().variant()).isEqualTo("leaf buffer, 32 accs, on the W1r grid");
    }

    @Test
    void theTableAloneGivesTheSameRows() {
        List<String> lines = reference();
        int table = lines.indexOf(lines.stream().filter(l -> l.startsWith("| id ")).findFirst().orElseThrow());
        OpenVdbOutput output = OpenVdbOutput.parse(lines.subList(table, lines.size()));
        assertThat(output.rows()).isEqualTo(REFERENCE.rows());
        assertThat(output.checksPassed()).isTrue();
        assertThat(output.header()).isEmpty();
        // Without a header, "all threads" is the largest T printed.
        assertThat(output.counterpart(Counterpart.W5_ALL_THREADS).orElseThrow().medianSeconds()).isEqualTo(0.8496);
    }

    @Test
    void unknownLinesAroundTheOutputAreIgnored() {
        List<String> lines = new ArrayList<>();
        lines.add("built /tmp/snode-openvdb-1/bench");
        lines.addAll(reference());
        lines.addAll(List.of("", "== interop: vdb_print -l /tmp/x/shell.vdb",
                "Name: phi  [623,623,623] -> [1425,1425,1425]", "RESULT: MATCHES the WORKLOADS.md shell"));
        OpenVdbOutput output = OpenVdbOutput.parse(lines);
        assertThat(output.rows()).isEqualTo(REFERENCE.rows());
        assertThat(output.checksPassed()).isTrue();
        assertThat(output.w6()).isEqualTo(REFERENCE.w6());
    }

    @Test
    void readsAllOfWhatRunShPrintedInARealRunWithOneTimedRun() {
        // Everything run.sh printed (build line, the benchmark, vdb_print and the Python check),
        // RUNS=1, on a 2-vCPU machine on 2026-12-01.
        OpenVdbOutput output = OpenVdbOutput.parse(resource("run-sh-output-runs1.txt"));
        assertThat(output.header().orElseThrow().line()).isEqualTo(
                "OpenVDB library 10.0.1abi10 (ABI 10), .vdb file format version 224, TBB 2021.8, hardware threads 2");
        assertThat(output.header().orElseThrow().timedRuns()).isEqualTo(1);
        assertThat(output.rows()).hasSize(39);
        assertThat(output.counterparts()).containsOnlyKeys(Counterpart.values());
        Row w1s = output.counterpart(Counterpart.W1S).orElseThrow();
        assertThat(w1s.medianSeconds()).isEqualTo(0.0468).isEqualTo(w1s.minSeconds()).isEqualTo(w1s.maxSeconds());
        assertThat(output.w2Sum()).hasValue(21268.324701510253);
        assertThat(output.w6()).extracting(W6Check::nonEmptyBlocks).containsExactly(54_932L, 54_932L);
        assertThat(output.checksPassed()).isTrue();
    }

    @Test
    void partialOutputGivesWhatItHasAndEmptyForTheRest() {
        List<String> lines = reference();
        int dense = lines.indexOf(lines.stream().filter(l -> l.startsWith("== dense reference")).findFirst().orElseThrow());
        OpenVdbOutput output = OpenVdbOutput.parse(lines.subList(0, dense));
        assertThat(output.header()).isPresent();
        assertThat(output.counterparts()).containsOnlyKeys(Counterpart.W1S, Counterpart.W1R, Counterpart.W2);
        assertThat(output.counterpart(Counterpart.W4)).isEmpty();
        assertThat(output.counterpart(Counterpart.W6_VISIT_ALL_THREADS)).isEmpty();
        assertThat(output.w2Sum()).hasValue(21268.324701510253);
        assertThat(output.w3()).isEmpty();
        assertThat(output.w4Memory()).isEmpty();
        assertThat(output.w5()).isEmpty();
        assertThat(output.w6()).isEmpty();
        assertThat(output.checksPassed()).isFalse();

        OpenVdbOutput nothing = OpenVdbOutput.parse(List.of());
        assertThat(nothing.header()).isEmpty();
        assertThat(nothing.rows()).isEmpty();
        assertThat(nothing.counterparts()).isEmpty();
        assertThat(nothing.n()).isEmpty();
        assertThat(nothing.checksPassed()).isFalse();
    }

    @Test
    void aOneThreadMachinesAllThreadsRowsAreItsOneThreadRows() {
        List<String> lines = reference().stream().filter(l -> !l.contains("T=2"))
                .map(l -> l.replace("hardware threads 2", "hardware threads 1")).toList();
        // Drop the T=2 W6 visit row and checksum too: the harness prints T=1 only.
        List<String> oneThread = new ArrayList<>(lines);
        int secondVisit = lastIndexOf(oneThread, "  [W6  ]   visit");
        oneThread.remove(secondVisit + 1);
        oneThread.remove(secondVisit);
        OpenVdbOutput output = OpenVdbOutput.parse(oneThread);
        assertThat(output.header().orElseThrow().hardwareThreads()).isEqualTo(1);
        assertThat(output.counterpart(Counterpart.W5_ALL_THREADS)).isEqualTo(output.counterpart(Counterpart.W5_ONE_THREAD))
                .isPresent();
        assertThat(output.counterpart(Counterpart.W6_VISIT_ALL_THREADS).orElseThrow().medianSeconds()).isEqualTo(0.0074);
        assertThat(output.w6()).containsExactly(new W6Check(1, 4_000_000, 7_999_998_000_000L, 54_932));
    }

    @Test
    void aFailedCheckIsReported() {
        List<String> lines = new ArrayList<>(reference());
        lines.set(lines.size() - 1, "total benchmark wall time 97.2 s; checks FAILED");
        lines.add(lines.size() - 3, "  CHECK FAILED: W6");
        OpenVdbOutput output = OpenVdbOutput.parse(lines);
        assertThat(output.checksPassed()).isFalse();
        assertThat(output.failedChecks()).containsExactly("W6");
    }

    @Test
    void aMalformedNumberNamesItsLine() {
        List<String> lines = new ArrayList<>(reference());
        int w1s = indexOf(lines, "  [W1s ] build sorted");
        lines.set(w1s, lines.get(w1s).replace("med   0.0610", "med   0.0x10"));
        assertThatThrownBy(() -> OpenVdbOutput.parse(lines)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line " + (w1s + 1)).hasMessageContaining("med=0.0x10")
                .hasMessageContaining("build sorted: ValueAccessor::setValue");

        List<String> nan = new ArrayList<>(reference());
        nan.set(w1s, nan.get(w1s).replace("max   0.0621", "max      nan"));
        assertThatThrownBy(() -> OpenVdbOutput.parse(nan)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max=nan");

        List<String> checksum = new ArrayList<>(reference());
        int w2 = indexOf(checksum, "CHECKSUM W2 sum =");
        checksum.set(w2, "CHECKSUM W2 sum = 21268.32x (exact 21268.324701510253)");
        assertThatThrownBy(() -> OpenVdbOutput.parse(checksum)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line " + (w2 + 1)).hasMessageContaining("W2 sum=21268.32x");

        List<String> header = new ArrayList<>(reference());
        header.set(0, header.get(0).replace("hardware threads 2", "hardware threads two"));
        assertThatThrownBy(() -> OpenVdbOutput.parse(header)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1").hasMessageContaining("hardware threads=two");
    }

    @Test
    void aResultRowCutShortIsAnErrorNotAMissingRow() {
        List<String> lines = new ArrayList<>(reference().subList(0, 17));
        String w1s = lines.get(16);
        lines.set(16, w1s.substring(0, w1s.indexOf(" med")));
        assertThatThrownBy(() -> OpenVdbOutput.parse(lines)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 17 is a result row");

        List<String> table = List.of("| W1s  | build sorted: ValueAccessor::setValue | 0.1252 | 0.0605 |");
        assertThatThrownBy(() -> OpenVdbOutput.parse(table)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1 is a table row");
    }

    private static double median(Counterpart key) {
        return REFERENCE.counterpart(key).orElseThrow().medianSeconds();
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with " + prefix);
    }

    private static int lastIndexOf(List<String> lines, String prefix) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with " + prefix);
    }
}
