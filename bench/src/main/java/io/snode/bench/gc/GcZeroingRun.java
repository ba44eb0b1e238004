package io.snode.bench.gc;

import io.snode.gc.ParallelCollector;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.vectorization.GcKernels;
import io.snode.runtime.internal.vectorization.PanamaGcKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;

/**
 * The phase-2 zeroing benchmark as a workload runner: every configuration is timed once per
 * round, rounds interleave the configurations (in a rotating order), and the report gives
 * medians and the ratios the issue asks for, all from one JVM run.
 *
 * <pre>
 * ./snode java --add-modules jdk.incubator.vector -Xms2g -Xmx2g \
 *      -cp bench/target/snode-bench.jar io.snode.bench.gc.GcZeroingRun [MiB] [rounds] [threads] [smallMiB]
 * </pre>
 *
 * Both layouts run at {@code MiB} (default 256: DRAM-bound) and again at {@code smallMiB}
 * (default 4: mostly cache-resident, so latency- and compute-bound; repeated to fill a sample).
 * Configurations per layout ({@link RecycledRegion.Layout}): {@code fill-region} (one
 * {@code MemorySegment.fill} per data chunk over the same number of bytes, contiguous: the
 * bandwidth reference), {@code fill-cells} (one fill per recycled cell, same order), and phase 2
 * with the vector kernels ({@code PanamaGcKernels}: vector stores below 256 KiB, fill above) and
 * the scalar kernels, on one thread and on all threads, in recycling order and sorted. Then the
 * measurements behind the kernels' choices: the vector store loop against fill on one
 * cache-resident cell, on DRAM-bound runs of several lengths, and bulk index copies.
 */
public final class GcZeroingRun {

    private static final String FILL_REGION = "fill-region       1T";
    private static final String FILL_CELLS = "fill-cells        1T";

    private GcZeroingRun() {
    }

    private static String name(String kernels, boolean sorted, int threads) {
        return String.format(Locale.ROOT, "%-6s %-10s %dT", kernels, sorted ? "sorted" : "recycled", threads);
    }

    public static void main(String[] args) throws Exception {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 256;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
        int warmup = 4;
        long cell = 2048;
        long bytes = mib << 20;
        GcKernels vector = RecycledRegion.kernels("vector");
        GcKernels scalar = RecycledRegion.kernels("scalar");
        System.out.printf(Locale.ROOT, "# load average before: %s%n", loadAverage());
        // The calling thread is one of the workers: the pool has one thread fewer.
        ForkJoinPool pool = threads > 1 ? new ForkJoinPool(threads - 1) : null;
        TaskRunner one = TaskRunner.inline();
        TaskRunner all = pool == null ? one : TaskRunner.forkJoin(pool);
        if (all.parallelism() != threads) {
            throw new AssertionError("parallelism=" + all.parallelism() + " threads=" + threads);
        }
        long grain = ParallelCollector.DEFAULT_ZERO_GRAIN_BYTES;
        System.out.printf(Locale.ROOT, "# GcZeroingRun: %d MiB of %d-byte cells, %d rounds (+%d warm-up), threads=%d, "
                        + "vector=%s, java=%s, cpus=%d%n", mib, cell, rounds, warmup, threads, vector.name(),
                Runtime.version(), Runtime.getRuntime().availableProcessors());

        long smallMib = args.length > 3 ? Long.parseLong(args[3]) : 4;
        for (long size : new long[] {bytes, smallMib << 20}) {
            for (RecycledRegion.Layout layout : RecycledRegion.Layout.values()) {
                runLayout(layout, size, bytes, cell, rounds, warmup, threads, vector, scalar, one, all, grain);
            }
        }
        if (pool != null) {
            pool.shutdown();
        }
        cacheResident(rounds);
        dramRuns(rounds);
        indexCopies(rounds);
        System.out.printf(Locale.ROOT, "# load average after: %s%n", loadAverage());
    }

