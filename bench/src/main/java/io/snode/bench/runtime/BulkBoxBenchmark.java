package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.bench.workload.Layouts;
import io.snode.bench.workload.SNodeContender;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.samples.NarrowBand;
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
 * Box copies of {@code Bulk} against the per-cell loop a user would write with a caching
 * accessor, over the same box: the 128^3 cells {@code [1296, 1424) x [960, 1088) x [960, 1088)}
 * of the W1s shell (which cuts the shell's cap at i = 1424, so it straddles active and inactive
 * blocks). Reads go into a {@code float[]} (zeros where inactive); writes go into an emptied
 * runtime and activate the whole box. The score is nanoseconds per cell of the box.
 *
 * <p>Run: {@code ./snode java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED
 * -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.BulkBoxBenchmark'}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(BulkBoxBenchmark.CELLS)
@Warmup(iterations = 10)
@Measurement(iterations = 15)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class BulkBoxBenchmark {
    static final int EDGE = 128;
    static final int CELLS = EDGE * EDGE * EDGE;
    static final int[] LOW = {1296, 960, 960};
    static final int[] HIGH = {1296 + EDGE, 960 + EDGE, 960 + EDGE};

    @Param({"L2", "L1"})
    public String layout;

    private SNodeRuntime shell;
    private SNodeRuntime empty;
    private SNodeContender.Grid shellGrid;
    private SNodeContender.Grid emptyGrid;
    private float[] box;

    @Setup(Level.Trial)
    public void setUp() {
        Layout parsed = Layout.parse(layout.equals("L1") ? Layouts.L1 : Layouts.L2);
        shell = SNodeRuntime.compile(parsed);
        empty = SNodeRuntime.compile(parsed);
        Bulk.writeCells(shell, "phi", NarrowBand.sorted().cells());
        shellGrid = shell.accessor(SNodeContender.Grid.class);
        emptyGrid = empty.accessor(SNodeContender.Grid.class);
        box = new float[CELLS];
        for (int n = 0; n < CELLS; n++) {
            box[n] = n;
        }
    }

    @Setup(Level.Iteration)
    public void emptyTheTarget() {
        empty.deactivateAll(empty.layout().root());
        empty.gc();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        shell.close();
        empty.close();
    }

    @Benchmark
    public float readBox() {
        float[] into = new float[CELLS];
        Bulk.read(shell, "phi", LOW, HIGH, into);
        return into[CELLS - 1];
    }

    @Benchmark
    public float readPerCellThroughAnAccessor() {
        float[] into = new float[CELLS];
        SNodeContender.Grid grid = shellGrid;
        int n = 0;
        for (int i = LOW[0]; i < HIGH[0]; i++) {
            for (int j = LOW[1]; j < HIGH[1]; j++) {
                for (int k = LOW[2]; k < HIGH[2]; k++) {
                    into[n++] = grid.phi(i, j, k);
                }
            }
        }
        return into[CELLS - 1];
    }

    @Benchmark
    public long writeBox() {
        return Bulk.write(empty, "phi", LOW, HIGH, box);
    }

    @Benchmark
    public int writePerCellThroughAnAccessor() {
        SNodeContender.Grid grid = emptyGrid;
        int n = 0;
        for (int i = LOW[0]; i < HIGH[0]; i++) {
            for (int j = LOW[1]; j < HIGH[1]; j++) {
                for (int k = LOW[2]; k < HIGH[2]; k++) {
                    grid.phi(i, j, k, box[n++]);
                }
            }
        }
        return n;
    }
}
