package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
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
 * A hash node's probes, one call at a time through a bound interface, for the shapes of cell
 * indices its home function must spread: {@value #KEYS} cells of
 * {@code hash(ijk,65536).dense(ijk,1).place(f32 x)} (one table of 2^20 entries) placed at random,
 * along four lines of j (indices 65,536 apart), or on an i-j plane. {@code read}: reads of those
 * cells in a pseudo-random order; {@code insertAndDeactivate}: each cell of a second set of
 * {@value #KEYS} of the same shape written (inserted) and deactivated again, so the table holds
 * the first set and churns the second (tombstones, no growth after the first pass). Scores per
 * call. One thread.
 *
 * <p>Run: {@code ./snode java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.HashNodeBenchmark'}
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class HashNodeBenchmark {
    public static final int KEYS = 1 << 18;
    static final Layout LAYOUT = Layout.parse("hash(ijk,65536).dense(ijk,1).place(f32 x)");

    /** The generated read and write, bound to an interface. */
    public interface Cells {
        float x(int i, int j, int k);

        void x(int i, int j, int k, float value);
    }

    @Param({"random", "line", "plane"})
    public String shape;

    SNodeRuntime runtime;
    Cells cells;
    /** The hash SNode: its cells are the ones churned (the generic deactivation, which does not collect). */
    io.snode.api.SNode cellNode;
    int[] is;
    int[] js;
    int[] ks;
    /** The churned set: the same shape, shifted to k = 1 (random: another seed). */
    int[] cs;
    int[] order;

    @Setup(Level.Trial)
    public void fill() {
        runtime = SNodeRuntime.compile(LAYOUT);
        cells = runtime.bind(Cells.class);
        cellNode = LAYOUT.field("x").snode().parent();
        is = new int[KEYS];
        js = new int[KEYS];
        ks = new int[KEYS];
        cs = new int[KEYS];
        java.util.SplittableRandom random = new java.util.SplittableRandom(17);
        for (int n = 0; n < KEYS; n++) {
            switch (shape) {
                case "random" -> {
                    is[n] = random.nextInt(65_536);
                    js[n] = random.nextInt(65_536);
                    ks[n] = random.nextInt(65_535);
                }
                case "line" -> { // four lines along j, at i = 0..3
                    is[n] = n >>> 16;
                    js[n] = n & 65_535;
                }
                case "plane" -> {
                    is[n] = n & 511;
                    js[n] = n >>> 9;
                }
                default -> throw new IllegalArgumentException(shape);
            }
            cs[n] = ks[n] + 1; // the churned cell beside each kept one (random: mostly another cell)
            cells.x(is[n], js[n], ks[n], n + 1);
        }
        order = new int[KEYS];
        for (int n = 0; n < KEYS; n++) {
            order[n] = n;
        }
        for (int n = KEYS - 1; n > 0; n--) {
            int m = random.nextInt(n + 1);
            int t = order[n];
            order[n] = order[m];
            order[m] = t;
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public float read() {
        float sum = 0;
        for (int q = 0; q < KEYS; q++) {
            int n = order[q];
            sum += cells.x(is[n], js[n], ks[n]);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public void insertAndDeactivate() {
        for (int q = 0; q < KEYS; q++) {
            int n = order[q];
            cells.x(is[n], js[n], cs[n], 1f);
        }
        for (int q = 0; q < KEYS; q++) {
            int n = order[q];
            runtime.generic().deactivate(cellNode, is[n], js[n], cs[n]);
        }
    }
}
