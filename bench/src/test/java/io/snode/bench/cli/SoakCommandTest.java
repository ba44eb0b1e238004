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
    void badOptionsExitWithTwoAndSayWhatIsAllowed() {
        SnodeCliTest.Result zero = SnodeCliTest.run("soak", "--minutes", "0");
        assertThat(zero.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(zero.err()).contains("--minutes=0.0 must be above 0");
        SnodeCliTest.Result threads = SnodeCliTest.run("soak", "--minutes", "0.01", "--threads", "0");
        assertThat(threads.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(threads.err()).contains("--threads=0 must be between 1 and 64");
        SnodeCliTest.Result cap = SnodeCliTest.run("soak", "--minutes", "0.01", "--cap-mib", "-1");
        assertThat(cap.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(cap.err()).contains("--cap-mib=-1.0 must be above 0");
        SnodeCliTest.Result tiny = SnodeCliTest.run("soak", "--minutes", "0.01", "--cap-mib", "0.001");
        assertThat(tiny.code()).as(tiny.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(tiny.err()).contains("--cap-mib=0.001 is too small: compiling the soak's layout needs")
                .doesNotContain("a bug");
    }
}
