package io.snode.bench.gc;

import io.snode.gc.ParallelCollector;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.vectorization.GcKernels;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Phase 2 (refill and zero) of the parallel collector over 256 MiB of recycled 2 KiB cells, per
 * kernel, thread count, cell layout and order: milliseconds per op, one op zeroing
 * {@code mib} MiB. {@link FillBaselineBenchmark} measures {@code MemorySegment.fill} over the
 * same bytes; {@link GcZeroingRun} runs all of them interleaved in one JVM and prints medians and
 * ratios.
 *
 * <pre>
 * java -jar bench/target/snode-bench.jar -cp ... org.openjdk.jmh.Main 'io.snode.bench.gc.*'
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class Phase2ZeroingBenchmark {

    @Param({"CONTIGUOUS", "SCATTERED"})
    public RecycledRegion.Layout layout;

    @Param({"256"})
    public long mib;

    @Param({"vector", "scalar"})
    public String kernels;

    /** 0: all available processors. */
    @Param({"1", "0"})
    public int threads;

    @Param({"false", "true"})
    public boolean sorted;

    private RecycledRegion region;
    private GcKernels gcKernels;
    private ForkJoinPool pool;
    private TaskRunner runner;

    @Setup(Level.Trial)
    public void setUp() {
        region = new RecycledRegion(layout, mib << 20, 2048, 42);
        gcKernels = RecycledRegion.kernels(kernels);
        int n = threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
        pool = n > 1 ? new ForkJoinPool(n - 1) : null;
        runner = pool == null ? TaskRunner.inline() : TaskRunner.forkJoin(pool);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        region.close();
        if (pool != null) {
            pool.shutdown();
        }
    }

    @Benchmark
    public void phase2() {
        region.phase2(gcKernels, runner, ParallelCollector.DEFAULT_ZERO_GRAIN_BYTES, sorted);
    }
}
