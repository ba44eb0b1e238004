package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of appending to a dynamic list and of reading element i, at list lengths 1 Ki and
 * 1 Mi (chunks of 64): with the two-level chunk directory neither may grow with the length
 * (Taichi walks its chunk chain from the head on both). Appends: 1,024 per invocation onto a
 * list refilled to the length before each invocation; reads: 1,024 pseudo-random indices below
 * the length. Generated methods through method handles.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main DynamicListBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class DynamicListBenchmark {
    static final int BATCH = 1024;
    static final Layout LAYOUT = Layout.parse("dense(i,4).dynamic(j,2097152,64).place(i32 v)");

    @Param({"1024", "1048576"})
    public int length;

    private SNodeRuntime runtime;
    private SNode list;
    private MethodHandle append;
    private MethodHandle get;
    private final int[] indices = new int[BATCH];

    @Setup(Level.Trial)
    public void create() {
        runtime = SNodeRuntime.compile(LAYOUT);
        list = LAYOUT.snode(2);
        append = runtime.appender("v");
        get = runtime.getter("v");
        long state = 12345;
        for (int n = 0; n < BATCH; n++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            indices[n] = (int) Long.remainderUnsigned(state >>> 16, length);
        }
    }

    /** Before each invocation: list 0 holds exactly {@code length} elements. */
    @Setup(Level.Invocation)
    public void refill() throws Throwable {
        long current = runtime.generic().length(list, 0);
        if (current != length) {
            runtime.generic().deactivate(list, 0); // the list of dense cell 0: its parent's coordinates
            runtime.gc();
            for (int n = 0; n < length; n++) {
                long index = (long) append.invokeExact(0, n);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long appendAtLength() throws Throwable {
        long last = 0;
        for (int n = 0; n < BATCH; n++) {
            last = (long) append.invokeExact(0, n);
        }
        return last; // the next invocation's set-up brings the list back to its length

    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long readAtLength() throws Throwable {
        long sum = 0;
        for (int n = 0; n < BATCH; n++) {
            sum += (int) get.invokeExact(0, indices[n]);
        }
        return sum;
    }
}
