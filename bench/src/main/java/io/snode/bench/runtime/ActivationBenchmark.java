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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The cost of activating a fresh leaf block: one write into a block whose lower pointer cell is
 * inactive, in {@code pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)} (allocates
 * and publishes a 2 KiB lower cell; about one write in 16 also activates an upper cell, which all
 * threads share). Through the generic path and through a bound interface's generated setter.
 * Run with {@code -t 1} and {@code -t 2} (up to 16): all threads share one runtime; thread t
 * writes blocks (x, y, 8t) with x and y running over the iteration, so threads meet on the upper
 * cells and on the node managers but never on a lower pointer word's cache line.
 *
 * <p>Single-shot iterations of {@value #BLOCKS} activations per thread: every activation keeps a
 * cell until the iteration's teardown deactivates everything and collects, so an iteration must
 * be bounded by count, not by time (at 5 M activations a second a 1 s iteration would take
 * 13 GiB). The score is the time per activation. The teardown checks that every block was
 * activated exactly once and holds its value.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main ActivationBenchmark -t 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// In single-shot mode JMH divides an iteration's time by the operations per invocation; the
// iteration runs batchSize invocations, so this makes the score the time per invocation.
@OperationsPerInvocation(ActivationBenchmark.BLOCKS)
@Warmup(iterations = 10, batchSize = ActivationBenchmark.BLOCKS)
@Measurement(iterations = 10, batchSize = ActivationBenchmark.BLOCKS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class ActivationBenchmark {
    /** Fresh blocks per thread and iteration: 32 Ki blocks of 8^3, 64 MiB of lower cells. */
    public static final int BLOCKS = 1 << 15;
    static final Layout LAYOUT = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    static final int MAX_THREADS = 16;

    /** The generated accessors, bound to an interface. */
    public interface Grid {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    private SNodeRuntime runtime;
    private SparseRuntime generic;
    private Grid grid;
    private SNode upper;
    private SNode lower;
    private int threads;

    @Setup(Level.Trial)
    public void compile(ThreadParams params) {
        threads = params.getThreadCount();
        if (threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads=" + threads + " (at most " + MAX_THREADS + ")");
        }
        runtime = SNodeRuntime.compile(LAYOUT);
        generic = runtime.generic();
        grid = runtime.bind(Grid.class);
        upper = LAYOUT.snode(1);
        lower = LAYOUT.snode(2);
    }

    /** One thread's place in its sequence of fresh blocks. */
    @State(Scope.Thread)
    public static class Cursor {
        int thread;
        int next;

        @Setup(Level.Trial)
        public void thread(ThreadParams params) {
            thread = params.getThreadIndex();
        }

        @Setup(Level.Iteration)
        public void rewind() {
            next = 0;
        }

        int x() {
            return (next & 255) * 8;
        }

        int y() {
            return (next >>> 8) * 8;
        }

        int z() {
            return thread * 64;
        }
    }

    /** After each iteration (no benchmark thread runs): check, deactivate everything, collect. */
    @TearDown(Level.Iteration)
    public void checkAndReset() {
        long active = runtime.memoryStats().of(lower).cells().cellsInUse();
        long expected = (long) BLOCKS * threads;
        if (active != expected) {
            throw new AssertionError("lower cells in use=" + active + ", expected " + expected
                    + " (one per fresh block and thread)");
        }
        for (int t = 0; t < threads; t++) {
            for (int n = 0; n < BLOCKS; n += 1021) {
                float value = grid.phi((n & 255) * 8, (n >>> 8) * 8, t * 64);
                if (value != 1f) {
                    throw new AssertionError("block " + n + " of thread " + t + " reads " + value + ", not 1");
                }
            }
        }
        generic.deactivateAll(upper);
        runtime.gc();
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    public void generatedSetter(Cursor cursor) {
        grid.phi(cursor.x(), cursor.y(), cursor.z(), 1f);
        cursor.next++;
    }

    @Benchmark
    public void genericPath(Cursor cursor) {
        generic.setFloat("phi", 1f, cursor.x(), cursor.y(), cursor.z());
        cursor.next++;
    }
}
