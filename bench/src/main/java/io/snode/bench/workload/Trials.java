package io.snode.bench.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Times a workload: {@code warmups} untimed runs (the JIT compiles the loops there, not in the
 * first timed run), then {@code runs} timed ones. Before every run an untimed set-up makes the
 * state the run starts from (an empty grid, the W1s grid, ...); the state of the last run is
 * kept for the checksums. The previous run's state is unreachable from here while the next
 * set-up runs (a set-up may call {@link System#gc()} to collect it outside the timing). A run is timed by {@link System#nanoTime()} around the body, or by the
 * body itself where it must leave work out (threads' start and join for W5, the statistics
 * between W4's delete and its rewrite).
 */
public final class Trials {
    private final int warmups;
    private final int runs;
    private final Consumer<String> progress;

    /**
     * @param warmups untimed runs before the timed ones (0 or more)
     * @param runs timed runs (1 or more)
     * @param progress receives a line after each workload's timed runs (may ignore it)
     */
    public Trials(int warmups, int runs, Consumer<String> progress) {
        if (warmups < 0) {
            throw new IllegalArgumentException("warmups=" + warmups + " (0 or more)");
        }
        if (runs < 1) {
            throw new IllegalArgumentException("runs=" + runs + " (1 or more)");
        }
        this.warmups = warmups;
        this.runs = runs;
        this.progress = progress;
    }

    public int warmups() {
        return warmups;
    }

    public int runs() {
        return runs;
    }

    /** Runs {@code setup} then times {@code body} on its state, warm-ups first. */
    public <S> Timed<S> time(String label, Supplier<S> setup, Consumer<S> body) {
        return timeSelf(label, setup, state -> {
            long start = System.nanoTime();
            body.accept(state);
            return System.nanoTime() - start;
        });
    }

    /** As {@link #time}, but {@code body} returns its own time in nanoseconds. */
    public <S> Timed<S> timeSelf(String label, Supplier<S> setup, ToLongFunction<S> body) {
        S state = null;
        List<Double> seconds = new ArrayList<>(runs);
        for (int run = 0; run < warmups + runs; run++) {
            // Dropped first, so that a set-up which calls System.gc() collects the previous
            // run's structure there, untimed, and not inside this run's body.
            state = null;
            state = setup.get();
            long nanos = body.applyAsLong(state);
            if (run >= warmups) {
                seconds.add(nanos / 1e9);
            }
        }
        Timed<S> timed = new Timed<>(seconds, state);
        progress.accept(String.format(java.util.Locale.ROOT, "%-40s median %9.4f s  min %9.4f s  (%d runs after %d warm-up)",
                label, timed.median(), timed.min(), runs, warmups));
        return timed;
    }

    /** The timed runs' seconds, in run order, and the state the last run left. */
    public record Timed<S>(List<Double> seconds, S state) {
        public Timed {
            seconds = List.copyOf(seconds);
        }

        /** The median (the mean of the middle two for an even count). */
        public double median() {
            double[] sorted = seconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int mid = sorted.length / 2;
            return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
        }

        public double min() {
            return Arrays.stream(seconds.stream().mapToDouble(Double::doubleValue).toArray()).min().orElseThrow();
        }
    }
}
