package io.snode.bench.jmh;

import io.snode.runtime.internal.memory.ListManager;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.memory.NodeManagerMetrics;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.BitSet;
import java.util.concurrent.TimeUnit;

/**
 * Throughput of {@link NodeManager#allocate()} from one shared manager with 1, 2 and 8 threads,
 * in the steady state of a sparse structure under churn: every cell comes from the free list
 * (cells recycled and collected earlier), so the benchmark measures the allocator, not the
 * operating system's first touch of fresh pages.
 *
 * <p>Iterations are short (100 ms) because every allocation takes a cell for good: at several
 * hundred million allocations per second, a 1 s iteration would need gigabytes of prefilled cells.
 * Report the median of the measurement iterations.
 *
 * <p>Per trial, {@code prefillCells} cells of 16 bytes are created, recycled and collected. Before
 * each iteration (JMH runs iteration fixtures while no benchmark thread runs, which is the
 * exclusion collection needs) every cell handed out in the previous iteration is recycled and
 * collected again. If an iteration drains the free list, the data list grows; the teardown then
 * prints a warning, and the figures include growth.
 *
 * <p>{@code cacheBatch}: {@code default} uses per-thread caches (64 cells per refill for 16-byte
 * cells); {@code 1} sends every allocation to the shared free-list cursor, the plain atomic
 * cursor the caches are there to avoid.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main NodeManagerAllocationBenchmark}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 100, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 10, time = 100, timeUnit = TimeUnit.MILLISECONDS)
public class NodeManagerAllocationBenchmark {

    /** One manager shared by all benchmark threads, prefilled so that every allocation reuses a cell. */
    @State(Scope.Benchmark)
    public static class SharedCells {
        private static final long CELL_SIZE = 16;

        @Param({"default", "1"})
        public String cacheBatch;

        @Param({"64000000"})
        public int prefillCells;

        private MemoryPool pool;
        NodeManager cells;

        @Setup(Level.Trial)
        public void createAndPrefill() {
            pool = new MemoryPool(MemoryPool.UNLIMITED);
            int batch = "default".equals(cacheBatch) ? -1 : Integer.parseInt(cacheBatch);
            cells = new NodeManager(pool, "bench.cells", CELL_SIZE, 8, batch);
            for (int i = 0; i < prefillCells; i++) {
                cells.allocate();
            }
            returnAllCells();
        }

        private long cellsAtIterationStart;

        @Setup(Level.Iteration)
        public void returnCellsOfThePreviousIteration() {
            returnAllCells();
            cellsAtIterationStart = cells.metrics().cellsAllocated();
        }

        /** Recycles every cell in use and collects: afterwards every cell is in the free list. Exclusive. */
        private void returnAllCells() {
            cells.drainThreadCaches();
            long allocated = cells.metrics().cellsAllocated();
            BitSet free = new BitSet((int) allocated);
            ListManager freeList = cells.freeList();
            for (long i = cells.freeListCursor(); i < cells.freeListLength(); i++) {
                free.set(freeList.getInt(i));
            }
            for (int cell = free.nextClearBit(0); cell < allocated; cell = free.nextClearBit(cell + 1)) {
                cells.recycle(cell);
            }
            cells.collect();
            NodeManagerMetrics m = cells.metrics();
            if (m.cellsInUse() != 0 || m.cellsFree() != m.cellsAllocated()) {
                throw new AssertionError("cells not all returned: " + m);
            }
        }

        /**
         * Growth in an iteration means the free list ran dry. With synchronised iterations (JMH's
         * default) threads keep calling the benchmark before and after the measured window until
         * every thread is in (or out of) it, so a descheduled thread can make the others drain the
         * free list outside the window; the warning says so but cannot tell where growth happened.
         */
        @TearDown(Level.Iteration)
        public void warnIfTheFreeListRanDry() {
            long allocated = cells.metrics().cellsAllocated();
            if (allocated > cellsAtIterationStart) {
                System.out.printf("%n[bench] the free list ran dry: the data list grew from %,d to %,d cells in this"
                        + " iteration (measured window or JMH's ramp-up/down); raise -p prefillCells if this repeats%n",
                        cellsAtIterationStart, allocated);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            pool.close();
        }
    }

    /**
     * Baseline: the same shape of work (pop from a per-thread stack, refill every 64 pops) with no
     * shared state at all. Its scaling from 1 to 2 threads is what this machine allows for
     * perfectly independent work; the allocator cannot scale better.
     */
    @State(Scope.Thread)
    public static class PrivateStack {
        final int[] stack = new int[64];
        int size;
        int next;

        int pop() {
            if (size == 0) {
                for (int i = 0; i < stack.length; i++) {
                    stack[stack.length - 1 - i] = next++;
                }
                size = stack.length;
            }
            return stack[--size];
        }
    }

    @Benchmark
    @Threads(1)
    public int baseline_private_stack_1_thread(PrivateStack stack) {
        return stack.pop();
    }

    @Benchmark
    @Threads(2)
    public int baseline_private_stack_2_threads(PrivateStack stack) {
        return stack.pop();
    }

    @Benchmark
    @Threads(8)
    public int baseline_private_stack_8_threads(PrivateStack stack) {
        return stack.pop();
    }

    @Benchmark
    @Threads(1)
    public int allocate_1_thread(SharedCells shared) {
        return shared.cells.allocate();
    }

    @Benchmark
    @Threads(2)
    public int allocate_2_threads(SharedCells shared) {
        return shared.cells.allocate();
    }

    @Benchmark
    @Threads(8)
    public int allocate_8_threads(SharedCells shared) {
        return shared.cells.allocate();
    }
}
