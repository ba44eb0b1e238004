package io.snode.bench.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs one structure's workloads in a JVM of its own ({@link WorkloadMain}), with the JDK, the
 * class path and the flags of this one plus the heap the structure needs, and reads its results
 * back. A child that fails (exit code, no results, a malformed line, a timeout) gives a
 * {@link Outcome} with its error and the results it wrote before, never an exception.
 */
public final class ChildRunner {
    /** The flags every child gets besides its heap: the Vector API (W3's block sums), the reflective counts of the baselines' tables. */
    public static final List<String> FLAGS = List.of("--add-modules", "jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens",
            "java.base/java.util.concurrent=ALL-UNNAMED");

    private final Path javaExecutable;
    private final String classPath;
    private final long timeoutSeconds;

    /** A runner that starts children with {@code java} and {@code classPath}, each killed after {@code timeoutSeconds}. */
    public ChildRunner(Path java, String classPath, long timeoutSeconds) {
        this.javaExecutable = java;
        this.classPath = classPath;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** A runner with this JVM's {@code java} and class path. */
    public static ChildRunner ofThisJvm(long timeoutSeconds) {
        Path java = ProcessHandle.current().info().command().map(Path::of)
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
        return new ChildRunner(java, System.getProperty("java.class.path"), timeoutSeconds);
    }

    /** What a child gave: its results, and an error line when it failed (null when it worked). */
    public record Outcome(List<Result> results, String error) {
        public Outcome {
            results = List.copyOf(results);
        }

        public boolean failed() {
            return error != null;
        }
    }

    /**
     * The command line of a child for {@code structure}, a name or a layout text: it is one
     * element of the list, and {@link ProcessBuilder} hands it to the child as one argument
     * (no shell in between), so its parentheses, commas and spaces need no quoting.
     */
    public List<String> command(String structure, List<Workload> workloads, boolean quick, int warmups,
            double warmupSeconds, int runs, List<Integer> threads, String heap) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable.toString());
        command.addAll(FLAGS);
        command.add("-Xmx" + heap);
        command.add("-cp");
        command.add(classPath);
        command.add(WorkloadMain.class.getName());
        command.add("--structure");
        command.add(structure);
        command.add("--workloads");
        command.add(workloads.stream().map(Workload::id).collect(Collectors.joining(",")));
        if (quick) {
            command.add("--quick");
        }
        command.add("--warmups");
        command.add(Integer.toString(warmups));
        command.add("--warmup-seconds");
        command.add(Double.toString(warmupSeconds));
        command.add("--runs");
        command.add(Integer.toString(runs));
        command.add("--threads");
        command.add(threads.stream().map(String::valueOf).collect(Collectors.joining(",")));
        return command;
    }

    /**
     * Runs the child and waits for it; its progress lines go to {@code progress} as they come,
     * its other stderr lines are kept for the error message.
     */
    public Outcome run(List<String> command, Consumer<String> progress) {
        ObjectMapper json = WorkloadMain.json();
        List<Result> results = new ArrayList<>();
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            return new Outcome(results, "could not start " + command.get(0) + ": " + e.getMessage());
        }
        Thread stderr = Thread.ofPlatform().daemon().name("bench-child-stderr").start(() -> {
            try (BufferedReader err = reader(process.getErrorStream())) {
                for (String line; (line = err.readLine()) != null; ) {
                    if (line.startsWith(WorkloadMain.PROGRESS)) {
                        progress.accept(line.substring(WorkloadMain.PROGRESS.length()));
                    } else if (!line.startsWith("WARNING: Using incubator modules")) {
                        errors.add(line);
                    }
                }
            } catch (IOException e) {
                errors.add("reading the child's stderr: " + e.getMessage());
            }
        });
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread watchdog = Thread.ofPlatform().daemon().name("bench-child-watchdog").start(() -> {
            try {
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    timedOut.set(true);
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
            }
        });
        String malformed = null;
        try (BufferedReader out = reader(process.getInputStream())) {
            for (String line; (line = out.readLine()) != null; ) {
                try {
                    results.add(json.readValue(line, Result.class));
                } catch (IOException e) {
                    if (malformed == null) {
                        malformed = "a line that is not a result: " + line;
                    }
                }
            }
            process.waitFor();
            watchdog.interrupt();
            stderr.join(TimeUnit.SECONDS.toMillis(10));
            if (timedOut.get()) {
                return new Outcome(results, "timed out after " + timeoutSeconds + " s and was stopped");
            }
        } catch (IOException e) {
            process.destroyForcibly();
            return new Outcome(results, "reading the child's output: " + e.getMessage());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            watchdog.interrupt();
            Thread.currentThread().interrupt();
            return new Outcome(results, "interrupted");
        }
        int code = process.exitValue();
        if (code != 0) {
            String error = errors.stream().filter(line -> line.startsWith(WorkloadMain.ERROR)).findFirst()
                    .map(line -> line.substring(WorkloadMain.ERROR.length()))
                    .orElse(errors.isEmpty() ? "no message" : errors.get(errors.size() - 1));
            return new Outcome(results, "exit code " + code + ": " + error);
        }
        if (malformed != null) {
            return new Outcome(results, malformed);
        }
        return new Outcome(results, null);
    }

    private static BufferedReader reader(InputStream stream) {
        return new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
    }
}
