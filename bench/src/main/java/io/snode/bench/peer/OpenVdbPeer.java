package io.snode.bench.peer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs the OpenVDB peer harness ({@code shared/peers/openvdb/run.sh}) and parses what it printed.
 *
 * <p>{@link #run(int, Consumer)} runs {@code bash run.sh} in the harness directory with
 * {@code OUT_DIR} (the compiled benchmark), {@code BENCH_OUT} (a copy of its output) and
 * {@code VDB_OUT} (the {@code .vdb} files it writes, about 200 MB) all in a fresh temporary
 * directory, deleted afterwards, and {@code RUNS} set; nothing is written into the harness
 * directory, which may be read-only. {@code run.sh} installs Debian's OpenVDB packages with
 * {@code apt-get} when they are missing, compiles {@code bench.cpp} (about a minute), runs it
 * (1.5-2.5 minutes on 2 cores) and checks the {@code .vdb} files it wrote.
 *
 * <p>Nothing that can go wrong with the harness throws: a missing directory, a {@code run.sh}
 * that is not executable, packages that are missing where {@code apt-get} cannot install them
 * (not root, no {@code apt-get}) or where installing them failed, a failed build, a run past the
 * timeout (the process tree is killed), a non-zero exit status, or output the parser does not
 * understand all give {@link Unavailable} with a one-line reason (with the last lines of output
 * where they say more). {@link #unavailableReason()} does the cheap part of those checks without
 * running anything but {@code dpkg -s}.
 */
public final class OpenVdbPeer {
    /** Where the harness lives relative to the repository root (a sibling checkout of {@code shared}). */
    public static final String DEFAULT_RELATIVE_DIRECTORY = "../shared/peers/openvdb";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
    /** The packages run.sh installs, used when its {@code need="..."} line cannot be read. */
    static final List<String> DEFAULT_PACKAGES = List.of("libopenvdb-dev", "libopenvdb-tools", "python3-openvdb",
            "libtbb-dev", "libboost-dev");
    /** How many of the last output lines an unavailable reason quotes. */
    static final int QUOTED_LINES = 4;
    private static final int MAX_QUOTE = 600;
    private static final int KEPT_LINES = 200_000;
    private static final Pattern NEED = Pattern.compile("(?m)^\\s*need=\"([^\"]*)\"");

    /** The result of {@link #run(int, Consumer)}. */
    public sealed interface Result permits Measured, Unavailable {
    }

    /** The harness ran to the end, exit status 0; {@code seconds}: run.sh's wall time (install, build, run, checks). */
    public record Measured(OpenVdbOutput output, double seconds) implements Result {
        public Measured {
            Objects.requireNonNull(output, "output");
        }
    }

    /** The harness could not give numbers; {@code reason} is one line saying why. */
    public record Unavailable(String reason) implements Result {
        public Unavailable {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The machine facts the checks need; a seam for tests. */
    interface SystemProbe {
        /** The packages of {@code names} that dpkg does not report installed (all of them without dpkg). */
        List<String> missingPackages(List<String> names);

        boolean isRoot();

        boolean hasCommand(String name);
    }

    private final Path directory;
    private final Duration timeout;
    private final SystemProbe probe;

    /** A peer for the harness in {@code directory}, with {@link #DEFAULT_TIMEOUT}. */
    public OpenVdbPeer(Path directory) {
        this(directory, DEFAULT_TIMEOUT);
    }

    public OpenVdbPeer(Path directory, Duration timeout) {
        this(directory, timeout, new DebianProbe());
    }

    OpenVdbPeer(Path directory, Duration timeout, SystemProbe probe) {
        this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout=" + timeout + ": must be positive");
        }
        this.timeout = timeout;
        this.probe = Objects.requireNonNull(probe, "probe");
    }

    /** {@code repositoryRoot/../shared/peers/openvdb} when that directory exists. */
    public static Optional<Path> defaultDirectory(Path repositoryRoot) {
        Path dir = repositoryRoot.toAbsolutePath().resolve(DEFAULT_RELATIVE_DIRECTORY).normalize();
        return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }

    public Path directory() {
        return directory;
    }

    /**
     * Why {@link #run} cannot work here, judged without building or running anything: the
     * directory, run.sh, and the packages it needs (installed, or installable because we are root
     * and have apt-get). Empty when it may work; a build or run can still fail.
     */
    public Optional<String> unavailableReason() {
        if (!Files.isDirectory(directory)) {
            return Optional.of("OpenVDB harness directory not found: " + directory);
        }
        Path runSh = directory.resolve("run.sh");
        if (!Files.isRegularFile(runSh)) {
            return Optional.of("OpenVDB harness has no run.sh: " + runSh);
        }
        if (!Files.isExecutable(runSh)) {
            return Optional.of("OpenVDB harness run.sh is not executable: " + runSh);
        }
        if (!probe.hasCommand("bash")) {
            return Optional.of("bash not found: the OpenVDB harness is a bash script");
        }
        List<String> missing = probe.missingPackages(packages());
        if (!missing.isEmpty()) {
            String list = String.join(" ", missing);
            if (!probe.hasCommand("apt-get")) {
                return Optional.of("OpenVDB packages not installed (" + list
                        + ") and apt-get not found: the harness needs Debian's OpenVDB 10 packages");
            }
            if (!probe.isRoot()) {
                return Optional.of("OpenVDB packages not installed (" + list
                        + ") and not root, so run.sh cannot install them: run apt-get install -y " + list
                        + " as root");
            }
        }
        return Optional.empty();
    }

    /**
     * Runs the harness with {@code RUNS=runs} timed runs per workload, passing every line it prints
     * (stdout and stderr) to {@code progress} on the calling thread as it comes.
     *
     * @throws IllegalArgumentException for {@code runs} below 1 (a caller's error, not the harness's)
     */
    public Result run(int runs, Consumer<String> progress) {
        if (runs < 1) {
            throw new IllegalArgumentException("runs=" + runs + ": must be at least 1");
        }
        Objects.requireNonNull(progress, "progress");
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            return new Unavailable(reason.get());
        }
        List<String> missingBefore = probe.missingPackages(packages());
        Path work;
        try {
            work = Files.createTempDirectory("snode-openvdb-");
        } catch (IOException e) {
            return new Unavailable("cannot create a temporary directory for the OpenVDB build: " + e.getMessage());
        }
        try {
            return runIn(work, runs, progress, missingBefore);
        } finally {
            deleteTree(work);
        }
    }

    private Result runIn(Path work, int runs, Consumer<String> progress, List<String> missingBefore) {
        Path benchOut = work.resolve("bench.out");
        ProcessBuilder builder = new ProcessBuilder("bash", directory.resolve("run.sh").toString())
                .directory(directory.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("OUT_DIR", work.toString());
        env.put("BENCH_OUT", benchOut.toString());
        env.put("VDB_OUT", work.resolve("shell.vdb").toString());
        env.put("RUNS", Integer.toString(runs));
        env.put("DEBIAN_FRONTEND", "noninteractive");
        long start = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Unavailable("cannot start bash run.sh: " + e.getMessage());
        }
        try {
            process.getOutputStream().close(); // nothing to read: apt-get and the benchmark get EOF
        } catch (IOException e) {
            // the process may already be gone; its exit status says so below
        }
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread watchdog = Thread.ofPlatform().daemon().name("openvdb-peer-watchdog").start(() -> {
            try {
                if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    timedOut.set(true);
                    killTree(process);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        List<String> lines = new ArrayList<>();
        Deque<String> tail = new ArrayDeque<>();
        String readError = null;
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (lines.size() < KEPT_LINES) {
                    lines.add(line);
                }
                tail.addLast(line);
                if (tail.size() > QUOTED_LINES) {
                    tail.removeFirst();
                }
                progress.accept(line);
            }
        } catch (IOException | UncheckedIOException e) {
            readError = e.getMessage();
        } catch (RuntimeException | Error e) {
            killTree(process); // the consumer failed: leave no harness running
            watchdog.interrupt();
            throw e;
        }
        int exit;
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                killTree(process);
                process.waitFor(10, TimeUnit.SECONDS);
            }
            watchdog.interrupt();
            watchdog.join(TimeUnit.SECONDS.toMillis(10));
            exit = process.isAlive() ? -1 : process.exitValue();
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            return new Unavailable("interrupted while waiting for the OpenVDB harness");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String last = tail.isEmpty() ? "no output" : "last lines: " + clip(String.join(" | ", tail));
        if (timedOut.get()) {
            return new Unavailable(String.format(Locale.ROOT, "OpenVDB harness timed out after %s and was killed; %s",
                    human(timeout), last));
        }
        if (exit != 0) {
            if (!missingBefore.isEmpty() && !probe.missingPackages(missingBefore).isEmpty()) {
                return new Unavailable("installing the OpenVDB packages failed (apt-get install "
                        + String.join(" ", probe.missingPackages(missingBefore)) + "), run.sh exit status " + exit
                        + "; " + last);
            }
            if (!lines.contains("built " + work.resolve("bench"))) {
                return new Unavailable("building the OpenVDB harness failed, run.sh exit status " + exit + "; " + last);
            }
            return new Unavailable("OpenVDB harness exit status " + exit + "; " + last);
        }
        if (readError != null) {
            return new Unavailable("reading the OpenVDB harness's output failed: " + readError);
        }
        List<String> output = lines;
        try {
            if (Files.isRegularFile(benchOut) && Files.size(benchOut) > 0) {
                output = Files.readAllLines(benchOut, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            // the captured stdout holds the same lines
        }
        OpenVdbOutput parsed;
        try {
            parsed = OpenVdbOutput.parse(output);
        } catch (IllegalArgumentException e) {
            return new Unavailable("OpenVDB harness output not understood: " + e.getMessage());
        }
        if (parsed.rows().isEmpty()) {
            return new Unavailable("OpenVDB harness printed no result rows; " + last);
        }
        return new Measured(parsed, seconds);
    }

    /** The packages named in run.sh's {@code need="..."} line, else {@link #DEFAULT_PACKAGES}. */
    List<String> packages() {
        try {
            Matcher m = NEED.matcher(Files.readString(directory.resolve("run.sh"), StandardCharsets.UTF_8));
            if (m.find() && !m.group(1).isBlank()) {
                return List.of(m.group(1).strip().split("\\s+"));
            }
        } catch (IOException | UncheckedIOException e) {
            // fall back
        }
        return DEFAULT_PACKAGES;
    }

    private static void killTree(Process process) {
        List<ProcessHandle> tree = process.descendants().toList();
        tree.forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    private static String clip(String text) {
        return text.length() <= MAX_QUOTE ? text : "..." + text.substring(text.length() - MAX_QUOTE);
    }

    private static String human(Duration d) {
        long s = d.toSeconds();
        return s >= 60 && s % 60 == 0 ? s / 60 + " min" : d.toMillis() % 1000 == 0 ? s + " s" : d.toMillis() + " ms";
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a leftover temporary file is not worth failing the run
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // same
        }
    }

    /** dpkg, id and PATH of this machine. */
    static final class DebianProbe implements SystemProbe {
        @Override
        public List<String> missingPackages(List<String> names) {
            List<String> missing = new ArrayList<>();
            for (String name : names) {
                if (!installed(name)) {
                    missing.add(name);
                }
            }
            return missing;
        }

        private boolean installed(String name) {
            // dpkg -s exits 0 also for a package removed but not purged: read its Status line.
            Optional<String> out = capture("dpkg-query", "-W", "-f=${Status}", name);
            return out.isPresent() && out.get().strip().endsWith("install ok installed");
        }

        @Override
        public boolean isRoot() {
            return capture("id", "-u").map(s -> s.strip().equals("0")).orElse(false);
        }

        @Override
        public boolean hasCommand(String name) {
            String path = System.getenv("PATH");
            if (path == null) {
                return false;
            }
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return true;
                }
            }
            return false;
        }

        /** The command's stdout when it exits 0 within 10 s. */
        private static Optional<String> capture(String... command) {
            try {
                Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                p.getOutputStream().close();
                byte[] out = p.getInputStream().readAllBytes();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return Optional.empty();
                }
                return p.exitValue() == 0 ? Optional.of(new String(out, StandardCharsets.UTF_8)) : Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }
}
