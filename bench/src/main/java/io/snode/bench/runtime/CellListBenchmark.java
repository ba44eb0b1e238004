package io.snode.bench.runtime;

import io.snode.api.Layout;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * W1s's bulk import on its own: one {@code Bulk.writeCells} of the whole sorted shell (8,048,580
 * cells) into a runtime emptied before each iteration ({@code deactivateAll} on the root and a
 * collection, untimed), as the workload runner's "bulk import" row does, without the runner's
 * rounds and peers. The score is nanoseconds per cell; the coordinate check, every container's
 * activation and (on L2) the mask bits are in it.
 *
 * <p>Run: {@code ./snode java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED
 * -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.CellListBenchmark'}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(CellListBenchmark.CELLS)
@Warmup(iterations = 15)
@Measurement(iterations = 30)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class CellListBenchmark {
    /** The reference shell's cells (WORKLOADS.md); {@link #setUp} checks that the list has them. */
    static final int CELLS = 8_048_580;

    @Param({"L2", "L1"})
    public String layout;

    private SNodeRuntime target;
    private CellArrays sorted;

    @Setup(Level.Trial)
    public void setUp() {
        target = SNodeRuntime.compile(Layout.parse(layout.equals("L1") ? Layouts.L1 : Layouts.L2));
        target.parallelism(1);
        sorted = NarrowBand.sorted().cells();
        if (sorted.size() != CELLS) {
            throw new IllegalStateException("the sorted shell has " + sorted.size() + " cells, not " + CELLS);
        }
    }

    @Setup(Level.Iteration)
    public void empty() {
        target.deactivateAll(target.layout().root());
        target.gc();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        target.close();
    }

    @Benchmark
    public long sortedShell() {
        return Bulk.writeCells(target, "phi", sorted);
    }
}
