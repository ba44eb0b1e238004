package io.snode.bench.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Times a workload: untimed warm-up runs (the JIT compiles the loops there, not in the timed
 * runs), then {@code runs} timed ones. The warm-ups go on until both {@code warmups} of them ran
 * and those after the first took {@code warmupNanos} of wall clock (set-ups included), or
 * {@link #MAX_WARMUPS} ran: a count alone leaves a 10 ms launch half compiled after two runs,
 * while a 1 s build is warm after one; the first run, where classes are generated and loaded
 * (a second for W3's first launch), would use up the time alone. Before every run an untimed set-up makes the
 * state the run starts from (an empty grid, the W1s grid, ...); the state of the last run is
 * kept for the checksums. The previous run's state is unreachable from here while the next
 * set-up runs (a set-up may call {@link System#gc()} to collect it outside the timing). A run is timed by {@link System#nanoTime()} around the body, or by the
 * body itself where it must leave work out (threads' start and join for W5, the statistics
 * between W4's delete and its rewrite).
 */
public final class Trials {
    /** Most warm-up runs of one workload, whatever their time. */
    public static final int MAX_WARMUPS = 1000;

    private final int warmups;
    private final int runs;
    private final long warmupNanos;
    private final Consumer<String> progress;
    private final LongSupplier clock;

    /** Warm-ups by count only ({@code warmupNanos} 0). */
    public Trials(int warmups, int runs, Consumer<String> progress) {
        this(warmups, runs, 0, progress);
    }

    /**
     * @param warmups least untimed runs before the timed ones (0 or more)
     * @param runs timed runs (1 or more)
     * @param warmupNanos least wall clock of the warm-ups, set-ups included (0 or more)
     * @param progress receives a line after each workload's timed runs (may ignore it)
     */
    public Trials(int warmups, int runs, long warmupNanos, Consumer<String> progress) {
        this(warmups, runs, warmupNanos, progress, System::nanoTime);
    }

    /** As the public constructor, reading time from {@code clock} (tests). */
    Trials(int warmups, int runs, long warmupNanos, Consumer<String> progress, LongSupplier clock) {
        if (warmups < 0 || warmups > MAX_WARMUPS) {
            throw new IllegalArgumentException("warmups=" + warmups + " (0 to " + MAX_WARMUPS + ")");
        }
        if (runs < 1) {
            throw new IllegalArgumentException("runs=" + runs + " (1 or more)");
        }
        if (warmupNanos < 0) {
            throw new IllegalArgumentException("warmupNanos=" + warmupNanos + " (0 or more)");
        }
        this.warmups = warmups;
        this.runs = runs;
        this.warmupNanos = warmupNanos;
        this.progress = progress;
        this.clock = clock;
    }

    public int runs() {
        return runs;
    }

    /** Runs {@code setup} then times {@code body} on its state, warm-ups first. */
    public <S> Timed<S> time(String label, Supplier<S> setup, Consumer<S> body) {
        return timeSelf(label, setup, state -> {
            long start = clock.getAsLong();
            body.accept(state);
            return clock.getAsLong() - start;
        });
    }

    /** As {@link #time}, but {@code body} returns its own time in nanoseconds. */
    public <S> Timed<S> timeSelf(String label, Supplier<S> setup, ToLongFunction<S> body) {
        S state = null;
        int warmed = 0;
        long warmupStart = 0;
        while (warmed < warmups
                || warmupNanos > 0 && warmed < MAX_WARMUPS && (warmed == 0 || clock.getAsLong() - warmupStart < warmupNanos)) {
            // Dropped first, so that a set-up which calls System.gc() collects the previous
            // run's structure there, untimed, and not inside the next body.
            state = null;
            state = setup.get();
            body.applyAsLong(state);
            if (++warmed == 1) {
                warmupStart = clock.getAsLong(); // the first run, which loads and generates classes, does not count
            }
        }
        List<Double> seconds = new ArrayList<>(runs);
        for (int run = 0; run < runs; run++) {
            state = null; // as above
            state = setup.get();
            seconds.add(body.applyAsLong(state) / 1e9);
        }
        Timed<S> timed = new Timed<>(seconds, state, warmed);
        progress.accept(String.format(java.util.Locale.ROOT, "%-40s median %9.4f s  min %9.4f s  (%d runs after %d warm-up)",
                label, timed.median(), timed.min(), runs, warmed));
        return timed;
    }

    /** The timed runs' seconds, in run order, the state the last run left, and the warm-up runs before them. */
    public record Timed<S>(List<Double> seconds, S state, int warmups) {
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
