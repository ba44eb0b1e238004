package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.SparseRuntime;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of deactivating a leaf block (a lower pointer cell of
 * {@code pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)}, which releases its 2 KiB
 * cell to the node's free list) and of reading a list's length (W6's particle layout), one call
 * at a time: through the generated {@code deactivate_} and {@code length_} methods (their own
 * walk, nothing allocated on the Java heap) and through the generic path (its walk, an array of
 * the coordinates and a {@code Location} per call). One thread.
 *
 * <p>Deactivations: single-shot iterations of {@value #BLOCKS} calls, each on a block that a
 * set-up before the iteration activated (untimed), then deactivated again (found inactive, false)
 * in the same pass; the teardown checks that nothing is active and collects. The score is the
 * time per call. Lengths: {@value #LISTS} lists of 4 elements each, read in a pseudo-random
 * order, the score per call.
 *
 * <p>Run: {@code ./snode java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.DeactivationBenchmark'}
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class DeactivationBenchmark {
    /** Blocks deactivated per iteration: 16 Ki blocks of 8^3, 32 MiB of lower cells. */
    public static final int BLOCKS = 1 << 14;
    public static final int LISTS = 1 << 12;
    static final Layout BLOCK_LAYOUT = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    static final Layout LIST_LAYOUT = Layout.parse("pointer(ijk,16).pointer(ijk,16).dynamic(l,1048576,64).place(i32 particle)");

    /** The generated write, bound to an interface (the set-up's activation). */
    public interface Grid {
        void phi(int i, int j, int k, float value);
    }

    /** A runtime of blocks, activated again before each iteration. */
    @State(Scope.Thread)
    public static class Blocks {
        SNodeRuntime runtime;
        SparseRuntime generic;
        Grid grid;
        SNode lower;
        MethodHandle deactivate;

        @Setup(Level.Trial)
        public void compile() {
            runtime = SNodeRuntime.compile(BLOCK_LAYOUT);
            generic = runtime.generic();
            grid = runtime.bind(Grid.class);
            lower = BLOCK_LAYOUT.snode(2);
            deactivate = runtime.nodeHandle("deactivate", lower);
        }

        /** Activates the iteration's blocks: block n at (n & 31, (n >> 5) & 31, n >> 10) of the lower node's index space. */
        @Setup(Level.Iteration)
        public void activate() {
            for (int n = 0; n < BLOCKS; n++) {
                grid.phi(8 * (n & 31), 8 * ((n >> 5) & 31), 8 * (n >> 10), 1f);
            }
        }

        @TearDown(Level.Iteration)
        public void checkAndCollect() {
            checkNoneInUseAndCollect(runtime, lower);
        }

        @TearDown(Level.Trial)
        public void close() {
            runtime.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OperationsPerInvocation(2 * BLOCKS)
    @Warmup(iterations = 10)
    @Measurement(iterations = 10)
    public int generatedDeactivate(Blocks blocks) throws Throwable {
        int deactivated = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int n = 0; n < BLOCKS; n++) {
                deactivated += (boolean) blocks.deactivate.invokeExact(n & 31, (n >> 5) & 31, n >> 10) ? 1 : 0;
            }
        }
        return check(deactivated);
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OperationsPerInvocation(2 * BLOCKS)
    @Warmup(iterations = 10)
    @Measurement(iterations = 10)
    public int genericDeactivate(Blocks blocks) {
        int deactivated = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int n = 0; n < BLOCKS; n++) {
                deactivated += blocks.generic.deactivate(blocks.lower, n & 31, (n >> 5) & 31, n >> 10) ? 1 : 0;
            }
        }
        return check(deactivated);
    }

    /** After an iteration that deactivated every cell of {@code node}: none in use, then a collection. */
    static void checkNoneInUseAndCollect(SNodeRuntime runtime, SNode node) {
        long inUse = runtime.memoryStats().of(node).cells().cellsInUse();
        if (inUse != 0) {
            throw new AssertionError(inUse + " cells of " + node.path() + " in use after deactivating every one");
        }
        runtime.gc();
    }

    private static int check(int deactivated) {
        if (deactivated != BLOCKS) {
            throw new AssertionError(deactivated + " deactivations found a block active, not " + BLOCKS);
        }
        return deactivated;
    }

    /** A runtime of lists of 4 elements, and the order of the reads. */
    @State(Scope.Thread)
    public static class Lists {
        SNodeRuntime runtime;
        SparseRuntime generic;
        SNode list;
        MethodHandle length;
        final int[] order = new int[LISTS];

        @Setup(Level.Trial)
        public void fill() throws Throwable {
            runtime = SNodeRuntime.compile(LIST_LAYOUT);
            generic = runtime.generic();
            list = LIST_LAYOUT.field("particle").snode();
            length = runtime.nodeHandle("length", list);
            MethodHandle append = runtime.nodeHandle("appendZero", list);
            long state = 99;
            for (int n = 0; n < LISTS; n++) {
                for (int e = 0; e < 4; e++) {
                    long index = (long) append.invokeExact(n & 15, (n >> 4) & 15, n >> 8);
                    if (index != e) {
                        throw new AssertionError("list " + n + " took element " + index + ", not " + e);
                    }
                }
                state = state * 6364136223846793005L + 1442695040888963407L;
                order[n] = (int) Long.remainderUnsigned(state >>> 16, LISTS);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            runtime.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OperationsPerInvocation(LISTS)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 5, time = 1)
    public long generatedLength(Lists lists) throws Throwable {
        long total = 0;
        for (int n : lists.order) {
            total += (long) lists.length.invokeExact(n & 15, (n >> 4) & 15, n >> 8);
        }
        return total;
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OperationsPerInvocation(LISTS)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 5, time = 1)
    public long genericLength(Lists lists) {
        long total = 0;
        for (int n : lists.order) {
            total += lists.generic.length(lists.list, n & 15, (n >> 4) & 15, n >> 8);
        }
        return total;
    }
}
