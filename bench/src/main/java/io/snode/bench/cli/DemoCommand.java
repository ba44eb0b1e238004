package io.snode.bench.cli;

import io.snode.bench.demo.DensityPicture;
import io.snode.bench.demo.MemoryChart;
import io.snode.bench.demo.ParticleInCell;
import io.snode.bench.demo.ProgressBar;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code snode demo}: a 3-D sparse particle-in-cell run that uses every node kind. */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
        description = {"Runs a 3-D sparse particle-in-cell simulation and draws it.",
                "",
                "A source puffs particles into per-block dynamic lists. Each step scatters",
                "their mass and momentum into a hash -> pointer -> dense grid of 256^3",
                "cells (fixed-point atomic adds; touched cells marked in a bitmasked layer),",
                "applies a swirl and gravity on the grid, interpolates the velocity back and",
                "moves the particles into their new blocks' lists. Blocks left empty are",
                "deactivated and collected, so the active set travels through the domain.",
                "",
                "Prints a line per step and a checksum of every step's figures and the final",
                "state (the same for a seed whatever --threads is); writes DIR/demo.png",
                "(density seen along y, active blocks outlined) and DIR/memory.png (active",
                "blocks and bytes in use per step)."})
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--steps", paramLabel = "N", defaultValue = "200", description = "steps to run, 1 to "
            + ParticleInCell.MAX_STEPS + " (default: ${DEFAULT-VALUE})")
    int steps;

    @Option(names = "--particles", paramLabel = "N", defaultValue = "150000",
            description = "particles the source emits in all, 1 to " + ParticleInCell.MAX_PARTICLES
                    + ", over the first half of the steps (default: ${DEFAULT-VALUE})")
    int particles;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "random seed of the source (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--threads", paramLabel = "T", description = "threads for the launches, 1 to 1024 (default: the available"
            + " processors)")
    Integer threads;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "out", description = "where the pictures go (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--no-progress", description = "no progress bar, even on a terminal")
    boolean noProgress;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One step's line: step, particles, emitted, left, blocks, touched cells, in use, reserved, gc, step time. */
    private static final String ROW = "%5d  %9d  %7d  %7d  %6d  %13d  %s  %s  %5.1f ms  %6.1f ms";
    private static final String HEADER = "%5s  %9s  %7s  %7s  %6s  %13s  %10s  %10s  %8s  %9s";

    /** Whether stdout is a terminal: then a progress bar follows the step lines. */
    static boolean stdoutIsTerminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    @Override
    public Integer call() throws IOException {
        int threadCount = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        validate(threadCount);
        PrintWriter printer = spec.commandLine().getOut();
        ParticleInCell.Config config = new ParticleInCell.Config(steps, particles, seed, threadCount);
        printer.printf(Locale.ROOT, "snode demo: sparse particle-in-cell in %d^3 cells (%d^3 blocks of %d^3), %d steps,"
                        + " %,d particles, seed %d, %d thread%s%n", ParticleInCell.N, ParticleInCell.BLOCKS,
                ParticleInCell.BLOCK, steps, particles, seed, threadCount, threadCount == 1 ? "" : "s");
        List<ParticleInCell.StepStats> history = new ArrayList<>();
        long checksum;
        long stepsDigest = 0;
        ParticleInCell.Projection projection;
        long runNanos;
        String phaseLine;
        try (ParticleInCell run = new ParticleInCell(config)) {
            printer.println("layout " + run.layout());
            printer.printf(Locale.ROOT, "compiled the layout and bound its accessors in %.0f ms%n",
                    run.compileNanos() / 1e6);
            printer.println(String.format(Locale.ROOT, HEADER, "step", "particles", "emitted", "left", "blocks",
                    "touched cells", "in use", "reserved", "gc", "step time"));
            printer.flush();
            ProgressBar progress = new ProgressBar(printer, steps, !noProgress && stdoutIsTerminal());
            long start = System.nanoTime();
            for (int n = 0; n < steps; n++) {
                ParticleInCell.StepStats stats = run.step();
                history.add(stats);
                stepsDigest = ParticleInCell.foldStep(stepsDigest, stats);
                progress.line(String.format(Locale.ROOT, ROW,
                        stats.step(), stats.particles(), stats.emitted(), stats.left(), stats.activeBlocks(),
                        stats.touchedCells(), mib(stats.bytesInUse()), mib(stats.bytesReserved()), stats.gcNanos() / 1e6,
                        stats.stepNanos() / 1e6), stats.step());
            }
            runNanos = System.nanoTime() - start;
            progress.done();
            long[] phases = run.phaseNanos();
            StringBuilder split = new StringBuilder("time by phase:");
            for (ParticleInCell.Phase phase : ParticleInCell.Phase.values()) {
                split.append(String.format(Locale.ROOT, " %s %.0f%%", phase.text(),
                        100.0 * phases[phase.ordinal()] / Math.max(1, runNanos)));
            }
            phaseLine = split.toString();
            checksum = ParticleInCell.runChecksum(run.checksum(), stepsDigest);
            projection = run.projection();
        }
        ParticleInCell.StepStats last = history.getLast();
        ParticleInCell.StepStats peak = history.stream()
                .max(java.util.Comparator.comparingLong(ParticleInCell.StepStats::bytesInUse)).orElseThrow();
        long gcNanos = history.stream().mapToLong(ParticleInCell.StepStats::gcNanos).sum();
        printer.printf(Locale.ROOT, "ran %d steps in %.1f s (%.1f ms a step, %.0f ms of it collecting in all)%n", steps,
                runNanos / 1e9, runNanos / 1e6 / steps, gcNanos / 1e6);
        printer.println(phaseLine);
        long reservedPeak = history.stream().mapToLong(ParticleInCell.StepStats::bytesReserved).max().orElseThrow();
        printer.printf(Locale.ROOT, "in use: first step %s, peak %s (step %d, %d blocks), last %s (%d blocks);"
                        + " reserved (what a memory cap counts) at most %s%n",
                mib(history.getFirst().bytesInUse()).strip(), mib(peak.bytesInUse()).strip(), peak.step(),
                peak.activeBlocks(), mib(last.bytesInUse()).strip(), last.activeBlocks(), mib(reservedPeak).strip());
        printer.printf(Locale.ROOT, "checksum %016x (of every step's figures and the final state; seed %d; the same for"
                + " any --threads)%n", checksum, seed);
        Path picture = out.resolve("demo.png");
        Path chart = out.resolve("memory.png");
        DensityPicture.write(projection, history, config, picture);
        MemoryChart.write(history, config, chart);
        printer.println("wrote " + picture + ": density seen along y (log scale), active blocks outlined, inactive"
                + " space dark (a shade lighter where blocks were active earlier and have been reclaimed)");
        printer.println("wrote " + chart + ": active blocks and bytes in use at every step");
        printer.flush();
        return SnodeCli.OK;
    }

    private void validate(int threadCount) {
        if (steps < 1 || steps > ParticleInCell.MAX_STEPS) {
            throw new SnodeCli.BadInputException("--steps=" + steps + " must be between 1 and "
                    + ParticleInCell.MAX_STEPS);
        }
        if (particles < 1 || particles > ParticleInCell.MAX_PARTICLES) {
            throw new SnodeCli.BadInputException("--particles=" + particles + " must be between 1 and "
                    + ParticleInCell.MAX_PARTICLES);
        }
        if (threadCount < 1 || threadCount > 1024) {
            throw new SnodeCli.BadInputException("--threads=" + threadCount + " must be between 1 and 1024");
        }
        OutputPaths.directory("--out", out);
        for (String name : new String[] {"demo.png", "memory.png"}) {
            if (Files.isDirectory(out.resolve(name))) {
                throw new SnodeCli.BadInputException("--out=" + out + ": " + out.resolve(name)
                        + " is a directory where the demo writes a picture; remove it or name another --out");
            }
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%6.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
