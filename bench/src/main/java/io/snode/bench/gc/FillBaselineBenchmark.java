package io.snode.bench.gc;

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
 * {@code MemorySegment.fill} over the bytes {@link Phase2ZeroingBenchmark} zeroes: the data
 * chunks as one contiguous region ({@code fillRegion}) and each recycled cell on its own in
 * recycling order ({@code fillEachCell}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class FillBaselineBenchmark {

    @Param({"CONTIGUOUS", "SCATTERED"})
    public RecycledRegion.Layout layout;

    @Param({"256"})
    public long mib;

    private RecycledRegion region;

    @Setup(Level.Trial)
    public void setUp() {
        region = new RecycledRegion(layout, mib << 20, 2048, 42);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        region.close();
    }

    @Benchmark
    public void fillRegion() {
        region.fillRegion(mib << 20);
    }

    @Benchmark
    public void fillEachCell() {
        region.fillEachCell();
    }
}
