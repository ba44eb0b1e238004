package io.snode.bench.workload;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.ActiveSet;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.codegen.samples.NarrowBand;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
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
 * W3 of WORKLOADS.md, iterate-active: on the W1s grid of L1 (dense 8^3 leaves: every cell of an
 * active block is visited, 28,993,536 cells) and of L2 (bitmasked leaves: 8,048,580 cells),
 * count the cells visited and sum their values in double (33845.922322932631 on both), with
 * the per-cell struct-for (a kernel per task, and a shared-adder variant) and the block form
 * (a reduction per launch over the unchanged structure, per launch after a change, which walks
 * the tree again, and over a kept active set), with one and two threads. The limit in
 * the same run: a Vector API sum over a {@code float[]} of the same bytes of leaf data
 * (56,628 blocks x 2 KiB), widening to double with four accumulators, on one thread.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp bench/target/snode-bench.jar
 * org.openjdk.jmh.Main W3IterateBenchmark}. Every invocation checks the count and the sum and
 * fails when they differ from WORKLOADS.md's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
        "-Xmx6g"})
public class W3IterateBenchmark {
    static final double SUM = 33845.922322932631;
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;

    @Param({"L1", "L2"})
    public String layout;

    @Param({"1", "2"})
    public int threads;

    private SNodeRuntime runtime;
    private Grid grid;
    private ActiveSet kept;
    private SNode leaf;
    private long expectedCount;
    /** The shell's 8^3 blocks (WORKLOADS.md's W6 counts the same blocks). */
    private long expectedBlocks;
    private float[] flat;
    private java.lang.foreign.Arena arena;
    private MemorySegment flatSegment;
    /** Coordinates of an inactive cell of the inner pointer node whose outer cell is active. */
    private int[] idle;

    @Setup(Level.Trial)
    public void build() {
        Layout chosen = layout.equals("L1") ? Layouts.l1() : Layouts.l2();
        runtime = SNodeRuntime.compile(chosen);
        NarrowBand band = NarrowBand.sorted();
        grid = runtime.bind(Grid.class);
        for (int n = 0; n < band.size(); n++) {
            grid.phi(band.i(n), band.j(n), band.k(n), band.value(n));
        }
        runtime.parallelism(threads);
        leaf = chosen.snode(3);
        kept = runtime.activeSet(leaf);
        expectedCount = layout.equals("L1") ? 512L * 56_628 : band.size();
        expectedBlocks = 56_628;
        long blocks = runtime.memoryStats().of(chosen.snode(2)).cells().cellsInUse();
        flat = new float[(int) (blocks * 512)];
        for (int n = 0; n < flat.length; n++) {
            flat[n] = (n % 7) * 0.25f;
        }
        idle = idleInnerCell(chosen, band);
        arena = java.lang.foreign.Arena.ofShared();
        flatSegment = arena.allocate((long) flat.length * Float.BYTES, 4096);
        MemorySegment.copy(flat, 0, flatSegment, java.lang.foreign.ValueLayout.JAVA_FLOAT, 0, flat.length);
    }

    /** An inactive cell of the inner pointer (snode 2) next to an active one, in an active outer cell. */
    private int[] idleInnerCell(Layout chosen, NarrowBand band) {
        SNode inner = chosen.snode(2);
        for (int n = 0; n < band.size(); n += 997) {
            int[] at = {band.i(n) / 8, band.j(n) / 8, band.k(n) / 8};
            for (int d = 1; d < 16; d++) {
                int[] near = {at[0], at[1], (at[2] & ~15) | ((at[2] + d) & 15)};
                if (!runtime.generic().isActive(inner, near)) {
                    return near;
                }
            }
        }
        throw new IllegalStateException("no inactive inner pointer cell in an active outer cell");
    }

    /**
     * Before each invocation of {@link #blockWalked}, untimed: activates an inactive cell of the
     * inner pointer node whose parent is active and deactivates it again. The active cells are
     * as before, but the structure changed (the epoch advances), so the launch that follows
     * walks the tree again, as a launch after any real change does. (A deactivation of the
     * inactive cell alone changes nothing since 12-06, and the launch kept its snapshot.)
     */
    @State(Scope.Thread)
    public static class Change {
        @Setup(Level.Invocation)
        public void activateAndDeactivate(W3IterateBenchmark w3) {
            w3.runtime.generic().activate(w3.leaf.parent(), w3.idle);
            if (!w3.runtime.generic().deactivate(w3.leaf.parent(), w3.idle)) {
                throw new IllegalStateException("the idle cell was not activated");
            }
        }
    }

