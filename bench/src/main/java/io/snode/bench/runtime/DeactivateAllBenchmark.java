package io.snode.bench.runtime;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.bench.workload.Layouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.interop.CellArrays;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code deactivateAll} of L2's bitmasked leaf on the W1s grid (the sorted shell, 8,048,580
 * active voxels in 56,628 blocks of 8^3): Taichi's per-step {@code deactivate_all} of a grid
 * whose blocks stay. Each iteration writes the shell first (untimed, one bulk import), then
 * clears every voxel's mask bit and zeroes its value in one call through the runtime (no
 * collection: the blocks stay allocated). The score is nanoseconds per active voxel; the walk
 * over the 56,628 blocks is in it.
 *
 * <p>Run: {@code ./snode java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.DeactivateAllBenchmark'}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(DeactivateAllBenchmark.CELLS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class DeactivateAllBenchmark {
    /** The reference shell's cells (WORKLOADS.md); {@link #setUp} checks that the list has them. */
    static final int CELLS = 8_048_580;

    private SNodeRuntime target;
    private SNode leaf;
    private CellArrays sorted;

    @Setup(Level.Trial)
    public void setUp() {
        Layout layout = Layout.parse(Layouts.L2);
        target = SNodeRuntime.compile(layout);
        target.parallelism(1);
        leaf = layout.field("phi").snode();
        sorted = NarrowBand.sorted().cells();
        if (sorted.size() != CELLS) {
            throw new IllegalStateException("the sorted shell has " + sorted.size() + " cells, not " + CELLS);
        }
    }

    @Setup(Level.Iteration)
    public void write() {
        Bulk.writeCells(target, "phi", sorted);
    }

    @TearDown(Level.Iteration)
    public void check() {
        if (target.count("phi") != 0) {
            throw new AssertionError(target.count("phi") + " voxels still active after deactivateAll");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        target.close();
    }

    @Benchmark
    public void leaf() {
        target.generic().deactivateAll(leaf);
    }
}
