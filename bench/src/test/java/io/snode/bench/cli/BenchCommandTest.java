package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.snode.bench.workload.DataSet;
import io.snode.bench.workload.WorkloadLayout;
import io.snode.bench.workload.WorkloadMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code snode bench}'s options: bad ones exit with 2 and say what is allowed, before any workload runs. */
class BenchCommandTest {
    @Test
    void unknownWorkloadsAndStructuresNameTheKnownOnes() {
        SnodeCliTest.Result workload = SnodeCliTest.run("bench", "--quick", "--workload", "W1s,W9");
        assertThat(workload.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(workload.err()).contains("--workload: workload=W9 (known: W1s, W1r, W2, W3, W4, W5, W6, W6v)");
        SnodeCliTest.Result structure = SnodeCliTest.run("bench", "--quick", "--structure", "L1,btree");
        assertThat(structure.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(structure.err()).contains("--structure=btree (known: L1, L2, hashmap, fastutil, dense");
        assertThat(structure.out()).doesNotContain("W1s");
    }

    @Test
    void layoutTextsAreCheckedBeforeAnyChildStarts() {
        SnodeCliTest.Result noPhi = SnodeCliTest.run("bench", "--quick", "--structure",
                "L1,pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 rho)");
        assertThat(noPhi.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(noPhi.out()).isEmpty();
        assertThat(noPhi.err().strip()).doesNotContain("\n").startsWith("snode bench: --structure: layout=")
                .contains("they need an f32 field phi on i, j, k (3-D)", "it has no field phi; its fields are f32 rho on ijk");
        SnodeCliTest.Result flat = SnodeCliTest.run("bench", "--quick", "--structure", "pointer(ij,64).dense(ij,32).place(f32 phi)");
        assertThat(flat.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(flat.err()).contains("its phi is f32 on ij (2-D)");
        SnodeCliTest.Result garbled = SnodeCliTest.run("bench", "--quick", "--structure", "pointer(ijk,16).dense(ijk 8).place(f32 phi)");
        assertThat(garbled.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(garbled.err().strip()).doesNotContain("\n").contains("is not a layout: column ", "expected",
                "(fix the layout text; the grammar is in ./snode inspect --help)");
        SnodeCliTest.Result nothing = SnodeCliTest.run("bench", "--quick", "--structure", " , ");
        assertThat(nothing.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(nothing.err()).contains("names no structure");
    }

    /**
     * The whole path of a layout text: picocli, the splitter, the child JVM's argument, the
     * table's label and legend, the JSON's structure, and W1s's checksums on the quick band.
     */
    @Test
    void aLayoutTextRunsInAChildWithTheReferenceChecksums(@TempDir Path dir) throws IOException {
        String given = "pointer(ijk, 64).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
        String canonical = "pointer(ijk,64).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
        Path json = dir.resolve("bench.json");
        SnodeCliTest.Result result = SnodeCliTest.run("bench", "--quick", "--structure", given + ",", "--structure",
                canonical, "--workload", "W1s,W6", "--json", json.toString());
        assertThat(result.code()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("checksums: all equal their reference values",
                "layout#1 = " + canonical + System.lineSeparator(),
                "  whole 8^3 blocks active, the cells of pointer(ijk,16) (as L1); W4 deactivates them",
                "  not applicable: W6 (W6's particle lists are a layout of their own, run with L1)");
        assertThat(result.out().lines().filter(line -> line.startsWith("W1s  layout#1 ")))
                .hasSize(3).allSatisfy(line -> assertThat(line).endsWith(" ok"));
        assertThat(result.out().lines().filter(line -> line.startsWith("W6"))).isEmpty();

        JsonNode records = WorkloadMain.json().readTree(json.toFile()).get("results");
        assertThat(records).hasSize(3);
        for (JsonNode record : records) {
            assertThat(record.get("structure").asText()).isEqualTo(canonical);
            assertThat(record.get("label").asText()).isEqualTo("layout#1");
            assertThat(record.get("workload").asText()).isEqualTo("W1s");
            assertThat(record.get("checks").asText()).isEqualTo("ok");
            assertThat(record.get("n").asLong()).isEqualTo(503_092);
            assertThat(record.get("sum").asDouble()).isEqualTo(9699.728345140815);
            assertThat(record.get("count").asLong()).isEqualTo(DataSet.quick().references().activeCells(DataSet.Activity.BLOCK));
        }
    }

    @Test
    void helpFitsEightyColumnsAndItsLayoutExampleRuns() {
        SnodeCliTest.Result help = SnodeCliTest.run("bench", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80));
        Matcher example = Pattern.compile("(?m)^ +'([^'\\n]+)'$").matcher(help.out());
        assertThat(example.find()).as("a layout example in:%n%s", help.out()).isTrue();
        assertThat(WorkloadLayout.parse(example.group(1)).activity()).isEqualTo(DataSet.Activity.BLOCK);
    }

    @Test
    void countsOutOfRangeAndAMissingHarnessDirectoryAreRefused(@TempDir Path dir) {
        assertThat(SnodeCliTest.run("bench", "--quick", "--rounds", "0").err()).contains("--rounds=0 must be between 1 and 1000");
        assertThat(SnodeCliTest.run("bench", "--quick", "--runs", "0").code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(SnodeCliTest.run("bench", "--quick", "--warmups", "-1").err()).contains("--warmups=-1 must be between 0 and 100");
        assertThat(SnodeCliTest.run("bench", "--quick", "--warmup-seconds", "-1").err())
                .contains("--warmup-seconds=-1 must be between 0 and 60");
        assertThat(SnodeCliTest.run("bench", "--quick", "--warmup-seconds", "NaN").code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(SnodeCliTest.run("bench", "--quick", "--threads", "0").err()).contains("--threads=0 must be between 1 and 256");
        SnodeCliTest.Result peers = SnodeCliTest.run("bench", "--peers", dir.resolve("missing").toString());
        assertThat(peers.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(peers.err()).contains("is not a directory (the OpenVDB harness");
    }

    @Test
    void aDirectoryGivenForTheJsonOrTheChartIsRefusedBeforeAnyRun(@TempDir Path dir) {
        for (String option : new String[] {"--json", "--chart"}) {
            SnodeCliTest.Result result = SnodeCliTest.run("bench", "--quick", option, dir.toString());
            assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(result.err()).contains(option + "=" + dir + " is a directory; name a file");
            assertThat(result.out()).as("nothing ran").doesNotContain("snode bench:");
        }
    }

    @Test
    void aChartWithoutAnythingToCompareWithIsRefusedBeforeAnyRun(@TempDir Path dir) {
        SnodeCliTest.Result result = SnodeCliTest.run("bench", "--quick", "--structure", "L1", "--workload", "W1s",
                "--chart", dir.resolve("c.png").toString());
        assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.err()).contains("--chart draws the time ratios against OpenVDB or hashmap");
        assertThat(result.out()).as("nothing ran").doesNotContain("snode bench:");
    }

    @Test
    void aJsonOrChartPathThatCannotBeWrittenIsRefusedBeforeAnyRun(@TempDir Path dir) throws java.io.IOException {
        Path file = java.nio.file.Files.writeString(dir.resolve("afile"), "x");
        for (String option : new String[] {"--json", "--chart"}) {
            SnodeCliTest.Result result = SnodeCliTest.run("bench", "--quick", option, file.resolve("y").toString());
            assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(result.err()).contains(option + "=" + file.resolve("y") + ": " + file + " is a file, not a directory");
            assertThat(result.out()).as("nothing ran").doesNotContain("snode bench:");
        }
    }

    /** A --json that names a FIFO is refused before any workload (the run blocked on it at its end). */
    @Test
    void aJsonFileThatIsAFifoIsRefused(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo.json");
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0,
                "no mkfifo");
        SnodeCliTest.Result run = SnodeCliTest.run("bench", "--quick", "--structure", "hashmap", "--workload", "W1s",
                "--json", fifo.toString());
        assertThat(run.code()).as(run.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(run.err()).contains("--json=" + fifo, "not a regular file");
    }

    /**
     * Every refusal comes before anything is created: a chart with nothing to compare with, a
     * chart path under a file, and a chart in a directory that takes no file leave no directory
     * of the --json path behind.
     */
    @Test
    void aRefusedRunCreatesNoDirectory(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("afile"), "x");
        SnodeCliTest.Result nothingToCompare = SnodeCliTest.run("bench", "--quick", "--structure", "L2", "--workload",
                "W1s", "--json", dir.resolve("nj/x.json").toString(), "--chart", dir.resolve("nc/x.png").toString());
        assertThat(nothingToCompare.code()).as(nothingToCompare.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(nothingToCompare.err()).contains("--chart draws the time ratios against OpenVDB or hashmap");
        SnodeCliTest.Result underAFile = SnodeCliTest.run("bench", "--quick", "--json",
                dir.resolve("nj2/x.json").toString(), "--chart", file.resolve("x.png").toString());
        assertThat(underAFile.code()).as(underAFile.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(underAFile.err()).contains("--chart=" + file.resolve("x.png") + ": " + file + " is a file");
        if (Files.isDirectory(Path.of("/proc/self"))) {
            SnodeCliTest.Result proc = SnodeCliTest.run("bench", "--quick", "--json",
                    dir.resolve("nj3/deeper/x.json").toString(), "--chart", "/proc/x.png");
            assertThat(proc.code()).as(proc.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(proc.err()).contains("--chart=/proc/x.png");
        }
        try (Stream<Path> listed = Files.list(dir)) {
            assertThat(listed).as("nothing created").containsExactly(file);
        }
    }

    /** --peers names the harness to run; with --quick or --no-peers none runs, so the combination is refused. */
    @Test
    void peersWithQuickOrNoPeersIsRefused(@TempDir Path dir) {
        // The chart (nothing to compare with) would be refused too, but after the contradiction.
        for (String without : new String[] {"--quick", "--no-peers"}) {
            SnodeCliTest.Result result = SnodeCliTest.run("bench", without, "--peers", dir.toString(), "--structure",
                    "L2", "--workload", "W1s", "--chart", dir.resolve("c.png").toString());
            assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(result.err().strip()).as(without).doesNotContain("\n")
                    .contains("--peers=" + dir, without, "drop");
            assertThat(result.out()).isEmpty();
        }
    }

    /** The help states each count's range, as the command enforces it, and prints the harness's path whole. */
    @Test
    void theHelpStatesTheRangesAndThePathWhole() {
        String help = SnodeCliTest.run("bench", "--help").out().replaceAll("\\R +", " ");
        assertThat(help).contains("rounds, 1 to 1000", "timed runs per workload, 1 to 1000",
                "warm-up runs before them, 0 to 100", "warm-ups in seconds, 0 to 60,", "1 to 256",
                "../shared/peers/openvdb", "at most " + io.snode.bench.workload.Trials.MAX_WARMUPS + " runs");
        SnodeCliTest.Result warmups = SnodeCliTest.run("bench", "--quick", "--warmups", "101");
        assertThat(warmups.err()).contains("--warmups=101 must be between 0 and 100");
        SnodeCliTest.Result seconds = SnodeCliTest.run("bench", "--quick", "--warmup-seconds", "1e3");
        assertThat(seconds.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(seconds.err()).as("what was typed").contains("--warmup-seconds=1e3 must be between 0 and 60");
    }
}