    /** A collection before each invocation (it also makes the next launch walk), as a program that collects between steps. */
    @State(Scope.Thread)
    public static class Collected {
        @Setup(Level.Invocation)
        public void collect(W3IterateBenchmark w3) {
            w3.runtime.gc();
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        arena.close();
        runtime.close();
    }

    /** The binding used for reads in the per-cell form. */
    public interface Grid {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    /** The per-cell kernel: one per task (forEachPerTask), reading each value through {@code grid}. */
    static final class CellSum implements Kernel3 {
        private final Grid grid;
        double sum;
        long count;

        CellSum(Grid grid) {
            this.grid = grid;
        }

        @Override
        public void apply(int i, int j, int k) {
            sum += grid.phi(i, j, k);
            count++;
        }
    }

    /**
     * Per-cell form: a kernel call per active cell, which reads its value through an accessor
     * (generated code that keeps the last block; one accessor per task, as each is one thread's).
     */
    @Benchmark
    public double perCell() {
        List<CellSum> parts = runtime.forEachPerTask(leaf, () -> new CellSum(runtime.accessor(Grid.class)));
        double sum = 0;
        long count = 0;
        for (CellSum part : parts) {
            sum += part.sum;
            count += part.count;
        }
        return check(count, sum);
    }

    /**
     * Per-cell form with a view (the runner's "struct-for per cell + view, read of the visited
     * cell", with the runner's kernel): a kernel call per active cell, which reads the visited
     * cell through the view the generated driver hands it, without coordinates.
     */
    @Benchmark
    public double perCellView() {
        return check(runtime.forEachPerTask(leaf, SNodeContender.VisitedCell.class, SNodeContender.CellRead::new));
    }

    /** As {@link #perCellView}, the view reading {@code phi(i, j, k)} (the runner's "view (accessor primed per block)"). */
    @Benchmark
    public double perCellViewAt() {
        return check(runtime.forEachPerTask(leaf, SNodeContender.Grid.class, SNodeContender.CellView::new));
    }

    /** {@link #check(long, double)} of the parts' totals. */
    private double check(List<? extends SNodeContender.CellTotal> parts) {
        double sum = 0;
        long count = 0;
        for (SNodeContender.CellTotal part : parts) {
            sum += part.sum;
            count += part.count;
        }
        return check(count, sum);
    }

    /**
     * Per-cell form with atomics in the kernel (a DoubleAdder and a LongAdder per cell) and reads
     * through the plain binding (no cached block): what a user who uses neither forEachPerTask nor
     * an accessor pays.
     */
    @Benchmark
    public double perCellAdders() {
        DoubleAdder sum = new DoubleAdder();
        LongAdder count = new LongAdder();
        Grid bound = grid;
        runtime.forEach("phi", (Kernel3) (i, j, k) -> {
            sum.add(bound.phi(i, j, k));
            count.increment();
        });
        return check(count.sum(), sum.sum());
    }

    /**
     * Block form, launched again and again over an unchanged structure: from the second launch
     * on, each uses the previous launch's snapshot of the active blocks (nothing was activated,
     * deactivated or collected since), so this is the sum plus the launch's bookkeeping. The
     * kernel is the workload runner's ({@link BlockSum}).
     */
    @Benchmark
    public double block() {
        BlockSum total = runtime.reduceBlocks(leaf, BlockSum::new, BlockSum::accumulate, BlockSum::merge);
        return check(total.count(), total.sum());
    }

    /**
     * Block form after a change ({@link Change}, untimed): the launch walks the tree for the
     * active blocks (into the arrays of the previous snapshot), then sums. With two threads both
     * the walk and the sum run on the launch's pool; each thread count runs in a JVM of its own.
     */
    @Benchmark
    public double blockWalked(Change change) {
        BlockSum total = runtime.reduceBlocks(leaf, BlockSum::new, BlockSum::accumulate, BlockSum::merge);
        return check(total.count(), total.sum());
    }

