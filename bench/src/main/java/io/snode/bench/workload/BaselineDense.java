package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The baseline "dense", the limits of WORKLOADS.md: what a write, a read and a sum cost without
 * any structure.
 *
 * <ul>
 *   <li>W1s, W1r, W2: a plain {@code float[edge^3]} over the box {@code [low, low + edge)^3},
 *       index {@code ((i - low) * edge + (j - low)) * edge + (k - low)}; by default the 1024^3
 *       sub-box {@code [512, 1536)^3} (4 GiB: the JVM needs about -Xmx5g, the array and the data
 *       set). Every voxel is present ({@link DataSet.Activity#VOXEL}, no count). The array is
 *       allocated on the first of these workloads and kept; each build run clears it first,
 *       untimed. Where the heap is too small it prints one line to stderr saying what heap it
 *       needs and returns no rows.
 *   <li>W3: a sum with the Vector API ({@link VectorSum}) over a {@code float[]} of the W1s
 *       grid's leaf data, block after block (512 floats per 8^3 block: the same bytes as the
 *       leaves, so the same count and sum), one row per thread count of the run (with T
 *       threads, a contiguous part per thread): how far the memory bandwidth lets a sum scale
 *       on the machine, beside the structures' rows "after a change" at T threads. Without
 *       {@code jdk.incubator.vector} it prints one line to stderr and returns no rows.
 * </ul>
 *
 * <p>It takes no part in W4, W5 and W6.
 */
public final class BaselineDense implements Contender {
    /** The default box: [512, 1536)^3. */
    public static final int LOW = 512;
    public static final int EDGE = 1024;

    private final int low;
    private final int edge;
    private final HeapBytes heap;
    private float[] grid;
    /** Whether {@link #grid} holds the band (after a build): what W2 reads. */
    private boolean holdsBand;

    /** The box of WORKLOADS.md, [512, 1536)^3 (4 GiB), with the running JVM's object layout. */
    public BaselineDense() {
        this(LOW, EDGE, HeapBytes.current());
    }

    /**
     * The box {@code [low, low + edge)^3}: a smaller one for tests and the quick band (which lies
     * inside [922, 1127)^3).
     *
     * @param low 0 or more
     * @param edge 1 to 1024
     */
    public BaselineDense(int low, int edge, HeapBytes heap) {
        if (low < 0) {
            throw new IllegalArgumentException("low=" + low + " (0 or more)");
        }
        if (edge < 1 || edge > 1024) {
            throw new IllegalArgumentException("edge=" + edge + " (1 to 1024)");
        }
        this.low = low;
        this.edge = edge;
        this.heap = heap;
    }

    @Override
    public String structure() {
        return "dense";
    }

    @Override
    public DataSet.Activity activity() {
        return DataSet.Activity.VOXEL;
    }

    @Override
    public List<Result> run(Workload workload, Context context) {
        return switch (workload) {
            case W1S -> build(workload, context, context.data().sorted());
            case W1R -> build(workload, context, context.data().shuffled());
            case W2 -> reads(context);
            case W3 -> limitW3(context);
            case W4, W5, W6, W6V -> List.of();
        };
    }

    private List<Result> build(Workload workload, Context context, NarrowBand list) {
        if (!allocated(workload)) {
            return List.of();
        }
        requireInside(list);
        String api = "float[] store";
        float[] cells = grid;
        holdsBand = false;
        Trials.Timed<float[]> timed = context.trials().time(label(workload, api), () -> {
            Arrays.fill(cells, 0.0f);
            System.gc();
            return cells;
        }, g -> write(g, list));
        holdsBand = true;
        NarrowBand sorted = context.data().sorted();
        double sum = 0;
        for (int v = 0; v < sorted.size(); v++) {
            sum += cells[index(sorted.i(v), sorted.j(v), sorted.k(v))];
        }
        long held = heap.array(float.class, cells.length);
        return List.of(Row.of(workload, this, 1, api, timed, list.size())
                .checksums((long) sorted.size(), sum, null)
                .memory(held, held, sorted.size())
                .check(context.data().references(), activity()));
    }

    private List<Result> reads(Context context) {
        if (!allocated(Workload.W2)) {
            return List.of();
        }
        DataSet data = context.data();
        int[] is = data.readI();
        int[] js = data.readJ();
        int[] ks = data.readK();
        for (int q = 0; q < is.length; q++) {
            requireInside("W2's read", q, is[q], js[q], ks[q]);
        }
        if (!holdsBand) {
            requireInside(data.sorted());
            Arrays.fill(grid, 0.0f);
            write(grid, data.sorted());
            holdsBand = true;
        }
        String api = "float[] load";
        float[] cells = grid;
        double[] sum = new double[1];
        Trials.Timed<double[]> timed = context.trials().time(label(Workload.W2, api), () -> {
            System.gc();
            return sum;
        }, s -> {
            double total = 0;
            for (int q = 0; q < is.length; q++) {
                total += cells[index(is[q], js[q], ks[q])];
            }
            s[0] = total;
        });
        return List.of(Row.of(Workload.W2, this, 1, api, timed, DataSet.READS)
                .checksums(null, sum[0], null)
                .check(data.references(), activity()));
    }

    private List<Result> limitW3(Context context) {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            System.err.println("dense: W3's limit skipped: it needs the Vector API (java --add-modules jdk.incubator.vector)");
            return List.of();
        }
        float[] leaves = leafData(context.data());
        compileSum(leaves);
        long count = leaves.length;
        List<Result> results = new ArrayList<>();
        for (int threads : context.threadCounts()) {
            String api = threads == 1 ? "Vector API sum over float[]" : "Vector API sum over float[], a part per thread";
            double[] sum = new double[1];
            Trials.Timed<?> timed = threads == 1
                    ? context.trials().time(label(Workload.W3, api), () -> {
                        System.gc();
                        return sum;
                    }, s -> s[0] = VectorSum.sum(leaves))
                    : context.trials().timeSelf(label(Workload.W3, api) + " T=" + threads,
                            () -> partsOnThreads(leaves, threads, sum), PartSums::run);
            // Block data: checked as a structure whose writes activate whole blocks.
            results.add(Row.of(Workload.W3, this, threads, api, timed, count)
                    .checksums(null, sum[0], count)
                    .check(context.data().references(), DataSet.Activity.BLOCK));
        }
        return results;
    }

    /**
     * The limit on {@code threads} threads, to show in the same run how far the memory bandwidth
     * lets a sum scale: thread {@code t} sums the {@code t}-th of {@code threads} contiguous
     * parts, and the run adds the parts' sums in order into {@code sum[0]} (the values are
     * multiples of 2^-26 well inside double's range, so any order gives the same sum).
     */
    private record PartSums(double[] parts, double[] sum, ReleasedThreads threads) {
        long run() {
            long nanos = threads.run();
            double total = 0;
            for (double part : parts) {
                total += part;
            }
            sum[0] = total;
            return nanos;
        }
    }

    private static PartSums partsOnThreads(float[] leaves, int threads, double[] sum) {
        System.gc();
        double[] parts = new double[threads];
        return new PartSums(parts, sum, new ReleasedThreads(threads, "dense-w3", t -> {
            int from = (int) ((long) leaves.length * t / threads);
            int to = (int) ((long) leaves.length * (t + 1) / threads);
            parts[t] = VectorSum.sum(leaves, from, to);
        }));
    }

    /**
     * Calls the sum often enough, on a 16 KiB slice, that the JIT compiles it as a method: a few
     * calls on a small grid (the quick band's 7 MiB) run it in the interpreter and an
     * on-stack-replacement compile, several times slower than the loop the limit stands for.
     * Untimed.
     */
    private static void compileSum(float[] leaves) {
        float[] slice = Arrays.copyOf(leaves, Math.min(leaves.length, 4096));
        double sum = 0;
        for (int call = 0; call < 20_000; call++) {
            sum += VectorSum.sum(slice);
        }
        if (Double.isNaN(sum)) {
            throw new AssertionError("the slice sums to NaN");
        }
    }

    /**
     * The W1s grid's leaf data: for each 8^3 block in the order the sorted list first reaches it,
     * its 512 cells, {@code (i&7)<<6 | (j&7)<<3 | (k&7)}.
     */
    static float[] leafData(DataSet data) {
        NarrowBand sorted = data.sorted();
        long blocks = data.references().blocks();
        float[] leaves = new float[Math.toIntExact(blocks * Blocks.CELLS)];
        int[] block = Blocks.firstReached(sorted);
        for (int v = 0; v < sorted.size(); v++) {
            leaves[block[v] * Blocks.CELLS + Blocks.cell(sorted.i(v), sorted.j(v), sorted.k(v))] = sorted.value(v);
        }
        if (block[sorted.size()] != blocks) {
            throw new AssertionError("the sorted list fills " + block[sorted.size()] + " blocks, the data set counts " + blocks);
        }
        return leaves;
    }

    /** Allocates the grid once; false (and a line on stderr) where the heap cannot hold it. */
    private boolean allocated(Workload workload) {
        if (grid == null) {
            long cells = (long) edge * edge * edge;
            try {
                grid = new float[(int) cells];
            } catch (OutOfMemoryError e) {
                long mib = 1L << 20;
                long needed = heap.array(float.class, cells);
                System.err.printf(Locale.ROOT, "dense: %s skipped: float[%d] (%d MiB) does not fit in the heap"
                        + " (max %d MiB); run the JVM with -Xmx%dm or more (the array and the data set)%n", workload.id(),
                        cells, needed / mib, Runtime.getRuntime().maxMemory() / mib, needed / mib + 1024);
                return false;
            }
        }
        return true;
    }

    private void write(float[] cells, NarrowBand list) {
        for (int n = 0; n < list.size(); n++) {
            cells[index(list.i(n), list.j(n), list.k(n))] = list.value(n);
        }
    }

    private int index(int i, int j, int k) {
        return ((i - low) * edge + (j - low)) * edge + (k - low);
    }

    private void requireInside(NarrowBand list) {
        for (int n = 0; n < list.size(); n++) {
            requireInside("voxel", n, list.i(n), list.j(n), list.k(n));
        }
    }

    private void requireInside(String what, int n, int i, int j, int k) {
        if (i < low || i >= low + edge || j < low || j >= low + edge || k < low || k >= low + edge) {
            throw new IndexOutOfBoundsException(what + " " + n + " at (" + i + ", " + j + ", " + k
                    + ") lies outside the dense box [" + low + ", " + (low + edge) + ")^3");
        }
    }

    private String label(Workload workload, String api) {
        return workload.id() + " " + structure() + " " + api;
    }
}
