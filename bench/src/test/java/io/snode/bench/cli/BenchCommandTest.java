package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
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
    void countsOutOfRangeAndAMissingHarnessDirectoryAreRefused(@TempDir Path dir) {
        assertThat(SnodeCliTest.run("bench", "--quick", "--rounds", "0").err()).contains("--rounds=0 must be between 1 and 1000");
        assertThat(SnodeCliTest.run("bench", "--quick", "--runs", "0").code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(SnodeCliTest.run("bench", "--quick", "--warmups", "-1").err()).contains("--warmups=-1 must be between 0 and 100");
        assertThat(SnodeCliTest.run("bench", "--quick", "--threads", "0").err()).contains("--threads=0 must be between 1 and 256");
        SnodeCliTest.Result peers = SnodeCliTest.run("bench", "--peers", dir.resolve("missing").toString());
        assertThat(peers.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(peers.err()).contains("is not a directory (the OpenVDB harness");
    }
}
