package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table names a layout text by a short label, with the text and its notes in a legend. */
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

    private static Result row(String structure) {
        return new Result("W1s", structure, 1, "caching accessor", 1, 0, List.of(0.5), 0.5, 0.5, 100, 200.0, null,
                null, null, null, null, null, null, null, Result.OK, null);
    }
}
