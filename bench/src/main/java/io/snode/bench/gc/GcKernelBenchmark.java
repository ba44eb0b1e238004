package io.snode.bench.gc;

import io.snode.runtime.internal.vectorization.GcKernels;
import io.snode.runtime.internal.vectorization.PanamaGcKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * The kernels on cache-resident data: zeroing one cell of {@code bytes} bytes (vector stores
 * against {@code MemorySegment.fill}), and copying {@code bytes / 4} cell indices (an
 * {@code IntVector} loop against {@code MemorySegment.copy}). These decide which operation
 * {@code PanamaGcKernels} vectorises.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class GcKernelBenchmark {

    @Param({"2048", "16384", "65536", "262144"})
    public long bytes;

    private Arena arena;
    private MemorySegment a;
    private MemorySegment b;
    private GcKernels vector;
    private GcKernels scalar;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        a = arena.allocate(bytes, 64);
        b = arena.allocate(bytes, 64);
        vector = RecycledRegion.kernels("vector");
        scalar = VectorizationProvider.scalar().gcKernels();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public void zeroVector() {
        vector.zero(a, 0, bytes);
    }

    @Benchmark
    public void zeroFill() {
        scalar.zero(a, 0, bytes);
    }

    @Benchmark
    public void copyIntsVector() {
        PanamaGcKernels.copyIntsVector(a, 0, b, 0, bytes / Integer.BYTES);
    }

    @Benchmark
    public void copyIntsSegmentCopy() {
        scalar.copyInts(a, 0, b, 0, bytes / Integer.BYTES);
    }
}
