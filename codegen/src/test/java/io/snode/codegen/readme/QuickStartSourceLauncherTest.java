package io.snode.codegen.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, copied as it stands into {@code QuickStart.java} (a whole program
 * with its {@code main}) and run with the JDK's source launcher, with no flags: its interface
 * then lives in the launcher's own class loader, not in the library's.
 */
class QuickStartSourceLauncherTest {

    @Test
    void theReadmeSnippetRunsWithTheSourceLauncher(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int section = readme.indexOf("## Quick start in Java");
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        String snippet = readme.substring(start, readme.indexOf("```", start));
        assertThat(snippet).contains("runtime.bind(Grid.class)", "public static void main(String[] args)");
        Path file = dir.resolve("QuickStart.java");
        Files.writeString(file, snippet);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), file.toString()))
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = process.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended).as("the source launcher ended within 120 s").isTrue();
        assertThat(process.exitValue()).as("exit status; stderr:%n%s", Files.readString(err)).isZero();
        assertThat(Files.readString(out).strip()).isEqualTo("5.0");
    }
}
