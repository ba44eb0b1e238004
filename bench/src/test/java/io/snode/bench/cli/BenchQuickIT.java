package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.snode.bench.workload.WorkloadMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./snode bench --quick} as a user runs it, after {@code package} (Failsafe's
 * integration-test phase): the script finds the jar just built, every structure runs every
 * workload it takes part in once on the quick band, and every checksum equals the value the
 * runner computed from the sorted list.
 */
class BenchQuickIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final long TIMEOUT_SECONDS = 240;

    @Test
    void theQuickRunPassesItsChecksumsOnEveryStructure() throws IOException, InterruptedException {
        Path json = Path.of("target", "bench-quick.json").toAbsolutePath();
        Path log = Path.of("target", "bench-quick.out").toAbsolutePath();
        Files.deleteIfExists(json);
        Process process = new ProcessBuilder(ROOT.resolve("snode").toString(), "bench", "--quick", "--json",
                json.toString()).directory(ROOT.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("ended within %d s:%n%s", TIMEOUT_SECONDS, output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("checksums: all equal their reference values").doesNotContain("snode: building");

        JsonNode root = WorkloadMain.json().readTree(json.toFile());
        List<JsonNode> records = new ArrayList<>();
        root.get("results").forEach(records::add);
        Set<String> structures = new HashSet<>();
        Set<String> workloads = new HashSet<>();
        for (JsonNode record : records) {
            assertThat(record.get("checks").asText()).as(record.toString()).isEqualTo("ok");
            assertThat(record.get("median_s").asDouble()).as(record.toString()).isPositive();
            structures.add(record.get("structure").asText());
            workloads.add(record.get("workload").asText());
        }
        assertThat(structures).containsExactlyInAnyOrder("L1", "L2", "hashmap", "fastutil", "dense", "floors");
        assertThat(workloads).containsExactlyInAnyOrder("W1s", "W1r", "W2", "W3", "W4", "W5", "W6", "W6v");
        assertThat(root.get("run").get("band").asText()).isEqualTo("quick");
    }
}
