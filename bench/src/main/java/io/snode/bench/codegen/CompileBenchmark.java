package io.snode.bench.codegen;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Compiling a layout of 20 SNodes and 20 fields (plan, class generation, hidden class
 * definition, off-heap runtime creation) and closing it.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main CompileBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CompileBenchmark {
    /** 20 SNodes (the root included) and 20 fields of every type. */
    static final Layout LAYOUT = Layout.parse(
            "pointer(ijk,16){ place(f32 coarse0, i32 flags0);"
            + " pointer(ijk,8){ dense(ijk,8).place(f32 a0, f32 a1, f64 a2); bitmasked(ijk,8).place(i32 a3, i64 a4) };"
            + " dense(ij,[4,4]).place(f32 a5) };"
            + " pointer(ij,64).bitmasked(ij,8){ place(f32 b0); dense(k,16).place(f64 b1, i32 b2) };"
            + " pointer(i,32).pointer(i,32).dynamic(l,4096,64).place(i32 c0, f32 c1);"
            + " dense(ijkl,[2,2,2,2]).pointer(ijkl,4).dense(ijkl,2).place(i64 d0);"
            + " bitmasked(m,1024).dynamic(n,1000,10).place(f64 e0);"
            + " pointer(ijk,[3,5,7]).dense(ijk,[2,3,4]).place(i32 g0, i64 g1);"
            + " dense(o,5).place(f32 f0, f32 f1);"
            + " place(i32 steps)");

    @Benchmark
    public int compileAndClose() {
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            return runtime.generatedCode().size();
        }
    }
}
