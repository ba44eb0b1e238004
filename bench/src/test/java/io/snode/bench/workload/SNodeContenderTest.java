package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every workload on L1 and L2 over the quick band, one run each: every checksum equals its reference. */
class SNodeContenderTest {
    private static Contender.Context context;

    @BeforeAll
    static void data() {
        context = new Contender.Context(DataSet.quick(), new Trials(0, 1, line -> { }), List.of(1, 2));
    }

    private static List<Result> runAll(SNodeContender contender) {
        List<Result> results = new ArrayList<>();
        try (contender) {
            for (Workload workload : Workload.values()) {
                results.addAll(contender.run(workload, context));
            }
        }
        return results;
    }

    @Test
    void l1RunsEveryWorkloadWithItsChecksums() {
        List<Result> results = runAll(SNodeContender.l1());
        assertThat(results).allSatisfy(r -> assertThat(r.checks()).as(r.key()).isEqualTo(Result.OK));
        assertThat(results).extracting(Result::workload).contains("W1s", "W1r", "W2", "W3", "W4", "W5", "W6", "W6v");
        assertThat(results).filteredOn(r -> r.workload().equals("W5")).extracting(Result::threads).contains(1, 2);
        Result w1s = results.get(0);
        assertThat(w1s.count()).isEqualTo(context.data().references().activeCells(DataSet.Activity.BLOCK));
        assertThat(w1s.bytesPerVoxel()).isGreaterThan(4.0);
        assertThat(w1s.medianS()).isPositive();
        Result w4 = results.stream().filter(r -> r.workload().equals("W4")).findFirst().orElseThrow();
        assertThat(w4.heldBytesAfter()).isLessThanOrEqualTo(w4.heldBytesBefore());
    }

    @Test
    void l2RunsEveryWorkloadButW6WithItsChecksums() {
        List<Result> results = runAll(SNodeContender.l2());
        assertThat(results).allSatisfy(r -> assertThat(r.checks()).as(r.key()).isEqualTo(Result.OK));
        assertThat(results).extracting(Result::workload).doesNotContain("W6", "W6v");
        Result w3 = results.stream().filter(r -> r.workload().equals("W3")).findFirst().orElseThrow();
        assertThat(w3.count()).isEqualTo(context.data().references().voxels());
        // W2 and W5 each have rows over the runtime with huge pages too, at every thread count of W5,
        // and W4 one where the collection gives whole huge pages back.
        assertThat(results).filteredOn(r -> r.api().contains("huge pages"))
                .extracting(r -> r.workload() + " T=" + r.threads())
                .containsExactlyInAnyOrder("W2 T=1", "W4 T=1", "W5 T=1", "W5 T=2");
        // The bulk import builds W1s, W1r and W5 (a part per thread) too.
        assertThat(results).filteredOn(r -> r.api().startsWith("bulk import"))
                .extracting(r -> r.workload() + " T=" + r.threads())
                .containsExactlyInAnyOrder("W1s T=1", "W1r T=1", "W5 T=1", "W5 T=2");
        // W4 rewrites through the bulk import too, after one region deactivation, to the same checksums.
        assertThat(results).filteredOn(r -> r.workload().equals("W4"))
                .extracting(Result::api)
                .contains("region deactivation + bulk import of the rewritten voxels (Bulk.writeCells)");
    }

    /** A layout text runs W1s, W3 and W4 with L1's or L2's checksums, per its leaf, and takes no part in W6. */
    @Test
    void layoutTextsRunWithTheChecksumsOfTheirActivity() {
        for (String text : List.of(ContendersTest.DEEPER_L2,
                "pointer(ijk,32).pointer(ijk,8).dense(ijk,2).dense(ijk,4).place(f32 phi)")) {
            List<Result> results = new ArrayList<>();
            DataSet.Activity activity;
            try (SNodeContender contender = SNodeContender.of(text)) {
                activity = contender.activity();
                for (Workload workload : List.of(Workload.W1S, Workload.W3, Workload.W4, Workload.W6, Workload.W6V)) {
                    results.addAll(contender.run(workload, context));
                }
            }
            assertThat(results).as(text).allSatisfy(r -> assertThat(r.checks()).as(r.key()).isEqualTo(Result.OK));
            assertThat(results).extracting(Result::structure).containsOnly(text);
            assertThat(results).extracting(Result::workload).containsOnly("W1s", "W3", "W4").contains("W1s", "W3", "W4");
            Result w3 = results.stream().filter(r -> r.workload().equals("W3")).findFirst().orElseThrow();
            assertThat(w3.count()).isEqualTo(context.data().references().activeCells(activity));
            Result w4 = results.stream().filter(r -> r.workload().equals("W4")).findFirst().orElseThrow();
            assertThat(w4.heldBytesAfter()).isLessThanOrEqualTo(w4.heldBytesBefore());
        }
    }

    @Test
    void aWrongChecksumIsReported() {
        Trials.Timed<Object> timed = new Trials.Timed<>(List.of(1.0), null, 0);
        Result result = Row.of(Workload.W1S, SNodeContender.l1(), 1, "x", timed, 10)
                .checksums(context.data().references().voxels(), 1.5, null)
                .check(context.data().references(), DataSet.Activity.BLOCK);
        assertThat(result.checksumsOk()).isFalse();
        assertThat(result.checks()).startsWith("sum 1.500000000000 (expected 9699.728345140815");
    }
}
