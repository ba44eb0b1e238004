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
 * The first append to the list of a bitmasked cell of
 * {@code pointer(ijk,32).bitmasked(ijk,8).dynamic(l,1024,8).place(i32 id)} (a per-voxel list, as
 * particles of a level set's active voxels): the cell inactive, so the append activates it and
 * publishes the list's first chunk. Through the bound interface's generated append and through
 * the generic path. Single-shot iterations of {@value #CELLS} appends on an emptied, collected
 * runtime, the score the time per append, one thread; {@code upper} picks the cells:
 * {@code active}, every cell of 16 upper cells that a set-up before the iteration activated
 * (untimed; the generated append takes {@code GeneratedCalls.activateListCell}), or {@code new},
 * one cell in each of {@value #CELLS} inactive upper cells (each append publishes a new block with
 * the cell's bit set and the list's first chunk: {@code GeneratedCalls.activateListCellBlock}).
 *
 * <p>Run: {@code ./snode java -cp bench/target/snode-bench.jar org.openjdk.jmh.Main '^io.snode.bench.runtime.ListCellAppendBenchmark'}
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@BenchmarkMode(Mode.SingleShotTime)
@OperationsPerInvocation(ListCellAppendBenchmark.CELLS)
@Warmup(iterations = 20)
@Measurement(iterations = 30)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class ListCellAppendBenchmark {
    /** Inactive bitmasked cells appended to per iteration: 16 upper cells of 8^3, or one in each of as many upper cells. */
    public static final int CELLS = 16 * 512;
    static final Layout LAYOUT = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).dynamic(l,1024,8).place(i32 id)");

    /** The generated append, bound to an interface. */
    public interface Lists {
        long appendId(int i, int j, int k, int id);
    }

    /** {@code active}: the cells of 16 active upper cells; {@code new}: one cell in each of 8,192 inactive upper cells. */
    @Param({"active", "new"})
    public String upper;

    SNodeRuntime runtime;
    SparseRuntime generic;
    Lists lists;
    SNode list;
    final int[] is = new int[CELLS];
    final int[] js = new int[CELLS];
    final int[] ks = new int[CELLS];

    @Setup(Level.Trial)
    public void compile() {
        runtime = SNodeRuntime.compile(LAYOUT);
        generic = runtime.generic();
        lists = runtime.bind(Lists.class);
        list = LAYOUT.field("id").snode();
        for (int n = 0; n < CELLS; n++) {
            if (upper.equals("active")) { // cell (n & 7, (n >> 3) & 7, (n >> 6) & 7) of upper cell (n >> 9, 0, 0)
                is[n] = 8 * (n >> 9) + (n & 7);
                js[n] = (n >> 3) & 7;
                ks[n] = (n >> 6) & 7;
            } else { // cell (1, 2, 3) of upper cell (n & 31, (n >> 5) & 31, n >> 10)
                is[n] = 8 * (n & 31) + 1;
                js[n] = 8 * ((n >> 5) & 31) + 2;
                ks[n] = 8 * (n >> 10) + 3;
            }
        }
    }

    /** Empties the runtime and, for {@code active}, activates upper cells (u, 0, 0), u below 16. */
    @Setup(Level.Iteration)
    public void activateUpperCells() {
        runtime.deactivateAll(LAYOUT.root());
        runtime.gc();
        for (int u = 0; upper.equals("active") && u < 16; u++) {
            generic.activate(LAYOUT.snode(1), u, 0, 0);
        }
    }

    @TearDown(Level.Iteration)
    public void check() {
        long chunks = runtime.memoryStats().of(list).cells().cellsInUse();
        if (chunks != CELLS) {
            throw new AssertionError(chunks + " chunks in use after appending to " + CELLS + " new lists");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        runtime.close();
    }

    @Benchmark
    public long generated() {
        long total = 0;
        for (int n = 0; n < CELLS; n++) {
            total += lists.appendId(is[n], js[n], ks[n], n);
        }
        return total;
    }

    @Benchmark
    public long genericPath() {
        long total = 0;
        for (int n = 0; n < CELLS; n++) {
            total += generic.appendInt("id", n, is[n], js[n], ks[n]);
        }
        return total;
    }
}
