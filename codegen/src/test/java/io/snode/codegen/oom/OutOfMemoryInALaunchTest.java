package io.snode.codegen.oom;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A launch that an {@link OutOfMemoryError} ends leaves the phase lock as it found it, even when
 * it is the JVM's first launch: exiting the lock allocates nothing then (until 12-06 the first
 * exit linked its atomic update, which allocates, and a full heap left the lock counting a launch
 * that had ended, so every later collection, {@code parallelism(n)} and {@code close()} waited
 * forever). Runs {@link FirstLaunchOutOfMemory} in a JVM of its own with a 64 MiB heap.
 */
class OutOfMemoryInALaunchTest {
    @Test
    void theFirstLaunchOfAJvmEndedByOutOfMemoryLeavesNoLaunchCounted() throws Exception {
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), FirstLaunchOutOfMemory.class.getName()))
                .redirectErrorStream(true)
                .start();
        boolean ended = process.waitFor(120, TimeUnit.SECONDS);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended).as("the child ended; output:%n%s", output).isTrue();
        assertThat(process.exitValue()).as("output:%n%s", output).isZero();
        assertThat(output).contains("launches active after the launch: 0");
    }
}