    private static void runLayout(RecycledRegion.Layout layout, long size, long bytes, long cell, int rounds, int warmup,
                                  int threads, GcKernels vector, GcKernels scalar, TaskRunner one, TaskRunner all,
                                  long grain) {
        try (RecycledRegion region = new RecycledRegion(layout, size, cell, 42)) {
            Map<String, Runnable> configs = new LinkedHashMap<>();
            configs.put(FILL_REGION, () -> region.fillRegion(size));
            configs.put(FILL_CELLS, region::fillEachCell);
            for (String k : new String[] {"vector", "scalar"}) {
                GcKernels kernels = k.equals("vector") ? vector : scalar;
                for (boolean sorted : new boolean[] {false, true}) {
                    configs.put(name(k, sorted, 1), () -> region.phase2(kernels, one, grain, sorted));
                    configs.put(name(k, sorted, threads), () -> region.phase2(kernels, all, grain, sorted));
                }
            }
            // A small region is zeroed many times per sample, so that each sample lasts long enough to time.
            int reps = (int) Math.max(1, bytes / size);
            Map<String, Runnable> repeated = new LinkedHashMap<>();
            configs.forEach((name, op) -> repeated.put(name, () -> {
                for (int i = 0; i < reps; i++) {
                    op.run();
                }
            }));
            Map<String, double[]> gbps = interleave(repeated, rounds, warmup, region.zeroBytes() * reps);
            System.out.println("## " + layout.name().toLowerCase(Locale.ROOT) + " (" + region.zeroBytes()
                    + " bytes zeroed per op" + (reps > 1 ? ", " + reps + " ops per sample" : "")
                    + "; GB/s = 10^9 bytes/s)");
            report(gbps);
            double fill = median(gbps.get(FILL_REGION));
            double fillCells = median(gbps.get(FILL_CELLS));
            for (boolean sorted : new boolean[] {false, true}) {
                double v1 = median(gbps.get(name("vector", sorted, 1)));
                double vN = median(gbps.get(name("vector", sorted, threads)));
                double s1 = median(gbps.get(name("scalar", sorted, 1)));
                double sN = median(gbps.get(name("scalar", sorted, threads)));
                System.out.printf(Locale.ROOT, "ratios (%s): vector1T/fill-region=%.3f vector1T/fill-cells=%.3f "
                                + "scalar1T/fill-region=%.3f vector1T/scalar1T=%.3f vector%dT/vector1T=%.3f "
                                + "scalar%dT/scalar1T=%.3f%n", sorted ? "sorted" : "recycling order",
                        v1 / fill, v1 / fillCells, s1 / fill, v1 / s1, threads, vN / v1, threads, sN / s1);
            }
        }
    }

    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return String.valueOf(java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    /** Seconds per op for each config, interleaved round by round, as GB/s. */
    static Map<String, double[]> interleave(Map<String, Runnable> configs, int rounds, int warmup, long bytes) {
        List<String> names = new ArrayList<>(configs.keySet());
        Map<String, double[]> out = new LinkedHashMap<>();
        for (String n : names) {
            out.put(n, new double[rounds]);
        }
        for (int r = -warmup; r < rounds; r++) {
            for (int i = 0; i < names.size(); i++) {
                // Rotate the order each round so no configuration always follows the same one.
                String name = names.get(Math.floorMod(i + r, names.size()));
                long t0 = System.nanoTime();
                configs.get(name).run();
                long t = System.nanoTime() - t0;
                if (r >= 0) {
                    out.get(name)[r] = bytes / (double) t; // bytes per ns = GB/s
                }
            }
        }
        return out;
    }

    static void report(Map<String, double[]> gbps) {
        for (Map.Entry<String, double[]> e : gbps.entrySet()) {
            double[] s = e.getValue().clone();
            Arrays.sort(s);
            System.out.printf(Locale.ROOT, "  %-20s median %7.2f GB/s   (min %6.2f, max %6.2f)%n", e.getKey(), median(e.getValue()),
                    s[0], s[s.length - 1]);
        }
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** The vector store loop against fill over runs of one length laid end to end over 512 MiB (DRAM-bound). */
    static void dramRuns(int rounds) {
        try (Arena arena = Arena.ofShared()) {
            long total = 512L << 20;
            MemorySegment big = arena.allocate(total, 4096);
            for (long size : new long[] {2 << 10, 32 << 10, 256 << 10, 4 << 20}) {
                Map<String, Runnable> configs = new LinkedHashMap<>();
                configs.put("vector zero", () -> {
                    for (long off = 0; off + size <= total; off += size) {
                        PanamaGcKernels.zeroVector(big, off, size);
                    }
                });
                configs.put("fill", () -> {
                    for (long off = 0; off + size <= total; off += size) {
                        big.asSlice(off, size).fill((byte) 0);
                    }
                });
                Map<String, double[]> gbps = interleave(configs, rounds, 4, total);
                System.out.println("## DRAM-bound runs of " + size + " bytes laid end to end over 512 MiB");
                report(gbps);
                System.out.printf(Locale.ROOT, "ratio: vector/fill=%.3f%n", median(gbps.get("vector zero")) / median(gbps.get("fill")));
            }
        }
    }

    /** One cell (2 KiB, 16 KiB, 64 KiB, 256 KiB) zeroed again and again: it stays in cache. */
    static void cacheResident(int rounds) {
        try (Arena arena = Arena.ofConfined()) {
            for (long size : new long[] {2048, 16 * 1024, 64 * 1024, 256 * 1024}) {
                MemorySegment seg = arena.allocate(size, 64);
                int reps = (int) Math.max(1000, (256L << 20) / size / 4);
                Map<String, Runnable> configs = new LinkedHashMap<>();
                configs.put("vector zero", () -> {
                    for (int i = 0; i < reps; i++) {
                        PanamaGcKernels.zeroVector(seg, 0, size);
                    }
                });
                configs.put("fill", () -> {
                    for (int i = 0; i < reps; i++) {
                        seg.fill((byte) 0);
                    }
                });
                Map<String, double[]> gbps = interleave(configs, rounds, 4, size * reps);
                System.out.println("## cache-resident zeroing of one " + size + "-byte cell");
                report(gbps);
                System.out.printf(Locale.ROOT, "ratio: vector/fill=%.3f%n", median(gbps.get("vector zero")) / median(gbps.get("fill")));
            }
        }
    }

    /** Index copies (free-list compaction, recycled-to-free refill): MemorySegment.copy against an IntVector loop. */
    static void indexCopies(int rounds) {
        try (Arena arena = Arena.ofConfined()) {
            for (long ints : new long[] {64 * 1024, 1024 * 1024}) {
                MemorySegment a = arena.allocate(ints * 4, 64);
                MemorySegment b = arena.allocate(ints * 4, 64);
                int reps = (int) Math.max(10, (512L << 20) / (ints * 4));
                Map<String, Runnable> configs = new LinkedHashMap<>();
                configs.put("vector copy", () -> {
                    for (int i = 0; i < reps; i++) {
                        PanamaGcKernels.copyIntsVector(a, 0, b, 0, ints);
                    }
                });
                configs.put("MemorySegment.copy", () -> {
                    for (int i = 0; i < reps; i++) {
                        VectorizationProvider.scalar().gcKernels().copyInts(a, 0, b, 0, ints);
                    }
                });
                Map<String, double[]> gbps = interleave(configs, rounds, 4, ints * 4 * reps);
                System.out.println("## index copy of " + ints + " ints");
                report(gbps);
                System.out.printf(Locale.ROOT, "ratio: vector/copy=%.3f%n",
                        median(gbps.get("vector copy")) / median(gbps.get("MemorySegment.copy")));
            }
        }
    }
}
