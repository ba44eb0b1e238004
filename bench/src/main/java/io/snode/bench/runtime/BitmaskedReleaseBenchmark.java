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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of releasing a pointer cell that holds a bitmasked container of 8^3 cells, one of
 * them active: without managed nodes below the bitmasked level ({@code plain}), and with a list
 * in each bitmasked cell ({@code lists}), where the release also retires the list of every
 * inactive cell (a call that walked into the released cell and sets a bit there after the
 * release passed must find its list refusing; see {@code BitmaskedUnit.release}). That pass
 * visits all 512 lists; the difference of the two scores is its cost.
 *
 * <p>Single-shot iterations of {@value #CELLS} deactivations of upper pointer cells, each
 * activated by a set-up before the iteration (untimed) with one write of one voxel; the
 * teardown checks that nothing stays in use and collects. The score is the time per
 * deactivation. One thread.
 *
 * <p>Run: {@code ./snode java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.BitmaskedReleaseBenchmark'}
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class BitmaskedReleaseBenchmark {
    /** Upper pointer cells released per iteration (each with a 512-cell bitmasked container). */
    public static final int CELLS = 1 << 12;

    @Param({"plain", "lists"})
    public String below;

    SNodeRuntime runtime;
    SparseRuntime generic;
    SNode upper;

    @Setup(Level.Trial)
    public void compile() {
        String cell = below.equals("lists") ? "{ place(f32 phi); dynamic(l,64,8).place(i32 p) }" : ".place(f32 phi)";
        runtime = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).pointer(ijk,4).bitmasked(ijk,8)" + cell));
        generic = runtime.generic();
        upper = runtime.layout().snode(2);
    }

    /** Activates cell n of the upper pointer at (n & 15, (n >> 4) & 15, n >> 8) with one voxel. */
    @Setup(Level.Iteration)
    public void activate() {
        for (int n = 0; n < CELLS; n++) {
            generic.setFloat("phi", 1f, 8 * (n & 15), 8 * ((n >> 4) & 15), 8 * (n >> 8));
        }
    }

    @TearDown(Level.Iteration)
    public void checkAndCollect() {
        DeactivationBenchmark.checkNoneInUseAndCollect(runtime, upper);
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OperationsPerInvocation(CELLS)
    @Warmup(iterations = 10)
    @Measurement(iterations = 20)
    public int release() {
        int released = 0;
        for (int n = 0; n < CELLS; n++) {
            released += generic.deactivate(upper, n & 15, (n >> 4) & 15, n >> 8) ? 1 : 0;
        }
        if (released != CELLS) {
            throw new AssertionError(released + " deactivations found a cell active, not " + CELLS);
        }
        return released;
    }
}
