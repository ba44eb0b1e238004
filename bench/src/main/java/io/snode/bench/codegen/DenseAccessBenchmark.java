package io.snode.bench.codegen;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
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
 * Random reads of a dense-only layout against a plain {@code float[]} with the same index
 * arithmetic: the cost of FFM's checked access and of the generated walk. The size comes from
 * the system property {@code snode.bench.dense} (512 for the memory-bound case, 32 for the
 * cache-resident one), since a static final method handle is needed for an inlined call.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main DenseAccessBenchmark
 * -jvmArgsAppend -Dsnode.bench.dense=512} (and {@code =32}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx3g"})
public class DenseAccessBenchmark {
    static final int SIZE = Integer.getInteger("snode.bench.dense", 32);
    static final int COUNT = 1 << 20;
    static final SNodeRuntime RUNTIME = SNodeRuntime.compile(Layout.parse("dense(ijk," + SIZE + ").place(f32 x)"));
    static final MethodHandle GET = RUNTIME.getter("x");
    static final float[] ARRAY = new float[SIZE * SIZE * SIZE];
    static final int[] I = new int[COUNT];
    static final int[] J = new int[COUNT];
    static final int[] K = new int[COUNT];

    static {
        MethodHandle set = RUNTIME.setter("x");
        try {
            for (int i = 0; i < SIZE; i++) {
                for (int j = 0; j < SIZE; j++) {
                    for (int k = 0; k < SIZE; k++) {
                        float value = i * 0.5f + j - k;
                        set.invokeExact(i, j, k, value);
                        ARRAY[(i * SIZE + j) * SIZE + k] = value;
                    }
                }
            }
        } catch (Throwable e) {
            throw new ExceptionInInitializerError(e);
        }
        SplitMix64 random = new SplitMix64(11);
        for (int q = 0; q < COUNT; q++) {
            long r = random.next();
            I[q] = (int) Long.remainderUnsigned(r, SIZE);
            J[q] = (int) Long.remainderUnsigned(r >>> 20, SIZE);
            K[q] = (int) Long.remainderUnsigned(r >>> 40, SIZE);
        }
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double generated() throws Throwable {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            sum += (float) GET.invokeExact(I[q], J[q], K[q]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(COUNT)
    public double floatArray() {
        double sum = 0;
        for (int q = 0; q < COUNT; q++) {
            int i = I[q];
            int j = J[q];
            int k = K[q];
            if (i >= SIZE || j >= SIZE || k >= SIZE) {
                throw new IndexOutOfBoundsException();
            }
            sum += ARRAY[(i * SIZE + j) * SIZE + k];
        }
        return sum;
    }
}
