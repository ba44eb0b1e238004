package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table names a layout text by a short label, with the text and its notes in a legend; it
 * shows how far the rounds' own ratios spread around their median.
 */
class BenchReportTest {
    private static final String LAYOUT = "pointer(ijk,64).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    private static final String OTHER = "pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)";

    @Test
    void aLayoutTextIsShownAsItsLabelWithTheTextInTheLegend() {
        List<Result> results = List.of(row("L1"), row(LAYOUT));
        BenchReport report = BenchReport.of(results, List.of("L1", OTHER, LAYOUT));
        assertThat(report.label("L1")).isEqualTo("L1");
        assertThat(report.label(OTHER)).isEqualTo("layout#1");
        assertThat(report.label(LAYOUT)).isEqualTo("layout#2");
        assertThat(report.labels()).containsOnlyKeys(OTHER, LAYOUT);

        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text), Map.of(LAYOUT, List.of("a note", "another")));
        List<String> lines = text.toString().lines().toList();
        String l1 = lines.stream().filter(l -> l.startsWith("W1s  L1 ")).findFirst().orElseThrow();
        String ours = lines.stream().filter(l -> l.startsWith("W1s  layout#2 ")).findFirst().orElseThrow();
        assertThat(ours).hasSameSizeAs(l1).doesNotContain("pointer");
        assertThat(lines).containsSubsequence("layout#1 = " + OTHER, "layout#2 = " + LAYOUT, "  a note", "  another");
        // Without the structures given, the labels follow the results.
        assertThat(BenchReport.of(results).label(LAYOUT)).isEqualTo("layout#1");
    }

    @Test
    void theRoundsOwnRatiosAreShownAsARangeAndWrittenToTheJson(@TempDir Path dir) throws IOException {
        // OpenVDB 0.10, 0.20 and 0.10 s; ours 0.05, 0.14 and 0.06 s: 0.5, 0.7 and 0.6 of OpenVDB, median 0.6.
        double[] theirs = {0.10, 0.20, 0.10};
        double[] ours = {0.05, 0.14, 0.06};
        List<Result> results = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            results.add(timed(BenchReport.OPENVDB, "ValueAccessor::setValue", theirs[round]).inRound(round + 1));
            results.add(timed("L1", "caching accessor", ours[round]).inRound(round + 1));
        }
        results.add(timed("L2", "caching accessor", 0.08).inRound(1)); // one round: no range
        results.add(timed(BenchReport.OPENVDB, "ValueAccessor::setValue", 0.1).inRound(4));
        BenchReport report = BenchReport.of(results);
        BenchReport.Row l1 = report.rows().stream().filter(r -> r.first().structure().equals("L1")).findFirst()
                .orElseThrow();
        assertThat(l1.vsOpenVdb().getAsDouble()).isCloseTo(0.6, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l1.roundsVsOpenVdb()).hasSize(3);
        assertThat(l1.roundsVsOpenVdb().get(1)).isCloseTo(0.7, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l1.roundsVsHashmap()).isEmpty();

        StringWriter text = new StringWriter();
        report.printTable(new PrintWriter(text));
        List<String> lines = text.toString().lines().toList();
        assertThat(lines.get(0)).contains("/OpenVDB", "rounds");
        String l1Line = lines.stream().filter(l -> l.startsWith("W1s  L1 ")).findFirst().orElseThrow();
        assertThat(l1Line).contains(" 0.60 ", " 0.50-0.70 ");
        String l2Line = lines.stream().filter(l -> l.startsWith("W1s  L2 ")).findFirst().orElseThrow();
        assertThat(l2Line).contains(" 0.80 ").doesNotContain("-0.");
        assertThat(l2Line).hasSameSizeAs(l1Line);

        Path file = dir.resolve("run.json");
        report.writeJson(file, Map.of("rounds", 3));
        JsonNode written = WorkloadMain.json().readTree(Files.readString(file));
        JsonNode l1Record = null;
        for (JsonNode record : written.get("results")) {
            if (record.get("structure").asText().equals("L1")) {
                l1Record = record;
            }
        }
        assertThat(l1Record).isNotNull();
        assertThat(l1Record.get("round_ratios_openvdb")).hasSize(3);
        assertThat(l1Record.get("round_ratios_openvdb").get(0).asDouble()).isCloseTo(0.5,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l1Record.get("round_ratios_openvdb").get(2).asDouble()).isCloseTo(0.6,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l1Record.has("round_ratios_hashmap")).isFalse();
    }

    private static Result timed(String structure, String api, double seconds) {
        return new Result("W1s", structure, 1, api, null, 0, List.of(seconds), seconds, seconds, 100, 100 / seconds,
                null, null, null, null, null, null, null, null, Result.OK, null);
    }

    private static Result row(String structure) {
        return new Result("W1s", structure, 1, "caching accessor", 1, 0, List.of(0.5), 0.5, 0.5, 100, 200.0, null,
                null, null, null, null, null, null, null, Result.OK, null);
    }
}