    /**
     * A short launch after a change ({@link Change}, untimed): the walk, then a reduction that
     * only counts the blocks, so the launch is the walk and the hand-overs between the threads
     * that run it (what a launch over a small active set, or a kernel that does little, pays).
     */
    @Benchmark
    public long countWalked(Change change) {
        return countBlocks();
    }

    /** {@link #countWalked} after a collection ({@link Collected}, untimed): the collector's threads ran last. */
    @Benchmark
    public long countCollected(Collected collected) {
        return countBlocks();
    }

    private long countBlocks() {
        long[] blocks = runtime.reduceBlocks(leaf, () -> new long[1], (count, block) -> count[0]++, (a, b) -> {
            a[0] += b[0];
            return a;
        });
        if (blocks[0] != expectedBlocks) {
            throw new IllegalStateException("blocks=" + blocks[0] + ", expected " + expectedBlocks);
        }
        return blocks[0];
    }

    /**
     * Block form over a kept {@link ActiveSet} taken untimed in the set-up (as OpenVDB's
     * LeafManager in the peer's fastest W3 loop): the sum alone.
     */
    @Benchmark
    public double blockKeptSet() {
        BlockSum total = runtime.reduceBlocks(kept, BlockSum::new, BlockSum::accumulate, BlockSum::merge);
        return check(total.count(), total.sum());
    }

    /**
     * Only the walk that finds the active blocks, into new arrays (a kept set's): about what
     * {@link #blockWalked} pays over {@link #blockKeptSet}.
     */
    @Benchmark
    public int activeSetOnly() {
        return runtime.activeSet(leaf).blockCount();
    }

    /** The limit: a Vector API sum over a float[] of the same bytes, four double accumulators. */
    @Benchmark
    public double flatArrayLimit() {
        return VectorSum.sum(flat);
    }

    /**
     * Not the limit, a control: the same sum over one off-heap segment of the same bytes (4096-
     * aligned, from an arena, as node memory is). It shows what off-heap memory itself costs in
     * this process, apart from the library.
     */
    @Benchmark
    public double flatSegmentControl() {
        return sumAll(flatSegment);
    }

    /** Sum of the floats of a segment, widened to double, four accumulators (as the limit does). */
    public static double sumAll(MemorySegment cells) {
        return sumAll(cells, 0, cells.byteSize());
    }

    /** Sum of the floats in {@code [from, from + bytes)} of {@code memory}, as {@link #sumAll(MemorySegment)}. */
    public static double sumAll(MemorySegment memory, long from, long bytes) {
        int lanes = SPECIES.length();
        var d = jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED;
        var a0 = jdk.incubator.vector.DoubleVector.zero(d);
        var a1 = a0;
        var a2 = a0;
        var a3 = a0;
        long end = from + bytes;
        long step = 8L * lanes;
        long offset = from;
        for (; offset + step <= end; offset += step) {
            FloatVector x = FloatVector.fromMemorySegment(SPECIES, memory, offset, ByteOrder.nativeOrder());
            FloatVector y = FloatVector.fromMemorySegment(SPECIES, memory, offset + 4L * lanes, ByteOrder.nativeOrder());
            a0 = a0.add(x.convertShape(VectorOperators.F2D, d, 0).reinterpretAsDoubles());
            a1 = a1.add(x.convertShape(VectorOperators.F2D, d, 1).reinterpretAsDoubles());
            a2 = a2.add(y.convertShape(VectorOperators.F2D, d, 0).reinterpretAsDoubles());
            a3 = a3.add(y.convertShape(VectorOperators.F2D, d, 1).reinterpretAsDoubles());
        }
        double sum = a0.add(a1).add(a2).add(a3).reduceLanes(VectorOperators.ADD);
        // A scalar loop here would slow the vector loop down by half (measured): keep it out of line.
        return offset == end ? sum : sum + BlockSum.tail(memory, offset, end);
    }

    private double check(long count, double sum) {
        if (count != expectedCount || sum != SUM) {
            throw new IllegalStateException("W3 on " + layout + ": count " + count + " (expected " + expectedCount
                    + "), sum " + sum + " (expected " + SUM + ")");
        }
        return sum;
    }
}
