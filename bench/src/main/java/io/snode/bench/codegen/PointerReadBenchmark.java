package io.snode.bench.codegen;

import io.snode.api.Layout;
import io.snode.bench.workload.Layouts;
import io.snode.bench.workload.SNodeContender;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.samples.NarrowBand;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * What the acquire read of each pointer word costs a walk: W1s's writes (the sorted shell, in
 * order, 8,048,580 voxels) into L1 with every block active already, through the bound interface
 * (generated {@code set_phi}), through a hand-written copy of that method's walk that reads each
 * pointer word with acquire as the generated one does ({@code GeneratedCalls.pointerWord}), and
 * through the same copy reading the words with plain loads. Both copies check what the generated
 * method checks (coordinates, an active word, the cell index); they throw where it would
 * activate, which never happens here.
 *
 * <p>The plain copy is not a correct walk under the Java memory model: only the acquire read
 * orders the child's contents, as the activation published them, before what the walk reads and
 * writes there. It measures what that ordering costs: in C2 the acquire is a barrier that no
 * memory access moves across (no instruction on x86-64), so the caller's loads of the next
 * voxel's coordinates wait behind it. The score is nanoseconds per voxel.
 *
 * <p>The {@code ...RandomReads} methods do the same for reads at random places, as W2's: as many
 * reads as the shell has voxels, each of a voxel of the shell drawn at random (seed 17, with
 * repeats), through the bound interface (generated {@code get_phi}) and the two copies of its
 * walk; a random read's loads miss the caches, so there the acquire orders more than it does in a
 * sorted pass. The score is nanoseconds per read.
 *
 * <p>Run: {@code ./snode java --enable-native-access=ALL-UNNAMED -cp bench/target/snode-bench.jar
 * org.openjdk.jmh.Main '^io.snode.bench.codegen.PointerReadBenchmark'}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(PointerReadBenchmark.VOXELS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx4g"})
public class PointerReadBenchmark {
    static final int VOXELS = 8_048_580;
    static final SNodeRuntime RUNTIME = SNodeRuntime.compile(Layout.parse(Layouts.L1));
    static final NarrowBand SORTED = NarrowBand.sorted();

    static {
        if (SORTED.size() != VOXELS) {
            throw new IllegalStateException("the sorted shell has " + SORTED.size() + " voxels, not " + VOXELS);
        }
        Bulk.writeCells(RUNTIME, "phi", SORTED.cells());
    }

    /** Coordinates of voxels of the shell at random (with repeats), one per read of the random-read methods. */
    static final int[][] RANDOM = randomVoxels();
    static final SNodeContender.Grid BOUND = RUNTIME.bind(SNodeContender.Grid.class);
    static final NodeTree TREE = RUNTIME.generic().internalTree();
    static final MemorySegment ROOT = TREE.root();
    /** The two pointer SNodes' regions (the JVM runs with native access, so each has one). */
    static final MemorySegment OUTER = region(1);
    static final MemorySegment INNER = region(2);

    private static int[][] randomVoxels() {
        int[] picks = new java.util.Random(17).ints(VOXELS, 0, VOXELS).toArray();
        int[][] voxels = new int[3][VOXELS];
        for (int n = 0; n < VOXELS; n++) {
            voxels[0][n] = SORTED.i(picks[n]);
            voxels[1][n] = SORTED.j(picks[n]);
            voxels[2][n] = SORTED.k(picks[n]);
        }
        return voxels;
    }

    private static MemorySegment region(int snode) {
        MemorySegment region = TREE.cells(TREE.plan().layout().snode(snode)).region();
        if (region == null) {
            throw new IllegalStateException("no region: run with --enable-native-access=ALL-UNNAMED");
        }
        return region;
    }

    @Benchmark
    public void boundInterface() {
        SNodeContender.Grid grid = BOUND;
        NarrowBand list = SORTED;
        for (int n = 0; n < VOXELS; n++) {
            grid.phi(list.i(n), list.j(n), list.k(n), list.value(n));
        }
    }

    @Benchmark
    public void acquireReads() {
        NarrowBand list = SORTED;
        for (int n = 0; n < VOXELS; n++) {
            setAcquire(list.i(n), list.j(n), list.k(n), list.value(n));
        }
    }

    @Benchmark
    public void plainReads() {
        NarrowBand list = SORTED;
        for (int n = 0; n < VOXELS; n++) {
            setPlain(list.i(n), list.j(n), list.k(n), list.value(n));
        }
    }

    @Benchmark
    public double boundInterfaceRandomReads() {
        SNodeContender.Grid grid = BOUND;
        int[] is = RANDOM[0];
        int[] js = RANDOM[1];
        int[] ks = RANDOM[2];
        double sum = 0;
        for (int n = 0; n < VOXELS; n++) {
            sum += grid.phi(is[n], js[n], ks[n]);
        }
        return sum;
    }

    @Benchmark
    public double acquireRandomReads() {
        int[] is = RANDOM[0];
        int[] js = RANDOM[1];
        int[] ks = RANDOM[2];
        double sum = 0;
        for (int n = 0; n < VOXELS; n++) {
            sum += INNER.get(ValueLayout.JAVA_FLOAT_UNALIGNED, leafAcquire(is[n], js[n], ks[n]));
        }
        return sum;
    }

    @Benchmark
    public double plainRandomReads() {
        int[] is = RANDOM[0];
        int[] js = RANDOM[1];
        int[] ks = RANDOM[2];
        double sum = 0;
        for (int n = 0; n < VOXELS; n++) {
            sum += INNER.get(ValueLayout.JAVA_FLOAT_UNALIGNED, leafPlain(is[n], js[n], ks[n]));
        }
        return sum;
    }

    private static void setAcquire(int i, int j, int k, float value) {
        INNER.set(ValueLayout.JAVA_FLOAT_UNALIGNED, leafAcquire(i, j, k), value);
    }

    private static void setPlain(int i, int j, int k, float value) {
        INNER.set(ValueLayout.JAVA_FLOAT_UNALIGNED, leafPlain(i, j, k), value);
    }

    /** The offset of voxel (i, j, k) in the leaves' region, each pointer word read with acquire. */
    private static long leafAcquire(int i, int j, int k) {
        checkInside(i, j, k);
        long word = GeneratedCalls.pointerWord(ROOT, outerIndex(i, j, k) << 3);
        long offset = active(word, 32768) + (innerIndex(i, j, k) << 3);
        word = GeneratedCalls.pointerWord(OUTER, offset);
        return active(word, 2048) + (leafIndex(i, j, k) << 2);
    }

    /** {@link #leafAcquire} with plain reads of the pointer words. */
    private static long leafPlain(int i, int j, int k) {
        checkInside(i, j, k);
        long word = ROOT.get(ValueLayout.JAVA_LONG, outerIndex(i, j, k) << 3);
        long offset = active(word, 32768) + (innerIndex(i, j, k) << 3);
        word = OUTER.get(ValueLayout.JAVA_LONG, offset);
        return active(word, 2048) + (leafIndex(i, j, k) << 2);
    }

    private static void checkInside(int i, int j, int k) {
        if (((i | j | k) & -2048) != 0) {
            throw new IndexOutOfBoundsException("(" + i + ", " + j + ", " + k + ")");
        }
    }

    /** The child's offset in its region for an active word (checked as generated code checks it). */
    private static long active(long word, long stride) {
        if (word <= 0) {
            throw new IllegalStateException("an inactive block: the benchmark writes only active ones");
        }
        return GeneratedCalls.regionOffset(word, stride);
    }

    private static long outerIndex(int i, int j, int k) {
        return ((long) (i >>> 7) << 8) + ((j >>> 7) << 4) + (k >>> 7);
    }

    private static long innerIndex(int i, int j, int k) {
        return ((long) ((i >>> 3) & 15) << 8) + (((j >>> 3) & 15) << 4) + ((k >>> 3) & 15);
    }

    private static long leafIndex(int i, int j, int k) {
        return ((i & 7) << 6) + ((j & 7) << 3) + (k & 7);
    }
}
