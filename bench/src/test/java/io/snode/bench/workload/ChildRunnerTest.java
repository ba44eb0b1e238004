package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The child's command line carries a layout text as one argument, as given. */
class ChildRunnerTest {
    @Test
    void aLayoutTextIsOneArgumentAfterStructure() {
        String text = "pointer(ijk,64).pointer(ijk,16){ place(f32 a, f32 b); dense(ijk,8).place(f32 phi) }";
        ChildRunner runner = new ChildRunner(Path.of("/jdk/bin/java"), "a.jar", 60);
        List<String> command = runner.command(text, List.of(Workload.W1S, Workload.W3), true, 0, 0.5, 1, List.of(1, 2), "1g");
        int at = command.indexOf("--structure");
        assertThat(command.get(at + 1)).isEqualTo(text);
        assertThat(command.subList(at + 2, command.size()))
                .containsExactly("--workloads", "W1s,W3", "--quick", "--warmups", "0", "--warmup-seconds", "0.5", "--runs", "1",
                        "--threads", "1,2");
        assertThat(command).contains("-Xmx1g").startsWith("/jdk/bin/java");
    }
}
