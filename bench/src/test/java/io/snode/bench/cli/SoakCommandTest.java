package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SoakCommandTest {
    @Test
    void aShortSoakPrintsProgressAndPasses() {
        SnodeCliTest.Result result = SnodeCliTest.run("soak", "--minutes", "0.02", "--threads", "2", "--seed", "3",
                "--report-seconds", "0.5");
        assertThat(result.code()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("snode soak: 2 threads for 1.2 s, seed 3", "ops/s", "footprint", "PASSED");
        assertThat(result.out().lines().filter(line -> line.matches(" +\\d+\\.\\d s .*MiB.*"))).hasSizeGreaterThanOrEqualTo(1);
    }

    @Test
    void hashPutsHashNodesInPlaceOfThePointerNodes() {
        SnodeCliTest.Result result = SnodeCliTest.run("soak", "--minutes", "0.01", "--threads", "2", "--seed", "3",
                "--hash");
        assertThat(result.code()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("layout " + io.snode.bench.soak.Soak.HASH_LAYOUT_TEXT, "PASSED");
    }

    @Test
    void threeDWithHashPutsHashNodesIntoTheLayoutOnThreeCoordinates() {
        SnodeCliTest.Result result = SnodeCliTest.run("soak", "--minutes", "0.01", "--threads", "2", "--seed", "3",
                "--3d", "--hash");
        assertThat(result.code()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("layout " + io.snode.bench.soak.Soak.LAYOUT_TEXT_3D.replace("pointer(", "hash("),
                "PASSED");
    }

    @Test
    void faultEveryInjectsAllocatorFaultsAndSaysHowManyCallsTheyRefused() {
        SnodeCliTest.Result result = SnodeCliTest.run("soak", "--minutes", "0.01", "--threads", "2", "--seed", "3",
                "--fault-every", "1");
        assertThat(result.code()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("injected allocator faults: about one request in 1 fails",
                "refused cap/full/fault", "PASSED").containsPattern("injected allocator faults: ([0-9,]+) of \\1 requests failed");
    }

    @Test
    void badOptionsExitWithTwoAndSayWhatIsAllowed() {
        SnodeCliTest.Result zero = SnodeCliTest.run("soak", "--minutes", "0");
        assertThat(zero.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(zero.err()).contains("--minutes=0 must be above 0");
        SnodeCliTest.Result threads = SnodeCliTest.run("soak", "--minutes", "0.01", "--threads", "0");
        assertThat(threads.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(threads.err()).contains("--threads=0 must be between 1 and 64");
        SnodeCliTest.Result cap = SnodeCliTest.run("soak", "--minutes", "0.01", "--cap-mib", "-1");
        assertThat(cap.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(cap.err()).contains("--cap-mib=-1 must be above 0");
        SnodeCliTest.Result faults = SnodeCliTest.run("soak", "--minutes", "0.01", "--fault-every", "0");
        assertThat(faults.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(faults.err()).contains("--fault-every=0 must be between 1 and 1000000000");
        SnodeCliTest.Result tiny = SnodeCliTest.run("soak", "--minutes", "0.01", "--cap-mib", "0.001");
        assertThat(tiny.code()).as(tiny.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(tiny.err()).contains("--cap-mib=0.001 is too small: compiling the soak's layout needs")
                .doesNotContain("a bug");
    }

    /** Out-of-range numbers are echoed as typed, not in Java's rendering of the parsed double. */
    @Test
    void anOutOfRangeNumberIsEchoedAsTyped() {
        SnodeCliTest.Result cap = SnodeCliTest.run("soak", "--cap-mib=99999999999999");
        assertThat(cap.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(cap.err()).contains("--cap-mib=99999999999999 must be above 0 and at most 1048576");
        SnodeCliTest.Result minutes = SnodeCliTest.run("soak", "--minutes", "1e9");
        assertThat(minutes.err()).contains("--minutes=1e9 must be above 0 and at most 10080");
        SnodeCliTest.Result report = SnodeCliTest.run("soak", "--minutes", "0.01", "--report-seconds", "3601");
        assertThat(report.err()).contains("--report-seconds=3601 must be above 0 and at most 3600");
    }

    /** A duration above 0 shorter than a nanosecond runs (it failed with "durationNanos=0 must be positive", exit 1). */
    @Test
    void aDurationShorterThanANanosecondStillRuns() {
        SnodeCliTest.Result tiny = SnodeCliTest.run("soak", "--minutes", "1e-300", "--threads", "1");
        assertThat(tiny.code()).as(tiny.out() + tiny.err()).isZero();
        assertThat(tiny.out()).contains("PASSED");
    }

    /** The help states the limits the command enforces. */
    @Test
    void theHelpStatesTheLimits() {
        SnodeCliTest.Result help = SnodeCliTest.run("soak", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80));
        String options = help.out().replaceAll("\\R +", " ");
        assertThat(options).contains("above 0 and at most 10080 (a week)", "above 0 and at most 1048576 (1 TiB)",
                "above 0 and at most 3600", "worker threads, 1 to 64", "1 to 1000000000");
    }
}
