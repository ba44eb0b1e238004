package io.snode.bench.runtime;

import io.snode.codegen.samples.NarrowBand;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;
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
 * The floor of W1s on L2 that no layout code can go under: setting one mask bit per voxel of
 * the shell, in the sorted order of {@code WORKLOADS.md}, in 64-byte masks of 8^3 blocks laid out
 * as L2's leaves are (2,112 bytes apart, in the order the blocks are first met). OpenVDB's
 * {@code setValueOn} sets its bit with a plain OR ({@link #plainOr}); a structure that threads
 * may activate at once needs an atomic OR ({@link #atomicOr}), and our generated setter first
 * reads the word (acquire) and ORs only a clear bit ({@link #testThenAtomicOr}, what the in-place
 * activation does, without the change count and the value store). The score is nanoseconds per
 * voxel; compare with W1s L2's time per voxel in {@code ./snode bench}.
 *
 * <p>Run: {@code java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main MaskBitFloorBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(MaskBitFloorBenchmark.VOXELS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
public class MaskBitFloorBenchmark {
    /** The shell's voxels (WORKLOADS.md's 8,048,580). */
    public static final int VOXELS = 8_048_580;
    private static final long LEAF_BYTES = 2112;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Arena arena;
    private MemorySegment leaves;
    /** Per voxel in sorted order: the byte offset of its mask word, and its bit. */
    private long[] word;
    private long[] bit;

    @Setup(Level.Trial)
    public void setUp() {
        NarrowBand band = NarrowBand.sorted();
        if (band.size() != VOXELS) {
            throw new IllegalStateException("the shell has " + band.size() + " voxels, not " + VOXELS);
        }
        Map<Long, Integer> blocks = new HashMap<>();
        word = new long[VOXELS];
        bit = new long[VOXELS];
        for (int n = 0; n < VOXELS; n++) {
            int i = band.i(n);
            int j = band.j(n);
            int k = band.k(n);
            long key = ((long) (i >>> 3) << 40) | ((long) (j >>> 3) << 20) | (k >>> 3);
            int block = blocks.computeIfAbsent(key, b -> blocks.size());
            int cell = ((i & 7) << 6) | ((j & 7) << 3) | (k & 7);
            word[n] = block * LEAF_BYTES + (cell >>> 6) * Long.BYTES;
            bit[n] = 1L << (cell & 63);
        }
        arena = Arena.ofShared();
        leaves = arena.allocate(blocks.size() * LEAF_BYTES, 64);
    }

    @Setup(Level.Iteration)
    public void clearMasks() {
        leaves.fill((byte) 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long plainOr() {
        MemorySegment m = leaves;
        for (int n = 0; n < VOXELS; n++) {
            long at = word[n];
            m.set(ValueLayout.JAVA_LONG, at, m.get(ValueLayout.JAVA_LONG, at) | bit[n]);
        }
        return m.get(ValueLayout.JAVA_LONG, 0);
    }

    @Benchmark
    public long atomicOr() {
        MemorySegment m = leaves;
        for (int n = 0; n < VOXELS; n++) {
            LONG.getAndBitwiseOr(m, word[n], bit[n]);
        }
        return m.get(ValueLayout.JAVA_LONG, 0);
    }

    @Benchmark
    public long testThenAtomicOr() {
        MemorySegment m = leaves;
        for (int n = 0; n < VOXELS; n++) {
            long at = word[n];
            long b = bit[n];
            if (((long) LONG.getAcquire(m, at) & b) == 0) {
                LONG.getAndBitwiseOr(m, at, b);
            }
        }
        return m.get(ValueLayout.JAVA_LONG, 0);
    }
}
