package io.snode.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.bench.peer.OpenVdbPeer.Measured;
import io.snode.bench.peer.OpenVdbPeer.Result;
import io.snode.bench.peer.OpenVdbPeer.Unavailable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The unavailable paths and the plumbing, with fake harnesses: no OpenVDB is built here. */
class OpenVdbPeerTest {
    @TempDir
    Path temp;

    /** A machine with everything installed. */
    private static final FakeProbe READY = new FakeProbe(List.of(), true, true);

    record FakeProbe(List<String> missing, boolean root, boolean aptGet) implements OpenVdbPeer.SystemProbe {
        @Override
        public List<String> missingPackages(List<String> names) {
            return names.stream().filter(missing::contains).toList();
        }

        @Override
        public boolean isRoot() {
            return root;
        }

        @Override
        public boolean hasCommand(String name) {
            return name.equals("bash") || name.equals("apt-get") && aptGet;
        }
    }

    private Path harness(String script) throws IOException {
        Path dir = Files.createTempDirectory(temp, "harness");
        Path runSh = dir.resolve("run.sh");
        Files.writeString(runSh, "#!/usr/bin/env bash\nneed=\"libopenvdb-dev libtbb-dev\"\n" + script,
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(runSh, PosixFilePermissions.fromString("r-xr-xr-x"));
        return dir;
    }

    private static String reason(Result result) {
        assertThat(result).isInstanceOf(Unavailable.class);
        return ((Unavailable) result).reason();
    }

    @Test
    void aMissingDirectoryIsUnavailable() {
        Path missing = temp.resolve("no-such-harness");
        OpenVdbPeer peer = new OpenVdbPeer(missing);
        assertThat(peer.unavailableReason()).hasValueSatisfying(
                r -> assertThat(r).contains("directory not found").contains(missing.toString()));
        assertThat(reason(peer.run(1, line -> { }))).contains("directory not found");
    }

    @Test
    void aRunShThatIsNotExecutableIsUnavailable() throws IOException {
        Path dir = Files.createDirectory(temp.resolve("harness"));
        Files.writeString(dir.resolve("run.sh"), "echo hi\n");
        Files.setPosixFilePermissions(dir.resolve("run.sh"), PosixFilePermissions.fromString("rw-r--r--"));
        List<String> progress = new ArrayList<>();
        assertThat(reason(new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).run(1, progress::add)))
                .contains("run.sh is not executable");
        assertThat(progress).isEmpty();

        Files.delete(dir.resolve("run.sh"));
        assertThat(new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).unavailableReason())
                .hasValueSatisfying(r -> assertThat(r).contains("has no run.sh"));
    }

    @Test
    void missingPackagesThatCannotBeInstalledAreUnavailableWithoutRunningTheHarness() throws IOException {
        Path dir = harness("echo ran\n");
        List<String> progress = new ArrayList<>();
        var notRoot = new OpenVdbPeer(dir, Duration.ofSeconds(30), new FakeProbe(List.of("libtbb-dev"), false, true));
        assertThat(reason(notRoot.run(1, progress::add))).contains("not installed (libtbb-dev)").contains("not root")
                .contains("apt-get install -y libtbb-dev");
        var noApt = new OpenVdbPeer(dir, Duration.ofSeconds(30), new FakeProbe(List.of("libopenvdb-dev"), true, false));
        assertThat(noApt.unavailableReason()).hasValueSatisfying(r -> assertThat(r).contains("apt-get not found"));
        assertThat(progress).isEmpty();
        // Root with apt-get: run.sh may install them.
        assertThat(new OpenVdbPeer(dir, Duration.ofSeconds(30), new FakeProbe(List.of("libtbb-dev"), true, true))
                .unavailableReason()).isEmpty();
    }

    @Test
    void aFailedPackageInstallSaysSo() throws IOException {
        Path dir = harness("echo 'E: Unable to locate package libopenvdb-dev' >&2\nexit 100\n");
        var peer = new OpenVdbPeer(dir, Duration.ofSeconds(30), new FakeProbe(List.of("libopenvdb-dev"), true, true));
        assertThat(reason(peer.run(1, line -> { }))).contains("installing the OpenVDB packages failed")
                .contains("libopenvdb-dev").contains("exit status 100").contains("Unable to locate package");
    }

    @Test
    void aFailedBuildSaysSoWithTheCompilersLastWords() throws IOException {
        Path dir = harness("echo 'bench.cpp:12:5: error: boom' >&2\nexit 1\n");
        List<String> progress = new ArrayList<>();
        String reason = reason(new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).run(1, progress::add));
        assertThat(reason).startsWith("building the OpenVDB harness failed").contains("exit status 1")
                .contains("bench.cpp:12:5: error: boom").doesNotContain("\n");
        assertThat(progress).containsExactly("bench.cpp:12:5: error: boom");
    }

    @Test
    void aNonZeroExitAfterTheBuildQuotesTheLastLines() throws IOException {
        Path dir = harness("""
                echo "built $OUT_DIR/bench"
                for n in 1 2 3 4 5 6; do echo "line $n"; done
                exit 3
                """);
        String reason = reason(new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).run(1, line -> { }));
        assertThat(reason).startsWith("OpenVDB harness exit status 3")
                .endsWith("last lines: line 3 | line 4 | line 5 | line 6").doesNotContain("line 2");
    }

    @Test
    void aHarnessPastItsTimeoutIsKilledWithItsChildren() throws IOException, InterruptedException {
        Path dir = harness("""
                sleep 120 &
                echo "child $!"
                wait
                """);
        List<String> progress = new ArrayList<>();
        long start = System.nanoTime();
        String reason = reason(new OpenVdbPeer(dir, Duration.ofSeconds(1), READY).run(1, progress::add));
        assertThat(reason).startsWith("OpenVDB harness timed out after 1 s").contains("child ");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(60));
        long child = Long.parseLong(progress.getFirst().substring("child ".length()));
        ProcessHandle.of(child).ifPresent(handle -> {
            try {
                handle.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("the harness's child " + child + " is still running", e);
            }
        });
    }

    @Test
    void aFullRunIsParsedFromItsBenchOutAndLeavesTheHarnessDirectoryAlone() throws IOException {
        Path dir = harness("""
                echo "RUNS=$RUNS OUT_DIR=$OUT_DIR VDB_OUT=$VDB_OUT"
                echo "built $OUT_DIR/bench"
                cat reference-output.txt | tee "$BENCH_OUT"
                echo
                echo "== interop: vdb_print -l $VDB_OUT"
                echo "  [vdb] something vdb_print said"
                """);
        Files.write(dir.resolve("reference-output.txt"), OpenVdbOutputTest.reference());
        List<String> before = listing(dir);
        List<String> progress = new ArrayList<>();
        Result result = new OpenVdbPeer(dir, Duration.ofSeconds(60), READY).run(3, progress::add);

        assertThat(result).isInstanceOf(Measured.class);
        OpenVdbOutput output = ((Measured) result).output();
        assertThat(output.counterpart(OpenVdbOutput.Counterpart.W1S).orElseThrow().medianSeconds()).isEqualTo(0.0610);
        assertThat(output.checksPassed()).isTrue();
        assertThat(((Measured) result).seconds()).isPositive();
        // Progress saw every line, run.sh's own too, as printed.
        assertThat(progress.getFirst()).startsWith("RUNS=3 OUT_DIR=");
        assertThat(progress).contains("  [vdb] something vdb_print said")
                .containsSubsequence(OpenVdbOutputTest.reference());
        String[] env = progress.getFirst().split(" ");
        Path outDir = Path.of(env[1].substring("OUT_DIR=".length()));
        assertThat(env[2]).isEqualTo("VDB_OUT=" + outDir.resolve("shell.vdb"));
        assertThat(outDir).doesNotExist(); // deleted after the run
        assertThat(outDir.startsWith(dir)).isFalse();
        assertThat(listing(dir)).isEqualTo(before);
    }

    @Test
    void outputItCannotParseIsUnavailable() throws IOException {
        Path bad = harness("echo '  [W1s ] build sorted: ValueAccessor::setValue warm 0.1 min 0.1 med x max 0.1 s 1 /s'\n");
        assertThat(reason(new OpenVdbPeer(bad, Duration.ofSeconds(30), READY).run(1, line -> { })))
                .startsWith("OpenVDB harness output not understood").contains("line 1").contains("med=x");
        Path silent = harness("echo hello\n");
        assertThat(reason(new OpenVdbPeer(silent, Duration.ofSeconds(30), READY).run(1, line -> { })))
                .startsWith("OpenVDB harness printed no result rows").contains("hello");
    }

    @Test
    void thePackagesAreTheOnesRunShNames() throws IOException {
        Path dir = harness("exit 0\n");
        assertThat(new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).packages())
                .containsExactly("libopenvdb-dev", "libtbb-dev");
        // The real harness, where a shared/ checkout lies above this one.
        Path shared = null;
        for (Path up = Path.of("").toAbsolutePath(); up != null && shared == null; up = up.getParent()) {
            if (Files.isRegularFile(up.resolve("shared/peers/openvdb/run.sh"))) {
                shared = up.resolve("shared/peers/openvdb");
            }
        }
        Assumptions.assumeTrue(shared != null, "no shared/peers/openvdb above " + Path.of("").toAbsolutePath());
        assertThat(new OpenVdbPeer(shared).packages()).containsExactlyElementsOf(OpenVdbPeer.DEFAULT_PACKAGES);
    }

    @Test
    void theDefaultDirectoryIsBesideTheRepository() throws IOException {
        Path root = Files.createDirectories(temp.resolve("work/main"));
        assertThat(OpenVdbPeer.defaultDirectory(root)).isEmpty();
        Path harness = Files.createDirectories(temp.resolve("work/shared/peers/openvdb"));
        assertThat(OpenVdbPeer.defaultDirectory(root)).contains(harness.toAbsolutePath().normalize());
    }

    @Test
    void theMachineProbeFindsBashAndNotAnInventedPackage() {
        var probe = new OpenVdbPeer.DebianProbe();
        assertThat(probe.hasCommand("bash")).isTrue();
        assertThat(probe.hasCommand("snode-no-such-command")).isFalse();
        assertThat(probe.missingPackages(List.of("snode-no-such-package"))).containsExactly("snode-no-such-package");
    }

    @Test
    void badArgumentsAreRejected() throws IOException {
        Path dir = harness("exit 0\n");
        assertThatThrownBy(() -> new OpenVdbPeer(dir, Duration.ofSeconds(30), READY).run(0, line -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("runs=0");
        assertThatThrownBy(() -> new OpenVdbPeer(dir, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout=PT0S");
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.map(p -> dir.relativize(p) + " " + p.toFile().length() + " " + p.toFile().lastModified())
                    .sorted().toList();
        }
    }
}
