package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.SparseRuntime;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The cost of an append to a dynamic list of {@code pointer(i,64).dynamic(l,65536,64).place(i32 v)}
 * (one chunk of 64 elements allocated every 64 appends), through the generic path and through a
 * bound interface's generated appender. {@code lists=own}: thread t appends to list t;
 * {@code lists=shared}: every thread appends to list 0 (the length's compare-and-set and the
 * chunk lock are contended). Run with {@code -t 1} and {@code -t 2} (up to 4).
 *
 * <p>Single-shot iterations of {@value #APPENDS} appends per thread, so that no list ever fills
 * (appends refused at the memory cap are {@link RefusedAppendBenchmark}'s); the iteration's
 * teardown checks every list's length and sum, then deactivates the lists and collects. The
 * score is the time per append.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main AppendBenchmark -t 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// In single-shot mode JMH divides an iteration's time by the operations per invocation; the
// iteration runs batchSize invocations, so this makes the score the time per invocation.
@OperationsPerInvocation(AppendBenchmark.APPENDS)
@Warmup(iterations = 10, batchSize = AppendBenchmark.APPENDS)
@Measurement(iterations = 10, batchSize = AppendBenchmark.APPENDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class AppendBenchmark {
    /** Appends per thread and iteration; 4 threads sharing one list fill 4 x 16 Ki of its 64 Ki. */
    public static final int APPENDS = 1 << 14;
    static final int CAPACITY = 1 << 16;
    static final Layout LAYOUT = Layout.parse("pointer(i,64).dynamic(l,65536,64).place(i32 v)");

    /** The generated appender, bound to an interface. */
    public interface Lists {
        long appendV(int i, int value);

        int v(int i, int l);
    }

    @Param({"own", "shared"})
    public String lists;

    private SNodeRuntime runtime;
    private SparseRuntime generic;
    private Lists bound;
    private SNode pointer;
    private SNode list;
    private int threads;

    @Setup(Level.Trial)
    public void compile(ThreadParams params) {
        threads = params.getThreadCount();
        if ((long) APPENDS * threads > CAPACITY) {
            throw new IllegalArgumentException("threads=" + threads + ": at most " + CAPACITY / APPENDS
                    + " threads fit one list's capacity");
        }
        runtime = SNodeRuntime.compile(LAYOUT);
        generic = runtime.generic();
        bound = runtime.bind(Lists.class);
        pointer = LAYOUT.snode(1);
        list = LAYOUT.snode(2);
    }

    /** The list a thread appends to, and the values it appended this iteration (1, 2, 3, ...). */
    @State(Scope.Thread)
    public static class Appender {
        int list;
        int value;

        @Setup(Level.Trial)
        public void choose(ThreadParams params, AppendBenchmark benchmark) {
            list = "own".equals(benchmark.lists) ? params.getThreadIndex() : 0;
        }

        @Setup(Level.Iteration)
        public void rewind() {
            value = 0;
        }
    }

    /** After each iteration (no benchmark thread runs): check lengths and sums, then empty the lists. */
    @TearDown(Level.Iteration)
    public void checkAndReset() {
        int listCount = "own".equals(lists) ? threads : 1;
        long perList = "own".equals(lists) ? APPENDS : (long) APPENDS * threads;
        long sumPerThread = (long) APPENDS * (APPENDS + 1) / 2;
        long expectedSum = "own".equals(lists) ? sumPerThread : sumPerThread * threads;
        for (int i = 0; i < listCount; i++) {
            long length = generic.length(list, i);
            if (length != perList) {
                throw new AssertionError("list " + i + " has length " + length + ", expected " + perList);
            }
            long sum = 0;
            for (int l = 0; l < length; l++) {
                sum += bound.v(i, l);
            }
            if (sum != expectedSum) {
                throw new AssertionError("list " + i + " sums to " + sum + ", expected " + expectedSum);
            }
        }
        generic.deactivateAll(pointer);
        runtime.gc();
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    public long generatedAppender(Appender appender) {
        return bound.appendV(appender.list, ++appender.value);
    }

    @Benchmark
    public long genericPath(Appender appender) {
        return generic.appendInt("v", ++appender.value, appender.list);
    }
}
