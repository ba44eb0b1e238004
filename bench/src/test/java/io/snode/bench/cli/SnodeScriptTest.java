package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./snode} script itself, run by bash: a copy of it in a temporary project root whose
 * {@code bench/target/snode-bench.jar} is a manifest-only jar naming this test's class path, so
 * the script runs the classes under test without building anything (no source is newer than the
 * jar), on the JDK that runs this test ({@code JAVA_HOME}).
 */
class SnodeScriptTest {
    private static final Path SCRIPT = Path.of("..", "snode").toAbsolutePath().normalize();
    private static final String INCUBATOR_LINE = "WARNING: Using incubator modules";
    private static final long TIMEOUT_SECONDS = 120;

    @TempDir
    Path root;

    Path jar;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void copyTheScriptNextToAJarOfTheTestClassPath() throws IOException {
        assumeTrue(Files.isRegularFile(SCRIPT), "the script at " + SCRIPT);
        assumeTrue(new File("/bin/bash").canExecute() || new File("/usr/bin/bash").canExecute(), "bash");
        Path script = root.resolve("snode");
        Files.copy(SCRIPT, script);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        jar = root.resolve("bench/target/snode-bench.jar");
        Files.createDirectories(jar.getParent());
        writeClassPathJar(jar);
    }

    @Test
    void helpVersionAndInspectRunWithoutTheIncubatorModule() throws Exception {
        for (List<String> args : List.<List<String>>of(List.of(), List.of("--help"), List.of("-h"), List.of("--version"),
                List.of("help"), List.of("inspect", "--plan-only", SnodeCliTest.L1),
                List.of("inspect", SnodeCliTest.L1), List.of("demo", "--help"), List.of("soak", "-h"),
                List.of("bench", "--quick", "--help"))) {
            Result result = snode(args);
            assertThat(result.code()).as("%s: %s", args, result.err()).isZero();
            assertThat(result.err()).as("stderr of ./snode %s", args).isEmpty();
            assertThat(result.out()).as("stdout of ./snode %s", args).isNotEmpty();
        }
        assertThat(snode(List.of("inspect", SnodeCliTest.L1)).out()).contains("generated class", "get_phi");
    }

    /** SNODE_JAVA_OPTS reaches the JVM: the stack trace the failure message offers can be had. */
    @Test
    void javaOptionsComeFromSnodeJavaOpts() throws Exception {
        Result plain = snode(List.of("inspect", "--plan-only", SnodeCliTest.L1), null, java.util.Map.of(
                "SNODE_JAVA_OPTS", "-Dsnode.probe=1 -Duser.language=en"));
        assertThat(plain.code()).as(plain.err()).isZero();
        Result bad = snode(List.of("--version"), null, java.util.Map.of("SNODE_JAVA_OPTS", "-XX:+NoSuchOption"));
        assertThat(bad.code()).isNotZero();
        assertThat(bad.err()).contains("NoSuchOption");
    }

    @Test
    void theDemoLoadsTheModuleAndTheJvmSaysSoOnce() throws Exception {
        Path out = root.resolve("pictures");
        Result result = snode(List.of("demo", "--steps", "2", "--particles", "50", "--threads", "1",
                "--out", out.toString()));
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(occurrences(result.err(), INCUBATOR_LINE)).as(result.err()).isEqualTo(1);
        assertThat(result.out()).contains("checksum");
        assertThat(out.resolve("demo.png")).exists();
    }

