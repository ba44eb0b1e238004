package io.snode.bench.workload;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.interop.CellArrays;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.kernel.ViewKernel4;
import io.snode.codegen.samples.NarrowBand;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.RuntimeOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Our layouts L1 (dense 8^3 leaves) and L2 (bitmasked leaves), any layout text that
 * {@link WorkloadLayout} accepts (named by its text; the leaf, the activity and W4's blocks
 * come from there), and W6's particle lists (with L1 only), through
 * the public API a user would write: generated accessors bound to an interface ({@code bind},
 * safe to share between threads) and the caching accessor ({@code accessor}, one per thread,
 * which keeps the last leaf block it resolved); struct-for and reductions for W3; a struct-for
 * over the cells that hold the 8^3 leaf blocks (L1, L2: the inner pointer's) that deactivates for
 * W4; a bound appender for W6.
 *
 * <p>One runtime per layout serves every workload and every run, as in a user's program: the
 * generated classes stay the same, so the JIT's profile does too (a new runtime per run would
 * make the benchmark's call sites megamorphic over the runs' hidden classes). An empty grid is
 * that runtime after {@code deactivateAll} on the root and a collection: node memory then comes
 * from the free lists, as it does in any program that rebuilds. W1 to W4 and W6 run with
 * parallelism 1 (as OpenVDB's single-threaded rows), but for W3's launch after a change, which
 * runs with each of the thread counts; W5 uses threads of its own.
 */
public final class SNodeContender implements Contender, AutoCloseable {
    /** The generated accessors of {@code phi}. */
    public interface Grid {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    /** The generated appender and reader of W6's lists. */
    public interface Lists {
        long appendParticle(int i, int j, int k, int value);

        int particle(int i, int j, int k, int l);
    }

    private static final String BIND = "bound interface";
    private static final String BULK = "bulk import (Bulk.writeCells of the sorted list)";
    private static final String BULK_SHUFFLED = "bulk import (Bulk.writeCells of the shuffled list)";
    /** W5's way through the bulk import: each thread copies its part to arrays and imports them, timed. */
    private static final String BULK_PART = "bulk import per thread (its part copied to arrays + Bulk.writeCells), shared";
    private static final String ACCESSOR = "caching accessor";
    /** W4's rewrite in one call: the rewritten voxels, the sorted list's first part, as arrays made untimed. */
    private static final String BULK_REWRITE = "bulk import of the rewritten voxels (Bulk.writeCells)";

    private final String name;
    private final WorkloadLayout workloadLayout;
    private final Layout layout;
    private final DataSet.Activity activity;
    private SNodeRuntime runtime;
    /** W4's third row: a runtime whose collections give the pages of free cells back. */
    private SNodeRuntime releasing;
    /** The same layout with its regions on huge pages, for W2's and W5's rows that say so. */
    private SNodeRuntime hugePaged;
    private SNodeRuntime hugeReleasing;
    private SNodeRuntime particles;

    private SNodeContender(String name, WorkloadLayout workloadLayout) {
        this.name = name;
        this.workloadLayout = workloadLayout;
        this.layout = workloadLayout.layout();
        this.activity = workloadLayout.activity();
    }

    /** L1 of WORKLOADS.md; it also runs W6 on the particle layout. */
    public static SNodeContender l1() {
        return new SNodeContender("L1", WorkloadLayout.reference(Layouts.l1(), true));
    }

    /** L2 of WORKLOADS.md (W6 is L1's). */
    public static SNodeContender l2() {
        return new SNodeContender("L2", WorkloadLayout.reference(Layouts.l2(), false));
    }

    /**
     * Any layout that {@link WorkloadLayout} accepts, named by its canonical text; it takes no
     * part in W6 (nor in W4 where it has no 8^3 blocks to delete).
     *
     * @throws IllegalArgumentException as {@link WorkloadLayout#parse}
     */
    public static SNodeContender of(String layoutText) {
        WorkloadLayout checked = WorkloadLayout.parse(layoutText);
        return new SNodeContender(checked.text(), checked);
    }

    /** What the workloads use of the layout. */
    public WorkloadLayout workloadLayout() {
        return workloadLayout;
    }

    @Override
    public String structure() {
        return name;
    }

    @Override
    public DataSet.Activity activity() {
        return activity;
    }

    @Override
    public List<Result> run(Workload workload, Context context) {
        if (workloadLayout.notApplicable().containsKey(workload)) {
            return List.of();
        }
        if (runtime == null) {
            runtime = SNodeRuntime.compile(layout);
        }
        runtime.parallelism(1);
        return switch (workload) {
            case W1S -> List.of(build(workload, context, context.data().sorted(), BIND),
                    build(workload, context, context.data().sorted(), ACCESSOR),
                    bulkBuild(workload, context, context.data().sorted(), BULK));
            case W1R -> List.of(build(workload, context, context.data().shuffled(), BIND),
                    build(workload, context, context.data().shuffled(), ACCESSOR),
                    bulkBuild(workload, context, context.data().shuffled(), BULK_SHUFFLED));
            case W2 -> List.of(read(context, runtime, BIND, BIND), read(context, runtime, ACCESSOR, ACCESSOR),
                    read(context, hugePaged(), BIND, BIND + HUGE_PAGES));
            case W3 -> iterate(context);
            case W4 -> List.of(recycle(context), recycleBox(context, runtime, false, false),
                    recycleBox(context, runtime, false, true), recycleBox(context, releasing(), true, false),
                    recycleBox(context, hugeReleasing(), true, true));
            case W5 -> parallelBuild(context);
            case W6, W6V -> particles(workload, context);
        };
    }

    private static final String HUGE_PAGES = ", huge pages (RuntimeOptions.withHugePages)";

    private SNodeRuntime hugePaged() {
        if (hugePaged == null) {
            hugePaged = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withHugePages(true));
        }
        hugePaged.parallelism(1);
        return hugePaged;
    }

    /** Huge pages and free pages given back: a collection then gives back whole huge pages only. */
    private SNodeRuntime hugeReleasing() {
        if (hugeReleasing == null) {
            hugeReleasing = SNodeRuntime.compile(layout,
                    RuntimeOptions.DEFAULT.withHugePages(true).withFreePageRelease(true));
        }
        hugeReleasing.parallelism(1);
        return hugeReleasing;
    }

    private SNodeRuntime releasing() {
        if (releasing == null) {
            releasing = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withFreePageRelease(true));
        }
        releasing.parallelism(1);
        return releasing;
    }

    private Grid grid(String api) {
        return api.equals(BIND) ? runtime.bind(Grid.class) : runtime.accessor(Grid.class);
    }

    /** Empties the runtime: every sparse node deactivated, then collected. */
    private void empty(SNodeRuntime target) {
        target.deactivateAll(target.layout().root());
        target.gc();
    }

    private static double readBack(Grid grid, NarrowBand sorted) {
        double sum = 0;
        for (int n = 0; n < sorted.size(); n++) {
            sum += grid.phi(sorted.i(n), sorted.j(n), sorted.k(n));
        }
        return sum;
    }

    private Result build(Workload workload, Context context, NarrowBand list, String api) {
        Grid grid = grid(api);
        GridLoop loop = GridLoop.fresh();
        Trials.Timed<Grid> timed = context.trials().time(workload.id() + " " + name + " " + api, () -> {
            empty(runtime);
            return grid;
        }, g -> loop.write(g, list, 0, list.size()));
        MemoryStats stats = runtime.memoryStats();
        return Row.of(workload, this, 1, api, timed, list.size())
                .checksums((long) list.size(), readBack(grid, context.data().sorted()), runtime.count("phi"))
                .memory(stats.bytesCommitted(), stats.bytesReserved(), list.size())
                .check(context.data().references(), activity);
    }

    /** W1s or W1r through one bulk import of the list as parallel arrays (the arrays are made untimed). */
    private Result bulkBuild(Workload workload, Context context, NarrowBand list, String label) {
        NarrowBand sorted = context.data().sorted();
        CellArrays cells = list.cells();
        Trials.Timed<SNodeRuntime> timed = context.trials().time(workload.id() + " " + name + " " + label, () -> {
            empty(runtime);
            return runtime;
        }, rt -> Bulk.writeCells(rt, "phi", cells));
        MemoryStats stats = runtime.memoryStats();
        return Row.of(workload, this, 1, label, timed, list.size())
                .checksums((long) list.size(), readBack(runtime.accessor(Grid.class), sorted), runtime.count("phi"))
                .memory(stats.bytesCommitted(), stats.bytesReserved(), list.size())
                .check(context.data().references(), activity);
    }

    /** Makes the runtime hold the W1s grid (untimed). */
    private void buildSorted(Context context) {
        buildSorted(runtime, context);
    }

    private void buildSorted(SNodeRuntime target, Context context) {
        empty(target);
        NarrowBand sorted = context.data().sorted();
        GridLoop.fresh().write(target.accessor(Grid.class), sorted, 0, sorted.size());
    }

    private Result read(Context context, SNodeRuntime target, String api, String way) {
        buildSorted(target, context);
        Grid grid = api.equals(BIND) ? target.bind(Grid.class) : target.accessor(Grid.class);
        int[] is = context.data().readI();
        int[] js = context.data().readJ();
        int[] ks = context.data().readK();
        double[] sum = new double[1];
        GridLoop loop = GridLoop.fresh();
        Trials.Timed<Grid> timed = context.trials().time("W2 " + name + " " + way, () -> grid,
                g -> sum[0] = loop.read(g, is, js, ks));
        return Row.of(Workload.W2, this, 1, way, timed, is.length)
                .checksums((long) is.length, sum[0], null)
                .check(context.data().references(), activity);
    }

    private List<Result> iterate(Context context) {
        buildSorted(context);
        SNode leaf = workloadLayout.leaf();
        List<Result> results = new ArrayList<>();
        BlockSum[] block = new BlockSum[1];
        Trials.Timed<SNodeRuntime> blocks = context.trials().time("W3 " + name + " reduceBlocks", () -> runtime,
                rt -> block[0] = rt.reduceBlocks(leaf, BlockSum::new, BlockSum::accumulate, BlockSum::merge));
        results.add(Row.of(Workload.W3, this, 1, "block form (reduceBlocks)", blocks, block[0].count())
                .checksums(null, block[0].sum(), block[0].count())
                .check(context.data().references(), activity));
        // After a change, the launch walks the tree again: before each run (untimed), an
        // inactive cell of the leaf's parent is activated and deactivated again, which leaves
        // the active cells as they were (a collection where no such cell is found). With T
        // threads, both the walk and the reduction run on T.
        int[] idle = idleParentCell(context.data().sorted());
        for (int threads : context.threadCounts()) {
            runtime.parallelism(threads);
            BlockSum[] walked = new BlockSum[1];
            Trials.Timed<SNodeRuntime> afterChange = context.trials().time("W3 " + name + " after a change T=" + threads,
                    () -> {
                        if (idle == null) {
                            runtime.gc();
                        } else {
                            runtime.generic().activate(leaf.parent(), idle);
                            if (!runtime.generic().deactivate(leaf.parent(), idle)) {
                                throw new IllegalStateException("the idle cell " + java.util.Arrays.toString(idle)
                                        + " of " + leaf.parent().path() + " was not activated");
                            }
                        }
                        return runtime;
                    },
                    rt -> walked[0] = rt.reduceBlocks(leaf, BlockSum::new, BlockSum::accumulate, BlockSum::merge));
            results.add(Row.of(Workload.W3, this, threads, "block form after a change (walk + reduceBlocks)",
                            afterChange, walked[0].count())
                    .checksums(null, walked[0].sum(), walked[0].count())
                    .note(idle == null ? "a collection before each run, untimed, makes the launch walk again"
                            : "an inactive cell activated and deactivated before each run, untimed, makes the launch walk again")
                    .check(context.data().references(), activity));
        }
        runtime.parallelism(1);
        double[] sum = new double[1];
        Trials.Timed<SNodeRuntime> reduction = context.trials().time("W3 " + name + " sum(\"phi\")", () -> runtime,
                rt -> sum[0] = rt.sum("phi"));
        long count = runtime.count("phi");
        results.add(Row.of(Workload.W3, this, 1, "reduction sum(\"phi\")", reduction, count)
                .checksums(null, sum[0], count)
                .note("count from count(\"phi\"), untimed")
                .check(context.data().references(), activity));
        results.add(perCell(context, "per cell", "struct-for per cell + caching accessor",
                rt -> rt.forEachPerTask(leaf, () -> new CellSum(rt.accessor(Grid.class)))));
        results.add(perCell(context, "per cell, view", "struct-for per cell + view (accessor primed per block)",
                rt -> rt.forEachPerTask(leaf, Grid.class, CellView::new)));
        results.add(perCell(context, "per cell, visited cell", "struct-for per cell + view, read of the visited cell (phi())",
                rt -> rt.forEachPerTask(leaf, VisitedCell.class, CellRead::new)));
        CellArrays[] exported = new CellArrays[1];
        double[] exportedSum = new double[1];
        Trials.Timed<SNodeRuntime> export = context.trials().time("W3 " + name + " bulk export", () -> runtime, rt -> {
            CellArrays active = Bulk.activeCells(rt, "phi");
            double total = 0;
            for (float value : active.floats()) {
                total += value;
            }
            exported[0] = active;
            exportedSum[0] = total;
        });
        results.add(Row.of(Workload.W3, this, 1, "per cell, bulk export (Bulk.activeCells + a loop)",
                        export, exported[0].size())
                .checksums(null, exportedSum[0], (long) exported[0].size())
                .check(context.data().references(), activity));
        exported[0] = null;
        System.gc(); // the export's arrays (464 MB on L1) go now, not during the next workload
        return results;
    }

    /**
     * An inactive cell of the leaf's parent next to an active one, in an active cell of the
     * node above (so that activating it allocates only its own container), or null when the
     * layout has no such pair of sparse nodes on the last axis or none is found.
     */
    private int[] idleParentCell(NarrowBand band) {
        SNode parent = workloadLayout.leaf().parent();
        SNode above = parent.parent();
        if (!parent.kind().isSparse() || above == null || !above.kind().isSparse()) {
            return null;
        }
        List<io.snode.api.Axis> axes = parent.indexAxes();
        int last = axes.size() - 1;
        int size = parent.size(axes.get(last));
        SNode leaf = workloadLayout.leaf();
        for (int n = 0; n < band.size(); n += 997) {
            int[] voxel = {band.i(n), band.j(n), band.k(n)};
            int[] at = new int[axes.size()];
            for (int c = 0; c < at.length; c++) {
                at[c] = voxel[c] / leaf.size(axes.get(c));
            }
            for (int d = 1; d < size; d++) {
                int[] near = at.clone();
                near[last] = at[last] - at[last] % size + (at[last] + d) % size;
                if (!runtime.generic().isActive(parent, near)) {
                    return near;
                }
            }
        }
        return null;
    }

    /** W3's per-cell kernel: one per task, reading each value through the task's accessor. */
    /** What a per-cell kernel of W3 gathers over the cells its task visits: their sum and count. */
    abstract static class CellTotal {
        double sum;
        long count;
    }

    /**
     * One W3 per-cell row: times {@code launch} (a per-task launch over the leaf) with the totals
     * of its tasks' kernels, and checks them.
     */
    private Result perCell(Context context, String timer, String way,
                           Function<SNodeRuntime, List<? extends CellTotal>> launch) {
        double[] sum = new double[1];
        long[] count = new long[1];
        Trials.Timed<SNodeRuntime> timed = context.trials().time("W3 " + name + " " + timer, () -> runtime, rt -> {
            double s = 0;
            long c = 0;
            for (CellTotal part : launch.apply(rt)) {
                s += part.sum;
                c += part.count;
            }
            sum[0] = s;
            count[0] = c;
        });
        return Row.of(Workload.W3, this, 1, way, timed, count[0])
                .checksums(null, sum[0], count[0])
                .check(context.data().references(), activity);
    }

    static final class CellSum extends CellTotal implements Kernel3 {
        private final Grid grid;

        CellSum(Grid grid) {
            this.grid = grid;
        }

        @Override
        public void apply(int i, int j, int k) {
            sum += grid.phi(i, j, k);
            count++;
        }
    }

    /** W3's per-cell kernel with a view: one per task, reading each value through the view the driver hands it. */
    static final class CellView extends CellTotal implements ViewKernel3<Grid> {

        @Override
        public void apply(Grid view, int i, int j, int k) {
            sum += view.phi(i, j, k);
            count++;
        }
    }

    /** A view's read of the cell being visited, without coordinates. */
    public interface VisitedCell {
        float phi();
    }

    /** W3's per-cell kernel reading the visited cell through its view. */
    static final class CellRead extends CellTotal implements ViewKernel3<VisitedCell> {

        @Override
        public void apply(VisitedCell view, int i, int j, int k) {
            sum += view.phi();
            count++;
        }
    }

    /** W4 through a struct-for that deactivates the deleted blocks one by one. */
    private Result recycle(Context context) {
        SNode blocks = workloadLayout.blocks().orElseThrow();
        java.util.BitSet lowSet = new java.util.BitSet(1 << 24);
        for (int key : context.data().lowBlocks()) {
            lowSet.set(key);
        }
        return deleteAndRewrite(context, "delete", "struct-for deactivate",
                // One launch over the blocks' parent cells; it collects once, after the launch.
                rt -> rt.forEach(blocks, (Kernel3) (bi, bj, bk) -> {
                    if (lowSet.get(bi << 16 | bj << 8 | bk)) {
                        rt.deactivate(blocks, bi, bj, bk);
                    }
                }), "deactivations inside one launch (the collection runs after it)");
    }

    /**
     * W4 through one region deactivation: the box of the blocks whose lowest i is below
     * {@link DataSet#W4_SPLIT} (in the blocks' index space, {@link DataSet#BLOCK} voxels a cell),
     * deactivated in one call, which releases whole upper pointer cells at once.
     */
    private Result recycleBox(Context context, SNodeRuntime target, boolean released, boolean bulk) {
        SNode blocks = workloadLayout.blocks().orElseThrow();
        int[] high = blocks.indexShape().clone();
        high[blocks.indexAxes().indexOf(io.snode.api.Axis.of('i'))] = DataSet.W4_SPLIT / DataSet.BLOCK;
        boolean huge = target == hugeReleasing;
        return deleteAndRewrite(context, target,
                (released ? "box delete, pages released" + (huge ? " on huge pages" : "") : "box delete")
                        + (bulk ? ", bulk rewrite" : ""),
                released ? "region deactivation, pages released (withFreePageRelease"
                        + (huge ? ", withHugePages: whole huge pages" : "") + ")" : "region deactivation",
                rt -> rt.deactivateBox(blocks, new int[high.length], high), // collects after it
                "one deactivateBox call (whole upper cells at once; the collection runs after it"
                        + (released ? " and gives the free cells' " + (huge ? "whole huge " : "")
                        + "pages back, which the rewrite faults in again)" : ")"),
                bulk);
    }

    /**
     * W4 after a sorted build: {@code delete} removes the blocks with i below 1024, then the same
     * voxels are written again through a caching accessor; the time is both parts, without the
     * memory readings between them.
     */
    private Result deleteAndRewrite(Context context, String label, String way,
                                    java.util.function.Consumer<SNodeRuntime> delete, String note) {
        return deleteAndRewrite(context, runtime, label, way, delete, note, false);
    }

    /** As above; {@code bulk}: the rewrite is one {@link Bulk#writeCells} of the rewritten voxels' arrays (made untimed). */
    private Result deleteAndRewrite(Context context, SNodeRuntime target, String label, String way,
                                    java.util.function.Consumer<SNodeRuntime> delete, String note, boolean bulk) {
        buildSorted(target, context);
        int rewrite = context.data().lowVoxels();
        NarrowBand sorted = context.data().sorted();
        Grid grid = target.accessor(Grid.class);
        CellArrays part = bulk ? firstCells(sorted, rewrite) : null;
        GridLoop loop = GridLoop.fresh();
        long[] held = new long[3];
        Trials.Timed<SNodeRuntime> timed = context.trials().timeSelf("W4 " + name + " " + label + " + rewrite",
                () -> target, rt -> {
                    held[0] = rt.memoryStats().bytesCommitted();
                    long start = System.nanoTime();
                    delete.accept(rt);
                    long deleted = System.nanoTime();
                    held[1] = rt.memoryStats().bytesCommitted();
                    long rewriteStart = System.nanoTime();
                    if (bulk) {
                        Bulk.writeCells(rt, "phi", part);
                    } else {
                        loop.write(grid, sorted, 0, rewrite);
                    }
                    long end = System.nanoTime();
                    held[2] = rt.memoryStats().bytesCommitted();
                    return (deleted - start) + (end - rewriteStart);
                });
        return Row.of(Workload.W4, this, 1, way + " + " + (bulk ? BULK_REWRITE : ACCESSOR), timed, rewrite)
                .checksums((long) sorted.size(), readBack(grid, sorted), target.count("phi"))
                .held(held[0], held[1], held[2])
                .note(note + "; items = voxels rewritten")
                .check(context.data().references(), activity);
    }

    /** The first {@code count} cells of {@code list} as arrays of their own. */
    private static CellArrays firstCells(NarrowBand list, int count) {
        CellArrays all = list.cells();
        int[][] coordinates = new int[all.dimensions()][];
        for (int axis = 0; axis < coordinates.length; axis++) {
            coordinates[axis] = java.util.Arrays.copyOf(all.coordinates(axis), count);
        }
        return CellArrays.ofFloats(coordinates, java.util.Arrays.copyOf(all.floats(), count));
    }

    private List<Result> parallelBuild(Context context) {
        List<Result> results = new ArrayList<>();
        for (int threads : context.threadCounts()) {
            results.add(parallelBuild(context, runtime, threads, BIND, "one " + BIND + ", shared"));
            results.add(parallelBuild(context, runtime, threads, ACCESSOR, "one " + ACCESSOR + " per thread"));
            results.add(parallelBuild(context, hugePaged(), threads, BIND, "one " + BIND + ", shared" + HUGE_PAGES));
            results.add(parallelBuild(context, runtime, threads, BULK_PART, BULK_PART));
        }
        return results;
    }

    private Result parallelBuild(Context context, SNodeRuntime target, int threads, String api, String label) {
        NarrowBand shuffled = context.data().shuffled();
        Trials.Timed<SNodeRuntime> timed = context.trials().timeSelf("W5 " + name + " T=" + threads + " " + label,
                () -> {
                    empty(target);
                    return target;
                }, rt -> writeInParallel(rt, shuffled, threads, api));
        MemoryStats stats = target.memoryStats();
        return Row.of(Workload.W5, this, threads, label, timed, shuffled.size())
                .checksums((long) shuffled.size(), readBack(target.bind(Grid.class), context.data().sorted()),
                        target.count("phi"))
                .memory(stats.bytesCommitted(), stats.bytesReserved(), shuffled.size())
                .check(context.data().references(), activity);
    }

    /**
     * Thread t writes indices t, t + T, ... of {@code list}. The threads are started and wait at
     * a barrier before the clock starts; the time runs from the barrier until the last has ended.
     */
    private static long writeInParallel(SNodeRuntime rt, NarrowBand list, int threads, String api) {
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        Thread[] workers = new Thread[threads];
        Throwable[] failures = new Throwable[threads];
        Grid shared = rt.bind(Grid.class);
        GridLoop loop = GridLoop.fresh();
        for (int t = 0; t < threads; t++) {
            int part = t;
            Grid grid = api.equals(BIND) || api.equals(BULK_PART) ? shared : rt.accessor(Grid.class);
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                    if (api.equals(BULK_PART)) {
                        importPart(rt, list, part, threads);
                    } else {
                        loop.writeEvery(grid, list, part, threads);
                    }
                } catch (Throwable e) {
                    failures[part] = e;
                }
            }, "w5-" + t);
            workers[t].start();
        }
        long begin;
        try {
            start.await(1, TimeUnit.MINUTES);
            begin = System.nanoTime();
            for (Thread worker : workers) {
                worker.join(TimeUnit.MINUTES.toMillis(10));
                if (worker.isAlive()) {
                    throw new IllegalStateException(worker.getName() + " did not end within 10 minutes");
                }
            }
        } catch (InterruptedException | BrokenBarrierException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("W5's threads did not start or end: " + e, e);
        }
        long end = System.nanoTime();
        for (Throwable failure : failures) {
            if (failure != null) {
                throw new IllegalStateException("a W5 thread failed: " + failure, failure);
            }
        }
        return end - begin;
    }

    /** Copies indices {@code part}, {@code part + threads}, ... of {@code list} to arrays and imports them in one call. */
    private static void importPart(SNodeRuntime rt, NarrowBand list, int part, int threads) {
        int count = (list.size() - part + threads - 1) / threads;
        int[][] at = new int[3][count];
        float[] values = new float[count];
        for (int q = 0, n = part; q < count; q++, n += threads) {
            at[0][q] = list.i(n);
            at[1][q] = list.j(n);
            at[2][q] = list.k(n);
            values[q] = list.value(n);
        }
        Bulk.writeCells(rt, "phi", at, values);
    }

    private List<Result> particles(Workload workload, Context context) {
        if (particles == null) {
            particles = SNodeRuntime.compile(Layout.parse(Layouts.PARTICLES));
        }
        particles.parallelism(1);
        Lists lists = particles.bind(Lists.class);
        NarrowBand sorted = context.data().sorted();
        int[] voxel = context.data().particleVoxel();
        int[] bi = new int[voxel.length];
        int[] bj = new int[voxel.length];
        int[] bk = new int[voxel.length];
        for (int p = 0; p < voxel.length; p++) {
            bi[p] = sorted.i(voxel[p]) >> 3;
            bj[p] = sorted.j(voxel[p]) >> 3;
            bk[p] = sorted.k(voxel[p]) >> 3;
        }
        if (workload == Workload.W6) {
            Trials.Timed<Lists> timed = context.trials().time("W6 " + name + " append", () -> {
                empty(particles);
                return lists;
            }, l -> {
                for (int p = 0; p < bi.length; p++) {
                    l.appendParticle(bi[p], bj[p], bk[p], p);
                }
            });
            long appended = visit().n;
            Result perParticle = Row.of(Workload.W6, this, 1, "bound appender", timed, voxel.length)
                    .checksums(appended, null, null)
                    .note("layout " + Layouts.PARTICLES)
                    .check(context.data().references(), activity);
            // The particle array in one call, as OpenVDB's createPointIndexGrid takes it: grouped by
            // block (a radix sort, timed), then each block's particles a chunk at a time.
            int[][] blocksOf = {bi, bj, bk};
            int[] ids = new int[bi.length];
            java.util.Arrays.setAll(ids, p -> p);
            Trials.Timed<SNodeRuntime> bulk = context.trials().time("W6 " + name + " bulk append", () -> {
                empty(particles);
                return particles;
            }, rt -> Bulk.appendAll(rt, "particle", blocksOf, ids));
            ListTotal sum = visit();
            Result bulkRow = Row.of(Workload.W6, this, 1, "bulk append (Bulk.appendAll of the particle array)",
                            bulk, voxel.length)
                    .checksums(sum.n, (double) sum.ids, sum.nonEmpty)
                    .note("layout " + Layouts.PARTICLES + "; grouping by block included")
                    .check(context.data().references(), activity);
            return List.of(perParticle, bulkRow);
        }
        empty(particles);
        for (int p = 0; p < bi.length; p++) {
            lists.appendParticle(bi[p], bj[p], bk[p], p);
        }
        SNode listNode = particles.layout().snode(3);
        PlacedField particle = particles.layout().field("particle");
        ListSum[] blocks = new ListSum[1];
        Trials.Timed<SNodeRuntime> blockForm = context.trials().time("W6v " + name + " reduceBlocks", () -> particles,
                rt -> blocks[0] = rt.reduceBlocks(listNode, () -> new ListSum(particle), ListSum::accumulate,
                        ListSum::merge));
        Result blockRow = Row.of(Workload.W6V, this, 1, "block form (reduceBlocks over the lists' chunks)",
                        blockForm, blocks[0].n())
                .checksums(blocks[0].n(), (double) blocks[0].ids(), blocks[0].nonEmpty())
                .note("layout " + Layouts.PARTICLES)
                .check(context.data().references(), activity);
        Result perElement = perElement(context, "visit", "struct-for per element + caching accessor",
                () -> particles.forEachPerTask(listNode, () -> new ListVisit(particles.accessor(Lists.class))));
        Result perElementView = perElement(context, "visit, view", "struct-for per element + view (accessor primed per block)",
                () -> particles.forEachPerTask(listNode, Lists.class, ListView::new));
        Result perElementRead = perElement(context, "visit, visited element",
                "struct-for per element + view, read of the visited element (particle())",
                () -> particles.forEachPerTask(listNode, VisitedParticle.class, ListRead::new));
        // The same visit over the lists as the bulk append leaves them (as OpenVDB's visit runs
        // over the index lists its bulk build made): each list's chunks filled one after another.
        empty(particles);
        int[] ids = new int[bi.length];
        java.util.Arrays.setAll(ids, p -> p);
        Bulk.appendAll(particles, "particle", new int[][] {bi, bj, bk}, ids);
        ListSum[] bulkBuilt = new ListSum[1];
        Trials.Timed<SNodeRuntime> afterBulk = context.trials().time("W6v " + name + " reduceBlocks after the bulk append",
                () -> particles, rt -> bulkBuilt[0] = rt.reduceBlocks(listNode, () -> new ListSum(particle),
                        ListSum::accumulate, ListSum::merge));
        Result bulkRow = Row.of(Workload.W6V, this, 1, "block form over the lists of the bulk append",
                        afterBulk, bulkBuilt[0].n())
                .checksums(bulkBuilt[0].n(), (double) bulkBuilt[0].ids(), bulkBuilt[0].nonEmpty())
                .note("layout " + Layouts.PARTICLES + "; the lists built by Bulk.appendAll, not by one call per particle")
                .check(context.data().references(), activity);
        return List.of(blockRow, perElement, perElementView, perElementRead, bulkRow);
    }

    /** One W6v per-element row: times {@code launch} (a per-task launch over the lists) with the totals of its tasks' kernels. */
    private Result perElement(Context context, String timer, String way,
                              java.util.function.Supplier<List<? extends ListTotal>> launch) {
        ListTotal[] total = new ListTotal[1];
        Trials.Timed<SNodeRuntime> timed = context.trials().time("W6v " + name + " " + timer, () -> particles,
                rt -> total[0] = ListTotal.of(launch.get()));
        return Row.of(Workload.W6V, this, 1, way, timed, total[0].n)
                .checksums(total[0].n, (double) total[0].ids, total[0].nonEmpty)
                .note("layout " + Layouts.PARTICLES)
                .check(context.data().references(), activity);
    }

    /** Closes the runtimes this contender compiled. */
    @Override
    public void close() {
        if (runtime != null) {
            runtime.close();
        }
        if (hugePaged != null) {
            hugePaged.close();
        }
        if (releasing != null) {
            releasing.close();
        }
        if (hugeReleasing != null) {
            hugeReleasing.close();
        }
        if (particles != null) {
            particles.close();
        }
    }

    /** The totals of every list's elements, visited per element through the task's accessor (untimed checks of W6). */
    private ListTotal visit() {
        return ListTotal.of(particles.forEachPerTask(particles.layout().snode(3),
                () -> new ListVisit(particles.accessor(Lists.class))));
    }

    /** What a W6v per-element kernel gathers over the elements its task visits: their count, the sum of the ids, the lists. */
    static class ListTotal {
        long n;
        long ids;
        long nonEmpty;

        /** The totals of {@code parts} (the tasks' kernels) together. */
        static ListTotal of(List<? extends ListTotal> parts) {
            ListTotal sum = new ListTotal();
            for (ListTotal part : parts) {
                sum.n += part.n;
                sum.ids += part.ids;
                sum.nonEmpty += part.nonEmpty;
            }
            return sum;
        }

        /** Counts element {@code l} holding {@code id}; a list's first element counts the list. */
        final void add(int id, int l) {
            ids += id;
            n++;
            if (l == 0) {
                nonEmpty++;
            }
        }
    }

    /** W6v's kernel: per element of every list, read through the task's accessor. */
    static final class ListVisit extends ListTotal implements Kernel4 {
        private final Lists lists;

        ListVisit(Lists lists) {
            this.lists = lists;
        }

        @Override
        public void apply(int i, int j, int k, int l) {
            add(lists.particle(i, j, k, l), l);
        }
    }

    /** A view's read of the list element being visited, without coordinates. */
    public interface VisitedParticle {
        int particle();
    }

    /** W6v's kernel reading the visited element through its view. */
    static final class ListRead extends ListTotal implements ViewKernel4<VisitedParticle> {
        @Override
        public void apply(VisitedParticle view, int i, int j, int k, int l) {
            add(view.particle(), l);
        }
    }

    /** W6v's kernel with a view: per element of every list, read through the view the driver hands it. */
    static final class ListView extends ListTotal implements ViewKernel4<Lists> {
        @Override
        public void apply(Lists view, int i, int j, int k, int l) {
            add(view.particle(i, j, k, l), l);
        }
    }
}
