package io.snode.bench.codegen;

import io.snode.bench.workload.Layouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.samples.NarrowBand;
import io.snode.codegen.samples.SplitMix64;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads and writes of layout L1 filled with the W1s narrow band, at 1,048,576 coordinates drawn
 * as in W2 (half band voxels, half random voxels of the band's box), through: the generated
 * method (a static final method handle), the hand-written equivalent, an application
 * interface bound with Byte Buddy, a caching accessor, and the generic path.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main L1AccessBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx4g"})
public class L1AccessBenchmark {
    static final int COUNT = 1 << 20;
    static final SNodeRuntime RUNTIME = SNodeRuntime.compile(Layouts.l1());
    static final MethodHandle GET = RUNTIME.getter("phi");
    static final MethodHandle SET = RUNTIME.setter("phi");
    static final L1Grid BOUND = RUNTIME.bind(L1Grid.class);
    static final int[] I = new int[COUNT];
    static final int[] J = new int[COUNT];
    static final int[] K = new int[COUNT];

    static {
        NarrowBand band = NarrowBand.sorted();
        for (int n = 0; n < band.size(); n++) {
            BOUND.phi(band.i(n), band.j(n), band.k(n), band.value(n));
        }
        SplitMix64 random = new SplitMix64(7);
        for (int q = 0; q < COUNT; q++) {
            long r = random.next();
            if ((r & 1) == 0) {
                int n = (int) Long.remainderUnsigned(r >>> 1, band.size());
                I[q] = band.i(n);
                J[q] = band.j(n);
                K[q] = band.k(n);
            } else {
                I[q] = NarrowBand.ORIGIN + (int) Long.remainderUnsigned(r >>> 1, 805);
                J[q] = NarrowBand.ORIGIN + (int) Long.remainderUnsigned(r >>> 11, 805);
                K[q] = NarrowBand.ORIGIN + (int) Long.remainderUnsigned(r >>> 21, 805);
            }
        }
        HandWrittenL1.bind(RUNTIME.generic().internalTree());
    }

    private final L1Grid accessor = RUNTIME.accessor(L1Grid.class);

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double generatedGet() throws Throwable {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += (float) GET.invokeExact(I[q], J[q], K[q]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double handWrittenGet() {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += HandWrittenL1.get(I[q], J[q], K[q]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double boundInterfaceGet() {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += BOUND.phi(I[q], J[q], K[q]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double accessorGet() {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += accessor.phi(I[q], J[q], K[q]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double genericGet() {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += RUNTIME.generic().getFloat("phi", I[q], J[q], K[q]);
        }
        return sum;
    }

    /** Writes to cells that are all active already (the band's blocks): the fast path. */
    @Benchmark
    @OperationsPerInvocation(COUNT)
    public void generatedSet() throws Throwable {
        for (int q = 0; q < COUNT; q += 2) {
            SET.invokeExact(I[q], J[q], K[q], 1.0f);
        }
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public void genericSet() {
        for (int q = 0; q < COUNT; q += 2) {
            RUNTIME.generic().setFloat("phi", 1.0f, I[q], J[q], K[q]);
        }
    }
}
