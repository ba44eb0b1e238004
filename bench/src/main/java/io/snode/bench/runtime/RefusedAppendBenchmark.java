package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of an append refused by the memory cap: the runtime's pool is full, and the append
 * needs a new chunk ({@code pointer(i,64).dynamic(l,65536,64).place(i32 v)}, list 0 filled
 * until an append was refused, so its length sits on a chunk boundary and no thread cache holds
 * a chunk). Every call must throw {@link MemoryCapExceededException} and change nothing. Issue
 * 12 asks that 16 threads refused at once cost at most 5 times what one thread costs (refused
 * growth used to serialise on the node manager's growth lock: about 85 us against 1-2 us).
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main RefusedAppendBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class RefusedAppendBenchmark {
    static final Layout LAYOUT = Layout.parse("pointer(i,64).dynamic(l,65536,64).place(i32 v)");
    /** Appends that fit before the cap refuses: the cap is what a runtime holds after them. */
    static final int FITTING_APPENDS = 1000;

    /** The generated appender, bound to an interface. */
    public interface Lists {
        long appendV(int i, int value);
    }

    private SNodeRuntime runtime;
    private SparseRuntime generic;
    private Lists bound;
    private SNode list;
    private long length;

    @Setup(Level.Trial)
    public void fill() {
        long cap;
        try (SNodeRuntime probe = SNodeRuntime.compile(LAYOUT)) {
            for (int n = 0; n < FITTING_APPENDS; n++) {
                probe.generic().appendInt("v", n, 0);
            }
            cap = probe.memoryStats().bytesReserved();
        }
        runtime = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(cap));
        generic = runtime.generic();
        bound = runtime.bind(Lists.class);
        list = LAYOUT.snode(2);
        try {
            for (int n = 0; n < 1 << 16; n++) {
                bound.appendV(0, n);
            }
            throw new AssertionError("cap=" + cap + " let list 0 fill up; expected a refusal first");
        } catch (MemoryCapExceededException expected) {
            length = generic.length(list, 0);
        }
    }

    @TearDown(Level.Trial)
    public void check() {
        long after = generic.length(list, 0);
        runtime.close();
        if (after != length) {
            throw new AssertionError("refused appends changed the list's length from " + length + " to " + after);
        }
    }

    private MemoryCapExceededException refusedAppend() {
        try {
            long index = bound.appendV(0, 1);
            throw new AssertionError("an append at the cap returned index " + index + " instead of being refused");
        } catch (MemoryCapExceededException refused) {
            return refused;
        }
    }

    @Benchmark
    @Threads(1)
    public MemoryCapExceededException refused_1_thread() {
        return refusedAppend();
    }

    @Benchmark
    @Threads(16)
    public MemoryCapExceededException refused_16_threads() {
        return refusedAppend();
    }
}
