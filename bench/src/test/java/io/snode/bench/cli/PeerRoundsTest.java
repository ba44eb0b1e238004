package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.bench.peer.OpenVdbOutput;
import io.snode.bench.workload.BenchReport;
import io.snode.bench.workload.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OpenVDB's output as rows of the bench table, their ratios against ours, and the chart. */
class PeerRoundsTest {
    static OpenVdbOutput reference() throws IOException {
        try (InputStream in = Objects.requireNonNull(
                PeerRoundsTest.class.getResourceAsStream("/io/snode/bench/peer/reference-output.txt"))) {
            return OpenVdbOutput.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList());
        }
    }

    @Test
    void everyCounterpartBecomesACheckedRow() throws IOException {
        List<Result> rows = PeerRounds.rows(reference());
        assertThat(rows).extracting(r -> r.workload() + "/" + r.threads())
                .containsExactly("W1s/1", "W1r/1", "W2/1", "W3/1", "W3/1", "W4/1", "W5/1", "W5/2", "W6/1", "W6v/1");
        assertThat(rows).allSatisfy(r -> assertThat(r.checks()).as(r.key()).isEqualTo(Result.OK));
        Result w1s = rows.get(0);
        assertThat(w1s.medianS()).isEqualTo(0.0610);
        assertThat(w1s.minS()).isEqualTo(0.0605);
        assertThat(w1s.bytesPerVoxel()).isCloseTo(15.858, org.assertj.core.data.Offset.offset(0.001));
        Result w4 = rows.get(5);
        assertThat(w4.heldBytesBefore()).isEqualTo(127_631_588L);
        assertThat(w4.heldBytesAfterDelete()).isEqualTo(63_994_500L);
        assertThat(rows.get(4).api()).startsWith("per cell: grid->cbeginValueOn()");
    }

    @Test
    void ratiosAreTakenWithinARoundAndThePerCellRowPerCell(@TempDir Path dir) throws IOException {
        List<Result> all = new ArrayList<>();
        for (Result row : PeerRounds.rows(reference())) {
            all.add(row.inRound(1));
        }
        Result vdbW1s = all.get(0);
        Result vdbPerCell = all.get(4);
        all.add(ours("W1s", "L1", "caching accessor", vdbW1s.medianS() * 2, 8_048_580));
        // 3.6 times the cells in 3.6 times OpenVDB's time: the same time per cell.
        all.add(ours("W3", "L1", "struct-for per cell + caching accessor", vdbPerCell.medianS() * 28_993_536 / 8_048_580,
                28_993_536));
        all.add(ours("W1s", "hashmap", "HashMap.computeIfAbsent", vdbW1s.medianS() * 4, 8_048_580));
        BenchReport report = BenchReport.of(all);
        BenchReport.Row l1 = report.rows().stream().filter(r -> r.first().structure().equals("L1")
                && r.first().workload().equals("W1s")).findFirst().orElseThrow();
        assertThat(l1.vsOpenVdb().getAsDouble()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(l1.vsHashmap().getAsDouble()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        BenchReport.Row perCell = report.rows().stream().filter(r -> r.first().workload().equals("W3")
                && r.first().structure().equals("L1")).findFirst().orElseThrow();
        assertThat(perCell.vsOpenVdb().getAsDouble()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));

        Path png = dir.resolve("ratios.png");
        assertThat(PeerRounds.chart(report, png)).isEqualTo("OpenVDB");
        assertThat(ImageIO.read(png.toFile()).getWidth()).isPositive();
    }

    private static Result ours(String workload, String structure, String api, double median, long items) {
        return new Result(workload, structure, 1, api, 1, 0, List.of(median), median, median, items, items / median,
                null, null, null, null, null, null, null, null, Result.OK, null);
    }
}