    @Test
    void theFirstBuildPrintsOneReadableLinePerModuleAndNoEscapeCodes() throws Exception {
        Path saved = Files.move(jar, root.resolve("saved.jar"));
        // A stand-in for Maven: prints what Maven 3.8 prints in batch mode (escape codes included),
        // records its arguments and puts the jar in place.
        Path bin = Files.createDirectories(root.resolve("bin"));
        writeExecutable(bin.resolve("mvn"), """
                #!/usr/bin/env bash
                echo "$@" > "%s"
                printf '\\033[0m\\033[0m[INFO] Scanning for projects...\\n'
                echo '[INFO] ------------------------< io.snode:snode-api >-------------------------'
                echo '[INFO] Building SNode API: the layout language 0.1.0-SNAPSHOT             [2/6]'
                echo '[INFO] --- maven-compiler-plugin:3.14.1:compile (default-compile) @ snode-api ---'
                echo '[INFO] Building jar: /somewhere/snode-api-0.1.0-SNAPSHOT.jar'
                echo '[INFO] Building SNode command line and benchmarks 0.1.0-SNAPSHOT          [6/6]'
                printf '\\033[1mBUILD SUCCESS\\033[m\\n'
                cp "%s" "%s"
                printf '\\033[0m\\033[0m'
                """.formatted(root.resolve("mvn-args"), saved, jar));
        Result result = snode(List.of("--version"), bin);
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(result.out()).startsWith("snode ");
        assertThat(result.err()).doesNotContain("\033")
                .contains("snode: building SNode API: the layout language (module 2 of 6)")
                .contains("snode: building SNode command line and benchmarks (module 6 of 6)")
                .doesNotContain("Building jar", "maven-compiler-plugin", "Scanning");
        assertThat(result.err()).containsPattern("snode: built in \\d+ s");
        String mavenArgs = Files.readString(root.resolve("mvn-args"));
        assertThat(mavenArgs).contains("-B", "-ntp", "-Dstyle.color=never", "package").doesNotContain("-q");
    }

    @Test
    void aFailedBuildShowsMavensErrorsWithoutEscapeCodesAndWhereTheLogIs() throws Exception {
        Files.delete(jar);
        Path bin = Files.createDirectories(root.resolve("bin"));
        writeExecutable(bin.resolve("mvn"), """
                #!/usr/bin/env bash
                echo '[INFO] Building SNode API: the layout language 0.1.0-SNAPSHOT             [2/6]'
                echo '[INFO] a line only the log keeps'
                printf '\\033[1;31m[ERROR]\\033[m Failed to execute goal: compilation failure\\n'
                exit 1
                """);
        Result result = snode(List.of("--version"), bin);
        assertThat(result.code()).isEqualTo(1);
        assertThat(result.out()).isEmpty();
        assertThat(result.err()).doesNotContain("\033", "a line only the log keeps")
                .contains("[ERROR] Failed to execute goal: compilation failure", "snode: the build failed")
                .contains(root.resolve("target/snode-build.log").toString());
        assertThat(Files.readString(root.resolve("target/snode-build.log"))).contains("a line only the log keeps")
                .doesNotContain("\033");
    }

    @Test
    void sourcesNewerThanTheJarTriggerTheBuild() throws Exception {
        Path source = Files.createDirectories(root.resolve("api/src/main/java")).resolve("Changed.java");
        Files.writeString(source, "class Changed {}");
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(60)));
        Path bin = Files.createDirectories(root.resolve("bin"));
        writeExecutable(bin.resolve("mvn"), """
                #!/usr/bin/env bash
                touch "%s"
                echo '[INFO] Building SNode API: the layout language 0.1.0-SNAPSHOT             [2/6]'
                """.formatted(jar));
        Result result = snode(List.of("--version"), bin);
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(result.err()).contains("snode: building SNode API");
        Result again = snode(List.of("--version"), bin);
        assertThat(again.err()).isEmpty();
    }

    private Result snode(List<String> args) throws IOException, InterruptedException {
        return snode(args, null);
    }

    private Result snode(List<String> args, Path pathFirst) throws IOException, InterruptedException {
        return snode(args, pathFirst, java.util.Map.of());
    }

    private Result snode(List<String> args, Path pathFirst, java.util.Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(root.resolve("snode").toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("SNODE_JAVA_OPTS");
        builder.environment().putAll(environment);
        if (pathFirst != null) {
            builder.environment().put("PATH", pathFirst + File.pathSeparator + System.getenv("PATH"));
        }
        Path out = root.resolve("stdout.txt");
        Path err = root.resolve("stderr.txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("./snode " + args + " ran longer than " + TIMEOUT_SECONDS + " s");
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** A jar whose manifest's Class-Path names every entry of this test's class path. */
    private static void writeClassPathJar(Path jar) throws IOException {
        StringBuilder classPath = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                classPath.append(Path.of(entry).toAbsolutePath().toUri()).append(' ');
            }
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath.toString().strip());
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(file, manifest)) {
            // The manifest is the whole jar.
        }
    }

    private static void writeExecutable(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static int occurrences(String text, String part) {
        Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
