package io.snode.bench.soak;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.interop.BulkAppendException;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.ViewKernel2;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.gc.ParallelCollector;
import io.snode.gc.PhaseLock;
import io.snode.runtime.Collector;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.HashTableMetric;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.memory.ChunkGeometry;
import io.snode.runtime.internal.memory.IndexListDescriptor;
import io.snode.runtime.NodeManagerMetric;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A soak test of one {@link SNodeRuntime}: worker threads activate, write, add, read, append and
 * deactivate (cell by cell, in bulk and by region), and collect, for a given time, while every
 * result is compared with a model of the calls that returned normally. What the soak promises to
 * find: a returned write, add or append that is lost, a value that appears from nowhere, an index
 * handed out twice, a refused call that changed something, memory that is not reused (footprint
 * above the bound below), cells leaked.
 *
 * <h2>Layout and ownership</h2>
 * {@value #LAYOUT_TEXT}: field {@code n} on a 512 x 512 grid below two pointer levels and a
 * bitmasked level, and one dynamic list of {@code p} (capacity {@value #LIST_CAPACITY}, chunks of
 * 64) per upper pointer cell. The 8 x 8 upper cells are split in two halves:
 * <ul>
 *   <li><b>shared</b> (upper row below 4): every thread writes below them, so their activation is
 *       contended. Below rows 0 and 1, each middle pointer cell, with everything below it,
 *       belongs to one thread (middle cell number modulo the thread count). Below rows 2 and 3
 *       lie the <em>counters</em>: every thread adds 1 to random leaves there, and each leaf must
 *       end up with the number of adds that returned normally (with a memory cap this is where
 *       a refused activation races writers below the same upper cell). The lists of shared upper
 *       cells are appended to by every thread. Shared upper cells are deactivated only at
 *       checkpoints, when no worker runs.</li>
 *   <li><b>owned</b> (upper row 4 and up): each belongs, with its list, to one thread, which
 *       also deactivates it.</li>
 * </ul>
 * Because every leaf and every owned list has one writer, the model of a leaf or an owned list is
 * exact, and a worker checks each result at once: an add returns the model's value, a read reads
 * it, an append to an owned list returns the model's length and is refused exactly when the model
 * is full. Appends to shared lists are checked at checkpoints: each returned index appears once,
 * holds its value, and the lengths equal the number of appends that returned normally.
 *
 * <p>With {@link Config#hash} the layout is {@value #HASH_LAYOUT_TEXT}: the same cells, with
 * hash tables where the pointer nodes had their containers. After every checkpoint's collection
 * no retired table may be left and the tables in use keep their load bound; at the end no table
 * may be held. With {@link Config#threeD} the layout is {@value #LAYOUT_TEXT_3D} (or its hash
 * form): the same cells at k = 0, so that the bulk list writes take the three-coordinate path.
 *
 * <h2>Bulk and region operations</h2>
 * Beside the per-cell calls, a worker makes the bulk calls of {@link Bulk} and region
 * deactivations on what it owns, and reads each result back at once: a list write
 * ({@code writeCells}, sorted or not, some cells listed twice, now and then thousands of cells)
 * must leave exactly a prefix of its list written (the whole list when it returned normally),
 * which the model then takes; a box write must leave the leaves' containers (4 x 4 blocks) in
 * row-major order written whole up to the one refused and untouched from there; a
 * {@code deactivateBox} of the bitmasked, middle or upper SNode zeroes its box in the model (and,
 * where the box covers an owned upper cell whole, empties that cell's list); a bulk append to one
 * or to several owned lists must append exactly the elements before the refused one in the call's
 * order, and be refused for a full list exactly where the model is full. Each bulk write takes
 * values that no cell it lists holds yet ({@code base + n} for element {@code n}), so that a
 * value read back names the element that wrote it.
 *
 * <h2>Writing launches</h2>
 * Between batches a worker now and then runs a struct-for launch that writes, while the other
 * workers go on: its kernels visit the active cells (or containers) of every worker and change
 * only this worker's, tripling every owned leaf's value (through the bound interface, a view's
 * methods without coordinates, or the block form's memory) or deactivating some owned bitmasked
 * cells from the kernel (the runtime then collects after the launch). Half of the tripling
 * launches are followed by a few writes and another such launch, which must visit what those
 * writes activated (see {@link Worker#launch()}).
 *
 * <h2>Threads and phases</h2>
 * Workers run batches of {@value #BATCH} operations, each batch inside a launch of the runtime's
 * {@link PhaseLock}, and call {@link SNodeRuntime#gc()} between batches now and then (and a
 * read-only launch, {@code count("n")}); the calling thread is the coordinator. Every check
 * interval the coordinator pauses the workers at a {@link Phaser} (a worker waiting in
 * {@code gc()} gets in once the others have stopped), compares the whole model with the runtime,
 * deactivates the shared upper cells (their activation is contended again afterwards), collects,
 * and checks the footprint. Every 100 ms it pauses them for a counter reset: the counters and
 * the lists of their upper cells are compared, and those upper cells deactivated. Between pauses
 * it samples the memory statistics inside a launch. At the end it deactivates everything,
 * collects, and checks that no cell stays in use.
 *
 * <h2>Footprint bound</h2>
 * For each node manager (per pointer or dynamic SNode, and a dynamic SNode's directory blocks),
 * <em>live</em> cells are those the allocator cannot hand out without a collection: in use, held
 * by a thread cache, or deactivated and waiting for the next collection (their memory is kept
 * until then by design). Live cells grow between collections and peak when one starts, so the
 * soak's collector records them first, while nothing else runs on the runtime; the coordinator
 * also samples them every 20 ms, for its progress lines. (A sample a worker took before calling
 * gc() missed what other workers activated until the collection got the phase lock, and made the
 * bound too tight under load.) Bytes reserved must stay within
 * {@code peakLive * (cellStride + 8)} (a cell and its entries in the free and recycled lists) plus
 * the largest chunk each of the manager's three lists holds, plus the fixed memory (root cell,
 * ambient cells): the data list grows only when no free cell is left, so more than that means
 * freed memory was not reused. After each checkpoint's collection no cell may wait for
 * collection any more.
 *
 * <p>With a memory cap, activations and appends may be refused with
 * {@link MemoryCapExceededException}; the model then stays as it was, and so must the runtime.
 * With {@link Config#faultEvery} the runtime's allocator fails about one request in that many
 * while the workers run ({@link SoakAllocator}: an {@link OutOfMemoryError}, on whichever
 * thread asked, the coordinator's included); a call that the fault reaches is held to what a
 * refusal by the cap must leave, and the checkpoints and the final check then find the runtime
 * equal to the model as before. (A fault that no call reports is fine: a hash table's shrink gives
 * up, cells that ended threads cached serve a growth.)
 */
public final class Soak {
    public static final String LAYOUT_TEXT =
            "pointer(ij,8){pointer(ij,4).bitmasked(ij,4).dense(ij,4).place(i32 n); dynamic(k,4096,64).place(i32 p)}";
    /**
     * The layout with hash nodes in place of both pointer levels ({@link Config#hash}): the same
     * cells, the upper level one hash table that every thread inserts into, the middle level a
     * table per upper cell, shared below the shared upper cells.
     */
    public static final String HASH_LAYOUT_TEXT =
            "hash(ij,8){hash(ij,4).bitmasked(ij,4).dense(ij,4).place(i32 n); dynamic(k,4096,64).place(i32 p)}";
    /**
     * The layout on three coordinates ({@link Config#threeD}): the same cells at k = 0, every
     * level one cell deep along k, so that the bulk list writes take the three-coordinate path of
     * the reference workloads (their offsets resolved in one pass and stored in another, mask
     * bits of forgotten containers held until their values are stored).
     */
    public static final String LAYOUT_TEXT_3D = "pointer(ijk,[8,8,1]){pointer(ijk,[4,4,1]).bitmasked(ijk,[4,4,1])"
            + ".dense(ijk,[4,4,1]).place(i32 n); dynamic(l,4096,64).place(i32 p)}";

    /** The layout text of {@code config}: {@link #LAYOUT_TEXT}, or with hash nodes, or on three coordinates, or both. */
    static String layoutText(Config config) {
        String text = config.threeD() ? LAYOUT_TEXT_3D : LAYOUT_TEXT;
        return config.hash() ? text.replace("pointer(", "hash(") : text;
    }
    static final int N = 512;
    static final int UPPER = 8;
    static final int MIDDLE = 32;
    static final int LEAVES_PER_UPPER = N / UPPER;
    static final int LEAVES_PER_MIDDLE = N / MIDDLE;
    static final int LEAVES_PER_MASKED = 4;
    static final int MASKED_PER_MIDDLE = LEAVES_PER_MIDDLE / LEAVES_PER_MASKED;
    static final int MIDDLE_PER_UPPER = MIDDLE / UPPER;
    /** Upper cells whose row is below this are shared. */
    static final int SHARED_UPPER_ROWS = 4;
    static final int SHARED_UPPERS = SHARED_UPPER_ROWS * UPPER;
    /** Upper rows from this one up to the shared rows' end hold the counters. */
    static final int COUNTER_UPPER_ROW = 2;
    static final int COUNTER_FIRST_LEAF_ROW = COUNTER_UPPER_ROW * LEAVES_PER_UPPER;
    static final int COUNTERS = (SHARED_UPPER_ROWS - COUNTER_UPPER_ROW) * LEAVES_PER_UPPER * N;
    static final int LIST_CAPACITY = 4096;
    static final int BATCH = 64;
    /** A worker collects after one batch in this many, on average. */
    static final int GC_EVERY_BATCHES = 32;
    /** A worker runs a read-only launch after one batch in this many, on average. */
    static final int COUNT_EVERY_BATCHES = 256;
    /** A worker runs a writing launch ({@link Worker#launch}) after one batch in this many, on average. */
    static final int LAUNCH_EVERY_BATCHES = 256;
    static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Time between counter resets (see {@link #checkpoint}). */
    static final long COUNTER_RESET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Bytes per cell in the free and recycled lists together. */
    static final long INDEX_BYTES_PER_CELL = 2 * IndexListDescriptor.ELEMENT_SIZE;
    public static final int MAX_THREADS = 64;

    /** The generated accessors the workers use. */
    public interface Grid {
        int n(int i, int j);

        void n(int i, int j, int value);

        int addN(int i, int j, int delta);

        long appendP(int i, int j, int value);

        int p(int i, int j, int k);
    }

    /** The generated accessors of the layout on three coordinates ({@link #LAYOUT_TEXT_3D}); the soak uses k = 0. */
    public interface Grid3 {
        int n(int i, int j, int k);

        void n(int i, int j, int k, int value);

        int addN(int i, int j, int k, int delta);

        long appendP(int i, int j, int k, int value);

        int p(int i, int j, int k, int l);
    }

    /** What a writing launch's view kernel reads and writes: the visited leaf's {@code n}. */
    public interface View {
        int n();

        void n(int value);
    }

    /** {@link Grid} over a {@link Grid3}, at k = 0. */
    private record AtKZero(Grid3 grid) implements Grid {
        @Override
        public int n(int i, int j) {
            return grid.n(i, j, 0);
        }

        @Override
        public void n(int i, int j, int value) {
            grid.n(i, j, 0, value);
        }

        @Override
        public int addN(int i, int j, int delta) {
            return grid.addN(i, j, 0, delta);
        }

        @Override
        public long appendP(int i, int j, int value) {
            return grid.appendP(i, j, 0, value);
        }

        @Override
        public int p(int i, int j, int k) {
            return grid.p(i, j, 0, k);
        }
    }

    /** Coordinates (i, j) of a cell, a box corner or a list in the layout's index spaces: (i, j, 0) on three coordinates. */
    private int[] cell(int i, int j) {
        return config.threeD() ? new int[] {i, j, 0} : new int[] {i, j};
    }

    /** The high corner of a box whose cells have coordinates (i, j) below (i1, j1): (i1, j1, 1) on three coordinates. */
    private int[] high(int i1, int j1) {
        return config.threeD() ? new int[] {i1, j1, 1} : new int[] {i1, j1};
    }

    /**
     * @param durationNanos how long the workers run, positive
     * @param threads       worker threads, 1 to {@value #MAX_THREADS}
     * @param capBytes      the runtime's memory cap; 0 for the default cap
     * @param checkNanos    time between checkpoints
     * @param reportNanos   time between progress lines (printed at the next checkpoint)
     * @param hugePages     whether the runtime's regions are on huge pages ({@code RuntimeOptions.withHugePages})
     * @param hash          whether the layout has hash nodes in place of its pointer nodes ({@link #HASH_LAYOUT_TEXT})
     * @param threeD        whether the layout has three coordinates ({@link #LAYOUT_TEXT_3D})
     * @param faultEvery    0 for no injected faults; else about one allocator request in this many
     *                      fails while the workers run ({@link SoakAllocator}), and the call that
     *                      made it must change nothing (a bulk call: its contract's prefix)
     */
    public record Config(long durationNanos, int threads, long seed, long capBytes, long checkNanos,
                         long reportNanos, boolean hugePages, boolean hash, boolean threeD, long faultEvery) {
        /** A configuration on base pages. */
        public Config(long durationNanos, int threads, long seed, long capBytes, long checkNanos, long reportNanos) {
            this(durationNanos, threads, seed, capBytes, checkNanos, reportNanos, false, false, false, 0);
        }

        /** A configuration without injected faults. */
        public Config(long durationNanos, int threads, long seed, long capBytes, long checkNanos, long reportNanos,
                      boolean hugePages, boolean hash, boolean threeD) {
            this(durationNanos, threads, seed, capBytes, checkNanos, reportNanos, hugePages, hash, threeD, 0);
        }

        /** This configuration with {@code faultEvery}. */
        public Config withFaultEvery(long every) {
            return new Config(durationNanos, threads, seed, capBytes, checkNanos, reportNanos, hugePages, hash, threeD,
                    every);
        }

        public Config {
            if (durationNanos <= 0) {
                throw new IllegalArgumentException("durationNanos=" + durationNanos + " must be positive");
            }
            if (threads < 1 || threads > MAX_THREADS) {
                throw new IllegalArgumentException("threads=" + threads + " must be in [1, " + MAX_THREADS + "]");
            }
            if (capBytes < 0) {
                throw new IllegalArgumentException("capBytes=" + capBytes + " must be 0 (default cap) or positive");
            }
            if (faultEvery < 0) {
                throw new IllegalArgumentException("faultEvery=" + faultEvery + " must be 0 (no faults) or positive");
            }
            if (checkNanos <= 0 || reportNanos <= 0) {
                throw new IllegalArgumentException("checkNanos=" + checkNanos + " and reportNanos=" + reportNanos
                        + " must be positive");
            }
        }
    }

    /**
     * What a soak found. {@link #passed()} when the model agreed everywhere, the footprint stayed
     * within its bound, and nothing was left in use at the end.
     *
     * @param failure          the first disagreement or unexpected exception, or null
     * @param launches         the writing struct-for launches the workers ran ({@code Worker.launch})
     * @param footprintPeak    the most bytes reserved seen at a checkpoint
     * @param boundAtPeak      the footprint bound at that checkpoint
     * @param refusedByFault   calls that an injected allocator fault refused ({@link Config#faultEvery})
     * @param faultsInjected   allocator requests that failed; some refuse no call (a hash table's shrink
     *                         is given up, cells that ended threads cached serve a refused growth)
     * @param maxGcWaitNanos   the longest a worker's {@code gc()} call took (waiting included)
     */
    public record Result(String failure, long operations, double seconds, int checkpoints, int counterResets,
                         long collections,
                         long launches, long refusedByCap, long refusedFull, long refusedByFault, long faultsInjected,
                         long footprintPeak, long boundAtPeak, long maxGcWaitNanos) {
        public boolean passed() {
            return failure == null;
        }

        public double operationsPerSecond() {
            return operations / Math.max(1e-9, seconds);
        }
    }

    /** A progress line: time, ops/s since the last line, bytes reserved, bound, live peak, collections, longest gc(), refusals. */
    private static final String ROW = "%6.1f s  %11s  %10s  %10s  %10s  %6d  %8.1f ms  %s";
    private static final String HEADER = "%8s  %11s  %10s  %10s  %10s  %6s  %11s  %s";

    private final Config config;
    private final PrintWriter out;
    private final String layoutText;
    private final Layout layout;
    private final SNode upper;
    private final SNode middle;
    private final SNode masked;
    /** The leaves' SNode (the dense node of field {@code n}). */
    private final SNode leaf;
    private final PlacedField nField;
    private final SNode list;
    /**
     * The model of every leaf outside the counters; entry (i, j) is written only by its owner, or
     * by the coordinator at checkpoints.
     */
    private final int[] leaves = new int[N * N];
    /** The model of the owned lists, by upper cell number; written only by their owners or at checkpoints. */
    private final int[][] listValues = new int[UPPER * UPPER][];
    private final int[] listLengths = new int[UPPER * UPPER];
    /** Peak live cells per node manager; updated at checkpoints, by the coordinator's samples and when every collection starts. */
    private final Map<String, Long> peakLive = new ConcurrentHashMap<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final CountDownLatch failed = new CountDownLatch(1);
    private SNodeRuntime runtime;
    private SparseRuntime generic;
    private Grid grid;
    private volatile boolean pause;
    private volatile boolean stop;
    private long footprintPeak;
    private long boundAtPeak;
    /** The footprint bound at the latest checkpoint. */
    private long lastBound;
    private long coordinatorCollections;
    /** The runtime's allocator, injecting faults ({@link Config#faultEvery}). */
    private SoakAllocator allocator;

    /** Counted down when the coordinator has decided to stop (the last checkpoint begins, or a failure). */
    private final CountDownLatch stopping = new CountDownLatch(1);
    /** A test seam: run by worker 0 once, when the first checkpoint releases it. */
    private Runnable firstResume = () -> { };

    /** A test seam: run on the generic path before the first full checkpoint's comparison. */
    private java.util.function.Consumer<SparseRuntime> tamper = runtime -> { };
    /** A test seam: shown the memory statistics at the start of every collection. */
    private java.util.function.Consumer<MemoryStats> collectionStart = stats -> { };

    public Soak(Config config, PrintWriter out) {
        this.config = config;
        this.out = out;
        this.layoutText = layoutText(config);
        this.layout = Layout.parse(layoutText);
        this.upper = layout.snode(1);
        this.middle = layout.snode(2);
        this.masked = layout.snode(3);
        this.nField = layout.field("n");
        this.leaf = nField.snode();
        this.list = layout.field("p").snode();
    }

    /**
     * For tests of the checker itself: {@code change} runs once, while the workers are parked,
     * right before the first full checkpoint compares the model (a change behind the model's back
     * must be reported).
     */
    Soak tamperBeforeFirstCheckpoint(java.util.function.Consumer<SparseRuntime> change) {
        this.tamper = change;
        return this;
    }

    /**
     * For tests of the checkpoint protocol: {@code hook} runs once on worker 0, right after the
     * first checkpoint released it and before it decides whether to stop.
     */
    Soak onFirstResume(Runnable hook) {
        this.firstResume = hook;
        return this;
    }

    /**
     * For tests of the footprint bound: {@code observer} sees the memory statistics when each
     * collection starts (nothing else runs on the runtime then), before the soak records them.
     */
    Soak onCollectionStart(java.util.function.Consumer<MemoryStats> observer) {
        this.collectionStart = observer;
        return this;
    }

    /** The peak of live cells recorded for a node manager ({@code path}, or {@code path + " directory"}). */
    long peakLive(String key) {
        return peakLive.getOrDefault(key, 0L);
    }

    /** Waits until the coordinator has decided to stop; whether it did within {@code seconds}. */
    boolean awaitStopping(long seconds) throws InterruptedException {
        return stopping.await(seconds, TimeUnit.SECONDS);
    }

    /** Thrown by {@link #run} when the memory cap refuses the layout's compilation itself, before any thread ran. */
    public static final class CapTooSmallException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        CapTooSmallException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Runs the soak; progress lines and the verdict go to {@code out}. */
    public Result run() {
        ParallelCollector collector = ParallelCollector.builder().build();
        Collector observed = managers -> {
            MemoryStats atStart = generic.memoryStats(); // exact: nothing else runs on the runtime now
            collectionStart.accept(atStart);
            updatePeaks(atStart);
            collector.collect(managers);
        };
        RuntimeOptions options = RuntimeOptions.DEFAULT.withCollector(observed).withHugePages(config.hugePages());
        if (config.capBytes() > 0) {
            options = options.withMemoryCap(config.capBytes());
        }
        allocator = new SoakAllocator(options.allocator(), config.faultEvery(), config.seed());
        options = options.withAllocator(allocator);
        SNodeRuntime compiledOrNot;
        try {
            compiledOrNot = SNodeRuntime.compile(layout, options);
        } catch (MemoryCapExceededException e) {
            collector.close();
            throw new CapTooSmallException("compiling the soak's layout needs " + (e.bytesHeld() + e.bytesRequested())
                    + " B or more, over the cap of " + e.capBytes() + " B", e);
        }
        try (SNodeRuntime compiled = compiledOrNot) {
            runtime = compiled;
            generic = compiled.generic();
            grid = config.threeD() ? new AtKZero(compiled.bind(Grid3.class)) : compiled.bind(Grid.class);
            return runCompiled();
        } finally {
            collector.close();
        }
    }

    private Result runCompiled() {
        for (int u = 0; u < listValues.length; u++) {
            if (!isShared(u)) {
                listValues[u] = new int[LIST_CAPACITY];
            }
        }
        int threads = config.threads();
        out.printf(Locale.ROOT, "snode soak: %d thread%s for %.1f s, seed %d, memory cap %s%s%n", threads,
                threads == 1 ? "" : "s", config.durationNanos() / 1e9, config.seed(),
                config.capBytes() > 0 ? mib(config.capBytes()) : "default (" + mib(generic.memoryStats().pool().capBytes()) + ")",
                config.hugePages() ? ", regions on huge pages" : "");
        if (faults()) {
            out.printf(Locale.ROOT, "injected allocator faults: about one request in %d fails (an OutOfMemoryError)%n",
                    config.faultEvery());
        }
        out.println("layout " + layoutText);
        out.println(String.format(Locale.ROOT, HEADER, "time", "ops/s", "footprint", "bound", "live peak", "gc",
                "gc() max", faults() ? "refused cap/full/fault" : "refused cap/full"));
        out.flush();
        Phaser phaser = new Phaser(1 + threads);
        List<Worker> workers = new ArrayList<>();
        // One generator per worker split from one seeded root, in worker order: independent
        // streams. (Until 12-07 worker t used new SplittableRandom(seed * GOLDEN + t), and since
        // SplittableRandom's k-th value of seed x is a function of x + k * GOLDEN, seed s + 1
        // repeated seed s's operations shifted by one: neighbouring seeds ran the same soak.)
        SplittableRandom seeds = new SplittableRandom(config.seed());
        for (int t = 0; t < threads; t++) {
            workers.add(new Worker(t, phaser, seeds.split()));
        }
        long start = System.nanoTime();
        allocator.arm(true);
        for (Worker worker : workers) {
            worker.thread.start();
        }
        long deadline = start + config.durationNanos();
        long nextCheck = start + Math.min(config.checkNanos(), config.durationNanos());
        long nextCounterReset = start + COUNTER_RESET_NANOS;
        long nextReport = start + config.reportNanos();
        long lastReportOps = 0;
        long lastReportTime = start;
        int checkpoints = 0;
        int counterResets = 0;
        long runNanos;
        try {
            while (true) {
                long now = System.nanoTime();
                if (failure.get() != null) {
                    break;
                }
                if (now >= nextCheck || now >= deadline || now >= nextCounterReset) {
                    boolean last = now >= deadline;
                    boolean full = last || now >= nextCheck;
                    if (last) {
                        stop = true;
                        stopping.countDown();
                    }
                    pause = true;
                    if (phaser.arriveAndAwaitAdvance() < 0) {
                        break;
                    }
                    long paused = System.nanoTime();
                    checkpoint(workers, full);
                    if (full) {
                        checkpoints++;
                    } else {
                        counterResets++;
                    }
                    if (full && (paused >= nextReport || last)) {
                        long ops = operations(workers);
                        report(paused - start, (ops - lastReportOps) / ((paused - lastReportTime) / 1e9), workers);
                        lastReportOps = ops;
                        lastReportTime = paused;
                        nextReport = paused + config.reportNanos();
                    }
                    pause = false;
                    phaser.arriveAndAwaitAdvance();
                    if (last) {
                        break;
                    }
                    long resumed = System.nanoTime();
                    if (full) {
                        nextCheck = resumed + config.checkNanos();
                    }
                    nextCounterReset = resumed + COUNTER_RESET_NANOS;
                } else {
                    sample();
                    long next = Math.min(nextCounterReset, Math.min(nextCheck, deadline));
                    failed.await(Math.min(SAMPLE_NANOS, next - now), TimeUnit.NANOSECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("the coordinator was interrupted");
        } catch (RuntimeException | Error e) { // an Error too: an injected fault that no call took
            fail("checkpoint: " + e);
        } finally {
            stop = true;
            stopping.countDown();
            pause = true;
            phaser.forceTermination();
        }
        runNanos = System.nanoTime() - start;
        for (Worker worker : workers) {
            try {
                worker.thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker.thread.isAlive()) {
                fail("worker " + worker.id + " did not stop within 60 s after the end");
            }
        }
        allocator.arm(false); // the final check deactivates everything and must find it all
        if (failure.get() == null) {
            finalCheck();
        }
        Result result = new Result(failure.get(), operations(workers), runNanos / 1e9, checkpoints, counterResets,
                collections(workers), workers.stream().mapToLong(w -> w.launches).sum(),
                workers.stream().mapToLong(w -> w.refusedByCap).sum(),
                workers.stream().mapToLong(w -> w.refusedFull).sum(), workers.stream().mapToLong(w -> w.refusedByFault).sum(),
                allocator.faults(), footprintPeak, boundAtPeak,
                workers.stream().mapToLong(w -> w.maxGcNanos).max().orElse(0));
        verdict(result);
        return result;
    }

    // ------------------------------------------------------------------ coordinator

    /**
     * Workers are parked. A full checkpoint compares the whole model with the runtime, deactivates
     * every shared upper cell, collects and checks the footprint; a counter reset compares the
     * counters and the lists of their upper cells, and deactivates those upper cells only (so that
     * their activation is contended again soon).
     */
    private void checkpoint(List<Worker> workers, boolean full) {
        if (full) {
            tamper.accept(generic);
            tamper = runtime -> { };
        }
        verifyCounters(workers);
        if (full) {
            verifyLeaves();
        }
        for (int u = 0; u < UPPER * UPPER && failure.get() == null; u++) {
            if (isCounterUpper(u)) {
                checkSharedList(u, workers);
            } else if (full) {
                if (isShared(u)) {
                    checkSharedList(u, workers);
                } else {
                    checkOwnedList(u);
                }
            }
        }
        updatePeaks(generic.memoryStats());
        for (int u = 0; u < SHARED_UPPERS; u++) {
            if (full || isCounterUpper(u)) {
                generic.deactivate(upper, cell(u / UPPER, u % UPPER));
                for (Worker worker : workers) {
                    worker.sharedCounts[u] = 0;
                }
            }
        }
        if (full) {
            Arrays.fill(leaves, 0, SHARED_UPPER_ROWS * LEAVES_PER_UPPER * N, 0);
        }
        for (Worker worker : workers) {
            Arrays.fill(worker.counterAdds, 0);
        }
        if (!full) {
            return;
        }
        runtime.gc();
        coordinatorCollections++;
        MemoryStats collected = generic.memoryStats();
        for (MemoryStats.SNodeStats node : collected.snodes()) {
            long waiting = node.cells().cellsRecycled()
                    + (node.directories() == null ? 0 : node.directories().cellsRecycled());
            if (waiting != 0) {
                fail("checkpoint: after gc() " + node.snode().path() + " still has " + waiting
                        + " cells waiting for collection");
            }
            checkTables("checkpoint", node);
        }
        checkFootprint(collected);
    }

    /** Each counter holds the number of adds of 1 to it that returned normally. */
    private void verifyCounters(List<Worker> workers) {
        int[] counters = new int[COUNTERS];
        for (Worker worker : workers) {
            for (int c = 0; c < COUNTERS; c++) {
                counters[c] += worker.counterAdds[c];
            }
        }
        for (int c = 0; c < COUNTERS; c++) {
            int i = COUNTER_FIRST_LEAF_ROW + c / N;
            int j = c % N;
            int actual = grid.n(i, j);
            if (actual != counters[c]) {
                fail(String.format(Locale.ROOT, "checkpoint: counter n(%d,%d) reads %d, but %d adds of 1 returned"
                        + " normally", i, j, actual, counters[c]));
                return;
            }
        }
    }

    /** Every leaf outside the counters holds what the calls that returned normally left. */
    private void verifyLeaves() {
        for (int i = 0; i < N; i++) {
            if (i >= COUNTER_FIRST_LEAF_ROW && i < SHARED_UPPER_ROWS * LEAVES_PER_UPPER) {
                continue;
            }
            for (int j = 0; j < N; j++) {
                int actual = grid.n(i, j);
                if (actual != leaves[i * N + j]) {
                    fail(String.format(Locale.ROOT, "checkpoint: n(%d,%d) reads %d, but the calls that returned"
                            + " normally left %d", i, j, actual, leaves[i * N + j]));
                    return;
                }
            }
        }
    }

    private void checkOwnedList(int u) {
        int ui = u / UPPER;
        int uj = u % UPPER;
        long length = generic.length(list, cell(ui, uj));
        if (length != listLengths[u]) {
            fail("checkpoint: owned list (" + ui + "," + uj + ") has length " + length + ", but " + listLengths[u]
                    + " appends returned normally since it was last emptied");
            return;
        }
        for (int k = 0; k < length; k++) {
            int actual = grid.p(ui, uj, k);
            if (actual != listValues[u][k]) {
                fail("checkpoint: p(" + ui + "," + uj + "," + k + ") reads " + actual + ", but its append stored "
                        + listValues[u][k]);
                return;
            }
        }
    }

    private void checkSharedList(int u, List<Worker> workers) {
        int ui = u / UPPER;
        int uj = u % UPPER;
        int length = (int) generic.length(list, cell(ui, uj));
        boolean[] seen = new boolean[length];
        int returned = 0;
        for (Worker worker : workers) {
            int count = worker.sharedCounts[u];
            for (int n = 0; n < count; n++) {
                int index = worker.sharedIndices[u][n];
                int value = worker.sharedValues[u][n];
                if (index >= length) {
                    fail("checkpoint: shared list (" + ui + "," + uj + ") has length " + length + ", but an append"
                            + " returned index " + index);
                    return;
                }
                if (seen[index]) {
                    fail("checkpoint: shared list (" + ui + "," + uj + "): index " + index + " was returned by two"
                            + " appends");
                    return;
                }
                seen[index] = true;
                int actual = grid.p(ui, uj, index);
                if (actual != value) {
                    fail("checkpoint: p(" + ui + "," + uj + "," + index + ") reads " + actual + ", but its append"
                            + " stored " + value);
                    return;
                }
                returned++;
            }
        }
        if (returned != length) {
            fail("checkpoint: shared list (" + ui + "," + uj + ") has length " + length + ", but " + returned
                    + " appends returned normally");
        }
    }

    /** Between checkpoints, inside a launch (so never during a collection): racy, for the peaks. */
    private void sample() {
        try (PhaseLock.Launch launch = runtime.phaseLock().enterLaunch()) {
            updatePeaks(generic.memoryStats());
        }
    }

    private void updatePeaks(MemoryStats stats) {
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            peak(node.snode().path(), node.cells());
            if (node.directories() != null) {
                peak(node.snode().path() + " directory", node.directories());
            }
        }
    }

    private void peak(String key, NodeManagerMetric metrics) {
        long live = metrics.cellsInUse() + metrics.cellsCached() + metrics.cellsRecycled();
        peakLive.merge(key, live, Math::max);
    }

    /** Quiescent: bytes reserved against the bound, per node manager and in total. */
    private void checkFootprint(MemoryStats stats) {
        updatePeaks(stats);
        long managed = 0;
        long bound = 0;
        String worst = null;
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            String path = node.snode().path();
            for (int part = 0; part < 2; part++) {
                NodeManagerMetric metrics = part == 0 ? node.cells() : node.directories();
                if (metrics == null) {
                    continue;
                }
                String key = part == 0 ? path : path + " directory";
                long own = bound(metrics, peakLive.getOrDefault(key, 0L));
                managed += metrics.bytesReserved();
                bound += own;
                if (metrics.bytesReserved() > own && worst == null) {
                    worst = key + " holds " + metrics.bytesReserved() + " B for a peak of "
                            + peakLive.getOrDefault(key, 0L) + " live cells (bound " + own + " B)";
                }
            }
        }
        long footprint = stats.bytesReserved();
        bound += footprint - managed; // root cell and ambient cells: fixed
        if (footprint >= footprintPeak) {
            footprintPeak = footprint;
            boundAtPeak = bound;
        }
        lastBound = bound;
        if (worst != null) {
            fail("footprint: " + worst + "; memory is not reused (total " + footprint + " B, bound " + bound + " B)");
        }
    }

    /** The bound of one node manager: see the class comment. */
    static long bound(NodeManagerMetric metrics, long peakLiveCells) {
        long stride = metrics.cellStride();
        long allocated = metrics.cellsAllocated();
        return peakLiveCells * (stride + INDEX_BYTES_PER_CELL)
                + largestHeldChunkBytes(ChunkGeometry.of(stride, 1), allocated)
                + 2 * largestHeldChunkBytes(ChunkGeometry.of(IndexListDescriptor.ELEMENT_SIZE,
                IndexListDescriptor.ELEMENT_ALIGNMENT), allocated);
    }

    /** Bytes of the largest chunk a list of that geometry holds for {@code elements} elements. */
    static long largestHeldChunkBytes(ChunkGeometry geometry, long elements) {
        if (elements <= 0) {
            return 0;
        }
        int last = geometry.chunkIndex(elements - 1);
        return (geometry.chunkStart(last + 1) - geometry.chunkStart(last)) * geometry.elementStride();
    }

    /** After the workers stopped: everything deactivated and collected must leave no cell in use. */
    /**
     * A hash SNode's tables after a collection, nothing else running: none retired (the
     * collection freed them), and the tables in use within the load bound (at most half their
     * entries live).
     */
    private void checkTables(String when, MemoryStats.SNodeStats node) {
        HashTableMetric tables = node.tables();
        if (tables == null) {
            return;
        }
        if (tables.retired() != 0) {
            fail(when + ": after gc() " + node.snode().path() + " still has " + tables.retired()
                    + " retired hash tables (" + tables.retiredBytes() + " B) that the collection did not free");
        } else if (tables.load() > 0.5) {
            fail(when + ": " + node.snode().path() + "'s hash tables hold " + tables.liveEntries() + " live entries in "
                    + tables.entries() + ", past the load bound 0.5");
        }
    }

    private void finalCheck() {
        generic.deactivateAll(upper);
        runtime.gc();
        coordinatorCollections++;
        MemoryStats stats = generic.memoryStats();
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            long inUse = node.cells().cellsInUse() + (node.directories() == null ? 0 : node.directories().cellsInUse());
            long recycled = node.cells().cellsRecycled()
                    + (node.directories() == null ? 0 : node.directories().cellsRecycled());
            if (inUse != 0 || recycled != 0) {
                fail("end: after deactivating everything and collecting, " + node.snode().path() + " still has "
                        + inUse + " cells in use and " + recycled + " recycled (leaked)");
                return;
            }
            checkTables("end", node);
            if (node.tables() != null && node.tables().tables() != 0) {
                fail("end: after deactivating everything and collecting, " + node.snode().path() + " still holds "
                        + node.tables().tables() + " hash tables (" + node.tables().bytes() + " B)");
                return;
            }
        }
    }

    private void report(long elapsedNanos, double opsPerSecond, List<Worker> workers) {
        MemoryStats stats = generic.memoryStats();
        long livePeak = 0;
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            livePeak += peakLive.getOrDefault(node.snode().path(), 0L) * node.cells().cellStride();
            if (node.directories() != null) {
                livePeak += peakLive.getOrDefault(node.snode().path() + " directory", 0L)
                        * node.directories().cellStride();
            }
        }
        long maxGc = workers.stream().mapToLong(w -> w.maxGcNanos).max().orElse(0);
        out.println(String.format(Locale.ROOT, ROW, elapsedNanos / 1e9,
                String.format(Locale.ROOT, "%,.0f", opsPerSecond), mib(stats.bytesReserved()), mib(lastBound),
                mib(livePeak), collections(workers), maxGc / 1e6,
                workers.stream().mapToLong(w -> w.refusedByCap).sum() + "/"
                        + workers.stream().mapToLong(w -> w.refusedFull).sum()
                        + (!faults() ? "" : "/" + workers.stream().mapToLong(w -> w.refusedByFault).sum())));
        out.flush();
    }

    private void verdict(Result result) {
        out.printf(Locale.ROOT, "%,d operations in %.1f s (%,.0f ops/s), %d checkpoints and %d counter resets,"
                        + " %d collections, %d writing launches, longest gc() wait %.1f ms, refused: %d by the cap,"
                        + " %d by full lists%n",
                result.operations(), result.seconds(), result.operationsPerSecond(), result.checkpoints(),
                result.counterResets(), result.collections(), result.launches(),
                result.maxGcWaitNanos() / 1e6, result.refusedByCap(), result.refusedFull());
        if (faults()) {
            out.printf(Locale.ROOT, "injected allocator faults: %,d of %,d requests failed; %,d calls refused by them%n",
                    result.faultsInjected(), allocator.requests(), result.refusedByFault());
        }
        out.printf(Locale.ROOT, "footprint: at most %s reserved, bound then %s (live peak plus one largest chunk"
                + " per list)%n", mib(result.footprintPeak()), mib(result.boundAtPeak()));
        if (result.passed()) {
            out.println("PASSED: the model agreed at every checkpoint and at the end; footprint within its bound;"
                    + " nothing left in use");
        } else {
            out.println("FAILED: " + result.failure());
        }
        out.flush();
    }

    private long operations(List<Worker> workers) {
        return workers.stream().mapToLong(w -> w.operations).sum();
    }

    private long collections(List<Worker> workers) {
        return coordinatorCollections + workers.stream().mapToLong(w -> w.collections).sum();
    }

    private void fail(String message) {
        if (failure.compareAndSet(null, message)) {
            failed.countDown();
        }
    }

    static boolean isShared(int upperCell) {
        return upperCell / UPPER < SHARED_UPPER_ROWS;
    }

    static boolean isCounterUpper(int upperCell) {
        return isShared(upperCell) && upperCell / UPPER >= COUNTER_UPPER_ROW;
    }

    /** Whether the allocator injects faults ({@link Config#faultEvery}). */
    private boolean faults() {
        return config.faultEvery() > 0;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / (1024.0 * 1024.0));
    }

    // ------------------------------------------------------------------ workers

    /** Thrown by a worker's live check. */
    private static final class Disagreement extends RuntimeException {
        Disagreement(String message) {
            super(message, null, false, false);
        }
    }

    private final class Worker implements Runnable {
        final int id;
        final Phaser phaser;
        final Thread thread;
        final SplittableRandom random;
        /** Middle cells (number I * 32 + J) this worker owns, below shared and owned upper cells. */
        final int[] middles;
        /** Whether this worker owns middle cell m (number I * 32 + J), for the launches' kernels. */
        final boolean[] ownsMiddle = new boolean[MIDDLE * MIDDLE];
        /** Owned upper cells (number Ui * 8 + Uj). */
        final int[] uppers;
        /** Appends to shared lists that returned normally since the last checkpoint, per upper cell. */
        final int[][] sharedIndices = new int[SHARED_UPPERS][];
        final int[][] sharedValues = new int[SHARED_UPPERS][];
        final int[] sharedCounts = new int[SHARED_UPPERS];
        /** Adds of 1 to each counter that returned normally since the last checkpoint. */
        final int[] counterAdds = new int[COUNTERS];
        // Counters: written by this worker, read by the coordinator while it is parked (or after it ended).
        long operations;
        long refusedByCap;
        long refusedFull;
        long refusedByFault;
        long collections;
        long launches;
        long maxGcNanos;

        private boolean resumedOnce;

        Worker(int id, Phaser phaser, SplittableRandom random) {
            this.id = id;
            this.phaser = phaser;
            this.random = random;
            int threads = config.threads();
            List<Integer> ownMiddles = new ArrayList<>();
            List<Integer> ownUppers = new ArrayList<>();
            for (int u = 0; u < UPPER * UPPER; u++) {
                if (!isShared(u) && (u - SHARED_UPPERS) % threads == id) {
                    ownUppers.add(u);
                }
            }
            for (int m = 0; m < MIDDLE * MIDDLE; m++) {
                int u = (m / MIDDLE / MIDDLE_PER_UPPER) * UPPER + (m % MIDDLE) / MIDDLE_PER_UPPER;
                boolean own = isShared(u) ? !isCounterUpper(u) && m % threads == id : ownUppers.contains(u);
                if (own) {
                    ownMiddles.add(m);
                }
            }
            this.middles = ownMiddles.stream().mapToInt(Integer::intValue).toArray();
            for (int m : middles) {
                ownsMiddle[m] = true;
            }
            this.uppers = ownUppers.stream().mapToInt(Integer::intValue).toArray();
            for (int u = 0; u < SHARED_UPPERS; u++) {
                sharedIndices[u] = new int[64];
                sharedValues[u] = new int[64];
            }
            this.thread = new Thread(this, "snode-soak-" + id);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                PhaseLock phases = runtime.phaseLock();
                while (true) {
                    if (pause) {
                        phaser.arriveAndAwaitAdvance(); // parked for a checkpoint
                        // Whether this checkpoint is the last is read between its two barriers:
                        // the coordinator set it before the first, and may set it again for the
                        // next checkpoint as soon as the second lets it go, before this worker
                        // looks (it would then leave without arriving at that checkpoint).
                        boolean last = stop;
                        int phase = phaser.arriveAndAwaitAdvance();
                        if (id == 0 && !resumedOnce) {
                            resumedOnce = true;
                            firstResume.run();
                        }
                        if (phase < 0 || last) {
                            return;
                        }
                        continue;
                    }
                    boolean collect = random.nextInt(GC_EVERY_BATCHES) == 0;
                    try (PhaseLock.Launch launch = phases.enterLaunch()) {
                        for (int n = 0; n < BATCH; n++) {
                            operation();
                        }
                    }
                    operations += BATCH;
                    if (collect) {
                        long start = System.nanoTime();
                        runtime.gc();
                        maxGcNanos = Math.max(maxGcNanos, System.nanoTime() - start);
                        collections++;
                    }
                    if (random.nextInt(LAUNCH_EVERY_BATCHES) == 0) {
                        launch();
                    }
                    if (random.nextInt(COUNT_EVERY_BATCHES) == 0) {
                        try {
                            runtime.count("n"); // a read-only launch among the direct calls
                        } catch (SoakAllocator.InjectedFault refused) {
                            refusedByFault++; // a launch may need memory for its snapshot
                        }
                    }
                }
            } catch (Disagreement disagreement) {
                fail("worker " + id + ": " + disagreement.getMessage());
                phaser.arriveAndDeregister();
            } catch (Throwable unexpected) {
                fail("worker " + id + ": unexpected " + unexpected);
                phaser.arriveAndDeregister();
            }
        }

        private void operation() {
            int r = random.nextInt(1000);
            try {
                if (r < 250) {
                    set();
                } else if (r < 400) {
                    add();
                } else if (r < 500) {
                    read();
                } else if (r < 600) {
                    count();
                } else if (r < 640) {
                    deactivateMasked();
                } else if (r < 670) {
                    deactivateMiddle();
                } else if (r < 673) {
                    deactivateUpper();
                } else if (r < 770) {
                    appendOwned();
                } else if (r < 870) {
                    appendShared();
                } else if (r < 875) {
                    deactivateOwnedList();
                } else if (r < 885) {
                    writeCellsOwned();
                } else if (r < 890) {
                    writeBoxOwned();
                } else if (r < 898) {
                    deactivateBoxOwned();
                } else if (r < 906) {
                    appendBulkOwned();
                } else if (r < 910) {
                    appendAllOwned();
                } else {
                    readOwnedList();
                }
            } catch (MemoryCapExceededException refused) {
                refusedByCap++; // the model stays as it was; so must the runtime
            } catch (SoakAllocator.InjectedFault refused) {
                refusedByFault++; // as for the cap
            }
        }

        /** Whether leaf (i, j) lies below one of this worker's middle cells. */
        private boolean owns(int i, int j) {
            return ownsMiddle[(i / LEAVES_PER_MIDDLE) * MIDDLE + j / LEAVES_PER_MIDDLE];
        }

        /**
         * A struct-for launch that writes, outside the batches' launches, while the other
         * workers go on with their direct calls and launches: its kernels visit every active
         * cell (or block) of all workers and change only this worker's. Either every owned leaf's
         * {@code n} becomes three times its value (zero stays zero, so the model need not know
         * which leaves are active): through the bound interface in a {@code Kernel2}, through a
         * view's methods without coordinates, or in the block form's memory; or the kernel
         * deactivates the owned bitmasked cells that one in eight of them, chosen by a salt
         * (the runtime then collects after the launch, as after every launch whose kernels
         * deactivated something). The launch visits the cells active when it starts, all of
         * this worker's leaves among them (only this thread changes them), so the model takes
         * the change when the launch returns.
         *
         * <p>Half of the launches that triple are followed by up to three writes of owned leaves
         * (which may activate containers) and a second such launch, which must visit what they
         * activated: with one worker, nothing else changes the structure in between, so the
         * second launch takes the snapshot-reuse path with an activation since the first (the
         * rule that a snapshot is reused only when no activation, deactivation or collection
         * completed in between). With more workers their deactivations nearly always start a
         * new epoch in between, and the launch walks again.
         */
        private void launch() {
            int kind = random.nextInt(4);
            launch(kind);
            if (kind < 3 && random.nextBoolean()) {
                // Inside a launch of the phase lock, as every direct call of the workers: a direct
                // call must not overlap a collection on another thread (until 12-07 these writes
                // ran outside one, and another worker's collection could reuse a cell they were
                // activating: values lost or from nowhere within a minute with three workers).
                try (PhaseLock.Launch batch = runtime.phaseLock().enterLaunch()) {
                    for (int n = random.nextInt(4); n > 0; n--) {
                        try {
                            set();
                        } catch (MemoryCapExceededException refused) {
                            refusedByCap++;
                        } catch (SoakAllocator.InjectedFault refused) {
                            refusedByFault++;
                        }
                    }
                }
                launch(random.nextInt(3));
            }
        }

        /** One writing launch: {@code kind} 0 to 2 triples (as {@link #launch()} says), 3 deactivates. */
        private void launch(int kind) {
            launches++;
            boolean threeD = config.threeD();
            int salt = random.nextInt(8);
            switch (kind) {
                case 0 -> {
                    if (threeD) {
                        runtime.forEach(leaf, (Kernel3) (i, j, k) -> {
                            if (owns(i, j)) {
                                grid.n(i, j, grid.n(i, j) * 3);
                            }
                        });
                    } else {
                        runtime.forEach(leaf, (Kernel2) (i, j) -> {
                            if (owns(i, j)) {
                                grid.n(i, j, grid.n(i, j) * 3);
                            }
                        });
                    }
                }
                case 1 -> {
                    if (threeD) {
                        runtime.forEach(leaf, View.class, (ViewKernel3<View>) (view, i, j, k) -> {
                            if (owns(i, j)) {
                                view.n(view.n() * 3);
                            }
                        });
                    } else {
                        runtime.forEach(leaf, View.class, (ViewKernel2<View>) (view, i, j) -> {
                            if (owns(i, j)) {
                                view.n(view.n() * 3);
                            }
                        });
                    }
                }
                case 2 -> runtime.forEachBlock(leaf, block -> {
                    if (owns(block.origin(0), block.origin(1))) { // a 4 x 4 container lies below one middle cell
                        MemorySegment cells = block.cells();
                        long offset = block.fieldOffset(nField);
                        for (long n = 0; n < block.cellCount(); n++) {
                            long at = n * block.cellBytes() + offset;
                            cells.set(ValueLayout.JAVA_INT, at, cells.get(ValueLayout.JAVA_INT, at) * 3);
                        }
                    }
                });
                default -> {
                    if (threeD) {
                        runtime.forEach(masked, (Kernel3) (bi, bj, bk) -> deactivateChosen(bi, bj, salt));
                    } else {
                        runtime.forEach(masked, (Kernel2) (bi, bj) -> deactivateChosen(bi, bj, salt));
                    }
                }
            }
            for (int m : middles) {
                int i0 = (m / MIDDLE) * LEAVES_PER_MIDDLE;
                int j0 = (m % MIDDLE) * LEAVES_PER_MIDDLE;
                if (kind < 3) {
                    for (int i = i0; i < i0 + LEAVES_PER_MIDDLE; i++) {
                        for (int x = i * N + j0; x < i * N + j0 + LEAVES_PER_MIDDLE; x++) {
                            leaves[x] *= 3;
                        }
                    }
                } else {
                    for (int bi = i0 / LEAVES_PER_MASKED; bi < (i0 + LEAVES_PER_MIDDLE) / LEAVES_PER_MASKED; bi++) {
                        for (int bj = j0 / LEAVES_PER_MASKED; bj < (j0 + LEAVES_PER_MIDDLE) / LEAVES_PER_MASKED; bj++) {
                            if (chosen(bi, bj, salt)) {
                                zero(bi * LEAVES_PER_MASKED, bj * LEAVES_PER_MASKED, LEAVES_PER_MASKED);
                            }
                        }
                    }
                }
            }
        }

        /** Whether a deactivating launch with {@code salt} deactivates bitmasked cell (bi, bj): one in eight. */
        private static boolean chosen(int bi, int bj, int salt) {
            return ((bi * 3 + bj + salt) & 7) == 0;
        }

        /** The deactivating launch's kernel: deactivates bitmasked cell (bi, bj) when this worker owns it and it is chosen. */
        private void deactivateChosen(int bi, int bj, int salt) {
            if (owns(bi * LEAVES_PER_MASKED, bj * LEAVES_PER_MASKED) && chosen(bi, bj, salt)) {
                generic.deactivate(masked, cell(bi, bj));
            }
        }
        /** A leaf of one of this worker's middle cells: i * N + j. */
        private int leaf() {
            int m = middles[random.nextInt(middles.length)];
            int i = (m / MIDDLE) * LEAVES_PER_MIDDLE + random.nextInt(LEAVES_PER_MIDDLE);
            int j = (m % MIDDLE) * LEAVES_PER_MIDDLE + random.nextInt(LEAVES_PER_MIDDLE);
            return i * N + j;
        }

        private void set() {
            int leaf = leaf();
            int value = random.nextInt();
            grid.n(leaf / N, leaf % N, value);
            leaves[leaf] = value;
        }

        private void add() {
            int leaf = leaf();
            int previous = grid.addN(leaf / N, leaf % N, 1);
            if (previous != leaves[leaf]) {
                throw new Disagreement("addN(" + leaf / N + "," + leaf % N + ") returned " + previous
                        + ", but the calls that returned normally left " + leaves[leaf]);
            }
            leaves[leaf] = previous + 1;
        }

        /** Adds 1 to a random counter, which other threads add to as well. */
        private void count() {
            int c = random.nextInt(COUNTERS);
            grid.addN(COUNTER_FIRST_LEAF_ROW + c / N, c % N, 1);
            counterAdds[c]++;
        }

        private void read() {
            int leaf = leaf();
            int actual = grid.n(leaf / N, leaf % N);
            if (actual != leaves[leaf]) {
                throw new Disagreement("n(" + leaf / N + "," + leaf % N + ") reads " + actual
                        + ", but the calls that returned normally left " + leaves[leaf]);
            }
        }

        private void deactivateMasked() {
            int m = middles[random.nextInt(middles.length)];
            int bi = (m / MIDDLE) * MASKED_PER_MIDDLE + random.nextInt(MASKED_PER_MIDDLE);
            int bj = (m % MIDDLE) * MASKED_PER_MIDDLE + random.nextInt(MASKED_PER_MIDDLE);
            generic.deactivate(masked, cell(bi, bj));
            zero(bi * LEAVES_PER_MASKED, bj * LEAVES_PER_MASKED, LEAVES_PER_MASKED);
        }

        private void deactivateMiddle() {
            int m = middles[random.nextInt(middles.length)];
            generic.deactivate(middle, cell(m / MIDDLE, m % MIDDLE));
            zero((m / MIDDLE) * LEAVES_PER_MIDDLE, (m % MIDDLE) * LEAVES_PER_MIDDLE, LEAVES_PER_MIDDLE);
        }

        private void deactivateUpper() {
            if (uppers.length == 0) {
                return;
            }
            int u = uppers[random.nextInt(uppers.length)];
            generic.deactivate(upper, cell(u / UPPER, u % UPPER));
            zero((u / UPPER) * LEAVES_PER_UPPER, (u % UPPER) * LEAVES_PER_UPPER, LEAVES_PER_UPPER);
            listLengths[u] = 0;
        }

        private void zero(int i0, int j0, int size) {
            for (int i = i0; i < i0 + size; i++) {
                Arrays.fill(leaves, i * N + j0, i * N + j0 + size, 0);
            }
        }

        private void appendOwned() {
            if (uppers.length == 0) {
                return;
            }
            int u = uppers[random.nextInt(uppers.length)];
            int length = listLengths[u];
            int value = random.nextInt();
            long index;
            try {
                index = grid.appendP(u / UPPER, u % UPPER, value);
            } catch (DynamicListFullException full) {
                if (length != LIST_CAPACITY) {
                    throw new Disagreement("appendP(" + u / UPPER + "," + u % UPPER + ") found the list full, but "
                            + length + " of " + LIST_CAPACITY + " appends returned normally since it was emptied");
                }
                refusedFull++;
                return;
            }
            if (index != length) {
                throw new Disagreement("appendP(" + u / UPPER + "," + u % UPPER + ") returned index " + index
                        + ", but " + length + " appends returned normally since the list was emptied");
            }
            listValues[u][length] = value;
            listLengths[u] = length + 1;
        }

        private void appendShared() {
            int u = random.nextInt(SHARED_UPPERS);
            int value = random.nextInt();
            long index;
            try {
                index = grid.appendP(u / UPPER, u % UPPER, value);
            } catch (DynamicListFullException full) {
                refusedFull++;
                return;
            }
            if (index < 0 || index >= LIST_CAPACITY) {
                throw new Disagreement("appendP(" + u / UPPER + "," + u % UPPER + ") returned index " + index
                        + " outside [0, " + LIST_CAPACITY + ")");
            }
            int count = sharedCounts[u];
            if (count == sharedIndices[u].length) {
                sharedIndices[u] = Arrays.copyOf(sharedIndices[u], 2 * count);
                sharedValues[u] = Arrays.copyOf(sharedValues[u], 2 * count);
            }
            sharedIndices[u][count] = (int) index;
            sharedValues[u][count] = value;
            sharedCounts[u] = count + 1;
        }

        private void deactivateOwnedList() {
            if (uppers.length == 0) {
                return;
            }
            int u = uppers[random.nextInt(uppers.length)];
            generic.deactivate(list, cell(u / UPPER, u % UPPER)); // the list's coordinates, as append takes them
            listLengths[u] = 0;
        }

        /**
         * A square of leaves this worker owns, with everything below: {@code {i0, j0, size, u}},
         * one of its owned upper cells (u its number) one time in four, else one of its middle
         * cells (u = -1).
         */
        private int[] ownedSquare() {
            if (uppers.length > 0 && random.nextInt(4) == 0) {
                int u = uppers[random.nextInt(uppers.length)];
                return new int[] {(u / UPPER) * LEAVES_PER_UPPER, (u % UPPER) * LEAVES_PER_UPPER, LEAVES_PER_UPPER, u};
            }
            int m = middles[random.nextInt(middles.length)];
            return new int[] {(m / MIDDLE) * LEAVES_PER_MIDDLE, (m % MIDDLE) * LEAVES_PER_MIDDLE, LEAVES_PER_MIDDLE, -1};
        }

        /**
         * A base for a bulk write's values ({@code base + n} for its element {@code n}, so that
         * a value read back names the element that wrote it) that none of the model's values at
         * {@code leafOf} equals.
         */
        private int freshBase(int[] leafOf) {
            while (true) {
                int base = random.nextInt();
                boolean clash = false;
                for (int leaf : leafOf) {
                    if (Integer.toUnsignedLong(leaves[leaf] - base) < leafOf.length) {
                        clash = true;
                        break;
                    }
                }
                if (!clash) {
                    return base;
                }
            }
        }

        /**
         * A list write ({@code Bulk.writeCells}) of owned leaves, in random order or sorted by
         * coordinates (the path of sorted lists), now and then long enough (up to 12,000 cells)
         * for several batches and, unsorted, for grouping by container; some leaves listed twice. The runtime must hold a prefix of the
         * list (the whole list when the call returned normally), read back at once.
         */
        private void writeCellsOwned() {
            boolean longList = random.nextInt(64) == 0;
            int count = longList ? 1 + random.nextInt(12_000) : 1 + random.nextInt(96);
            // A long list spreads over enough containers (thousands with few threads) for their
            // slots in the call's cache to collide, so that past two batches it goes on grouped by
            // container (Bulk's scattered lists), unless it is sorted.
            int[][] squares = new int[longList ? 32 : 1 + random.nextInt(3)][];
            for (int s = 0; s < squares.length; s++) {
                squares[s] = ownedSquare();
            }
            int[] leafOf = new int[count];
            for (int n = 0; n < count; n++) {
                int[] square = squares[random.nextInt(squares.length)];
                leafOf[n] = (square[0] + random.nextInt(square[2])) * N + square[1] + random.nextInt(square[2]);
            }
            if (random.nextBoolean()) {
                Arrays.sort(leafOf); // by (i, j)
            }
            int[][] coordinates = new int[config.threeD() ? 3 : 2][count]; // k = 0 on three coordinates
            int base = freshBase(leafOf);
            int[] values = new int[count];
            for (int n = 0; n < count; n++) {
                coordinates[0][n] = leafOf[n] / N;
                coordinates[1][n] = leafOf[n] % N;
                values[n] = base + n;
            }
            boolean refused = false;
            try {
                long written = Bulk.writeCells(runtime, "n", coordinates, values);
                if (written != count) {
                    throw new Disagreement("Bulk.writeCells of " + count + " cells returned " + written);
                }
            } catch (MemoryCapExceededException e) {
                refused = true;
                refusedByCap++;
            } catch (SoakAllocator.InjectedFault e) {
                refused = true;
                refusedByFault++;
            }
            int prefix = takePrefix(leafOf, base);
            if (!refused && prefix != count) {
                throw new Disagreement("Bulk.writeCells of " + count + " cells returned normally, but only the first "
                        + prefix + " are written");
            }
        }

        /**
         * The prefix of a list write (element {@code n}: leaf {@code leafOf[n]}, value
         * {@code base + n}) that the runtime holds, read back: every listed leaf holds the value
         * of its last element before the prefix's end, or the model's value where it has none.
         * The model takes that prefix.
         */
        private int takePrefix(int[] leafOf, int base) {
            int count = leafOf.length;
            int[] read = new int[count];
            int prefix = 0;
            for (int n = 0; n < count; n++) {
                int leaf = leafOf[n];
                read[n] = grid.n(leaf / N, leaf % N);
                int element = read[n] - base;
                if (Integer.toUnsignedLong(element) < count) {
                    if (leafOf[element] != leaf) {
                        throw new Disagreement("n(" + leaf / N + "," + leaf % N + ") reads the value that a list write"
                                + " gave its element " + element + ", cell (" + leafOf[element] / N + ","
                                + leafOf[element] % N + ")");
                    }
                    prefix = Math.max(prefix, element + 1);
                } else if (read[n] != leaves[leaf]) {
                    throw new Disagreement("n(" + leaf / N + "," + leaf % N + ") reads " + read[n] + " after a list"
                            + " write, neither a value it wrote nor the " + leaves[leaf] + " the calls before left");
                }
            }
            Map<Integer, Integer> last = new java.util.HashMap<>();
            for (int n = 0; n < prefix; n++) {
                last.put(leafOf[n], n);
            }
            for (int n = 0; n < count; n++) {
                int leaf = leafOf[n];
                Integer element = last.get(leaf);
                int expected = element == null ? leaves[leaf] : base + element;
                if (read[n] != expected) {
                    throw new Disagreement("n(" + leaf / N + "," + leaf % N + ") reads " + read[n] + " after a list"
                            + " write of " + count + " cells whose first " + prefix + " are written: no prefix of the"
                            + " list leaves that (expected " + expected + ")");
                }
            }
            for (int n = 0; n < prefix; n++) {
                leaves[leafOf[n]] = base + n;
            }
            return prefix;
        }

        /**
         * A box write ({@code Bulk.write}) inside an owned square. Read back at once: the
         * leaves' containers (the 4 x 4 dense blocks) in row-major order, a prefix of them
         * written whole and the rest as the model left them (all of them written when the call
         * returned normally).
         */
        private void writeBoxOwned() {
            int[] square = ownedSquare();
            int i0 = square[0] + random.nextInt(square[2]);
            int j0 = square[1] + random.nextInt(square[2]);
            int i1 = i0 + 1 + random.nextInt(square[0] + square[2] - i0);
            int j1 = j0 + 1 + random.nextInt(square[1] + square[2] - j0);
            int width = j1 - j0;
            int count = (i1 - i0) * width;
            int[] leafOf = new int[count];
            for (int n = 0; n < count; n++) {
                leafOf[n] = (i0 + n / width) * N + j0 + n % width;
            }
            int base = freshBase(leafOf);
            int[] values = new int[count];
            for (int n = 0; n < count; n++) {
                values[n] = base + n;
            }
            boolean refused = false;
            try {
                long written = Bulk.write(runtime, "n", cell(i0, j0), high(i1, j1), values);
                if (written != count) {
                    throw new Disagreement("Bulk.write of " + count + " cells returned " + written);
                }
            } catch (MemoryCapExceededException e) {
                refused = true;
                refusedByCap++;
            } catch (SoakAllocator.InjectedFault e) {
                refused = true;
                refusedByFault++;
            }
            int block = LEAVES_PER_MASKED;
            boolean before = true; // still in the prefix of containers written
            for (int bi = Math.floorDiv(i0, block) * block; bi < i1; bi += block) {
                for (int bj = Math.floorDiv(j0, block) * block; bj < j1; bj += block) {
                    int written = 0;
                    int cells = 0;
                    for (int i = Math.max(i0, bi); i < Math.min(i1, bi + block); i++) {
                        for (int j = Math.max(j0, bj); j < Math.min(j1, bj + block); j++) {
                            int n = (i - i0) * width + (j - j0);
                            int actual = grid.n(i, j);
                            if (actual == base + n) {
                                written++;
                            } else if (actual != leaves[i * N + j]) {
                                throw new Disagreement("n(" + i + "," + j + ") reads " + actual + " after a box write,"
                                        + " neither its value " + (base + n) + " nor the " + leaves[i * N + j]
                                        + " the calls before left");
                            }
                            cells++;
                        }
                    }
                    if (written != 0 && written != cells) {
                        throw new Disagreement("a box write [" + i0 + "," + j0 + ")..[" + i1 + "," + j1 + ") left "
                                + written + " of the " + cells + " cells of the container at (" + bi + "," + bj
                                + ") written: a container is written whole or not at all");
                    }
                    if (written == 0) {
                        before = false;
                    } else if (!before) {
                        throw new Disagreement("a box write [" + i0 + "," + j0 + ")..[" + i1 + "," + j1 + ") wrote the"
                                + " container at (" + bi + "," + bj + ") after one it did not write");
                    }
                }
            }
            if (!before && !refused) {
                throw new Disagreement("a box write [" + i0 + "," + j0 + ")..[" + i1 + "," + j1 + ") returned"
                        + " normally, but left a container unwritten");
            }
            for (int n = 0; n < count; n++) {
                int leaf = leafOf[n];
                if (grid.n(leaf / N, leaf % N) == base + n) {
                    leaves[leaf] = base + n;
                }
            }
        }

        /**
         * A region deactivation ({@code deactivateBox}) of the bitmasked or the middle pointer
         * SNode, its box (maybe empty) inside an owned square, or of an owned upper cell. A box that covers an owned upper
         * cell whole deactivates that cell with its subtree, its list too.
         */
        private void deactivateBoxOwned() {
            int[] square = ownedSquare();
            int u = square[3];
            if (u >= 0 && random.nextInt(4) == 0) {
                // The owned upper cell itself: a box of one upper cell, or an empty one at its corner.
                int size = random.nextInt(2);
                generic.deactivateBox(upper, cell(u / UPPER, u % UPPER), high(u / UPPER + size, u % UPPER + size));
                if (size == 1) {
                    zero(square[0], square[1], square[2]);
                    listLengths[u] = 0;
                }
                return;
            }
            boolean byMiddle = random.nextInt(3) == 0;
            int unit = byMiddle ? LEAVES_PER_MIDDLE : LEAVES_PER_MASKED;
            int cells = square[2] / unit;
            int[] low = cell(0, 0);
            int[] high = high(0, 0);
            for (int c = 0; c < 2; c++) {
                int first = square[c] / unit;
                low[c] = first + random.nextInt(cells + 1);
                high[c] = low[c] + random.nextInt(first + cells - low[c] + 1);
            }
            generic.deactivateBox(byMiddle ? middle : masked, low, high);
            for (int i = low[0] * unit; i < high[0] * unit; i++) {
                Arrays.fill(leaves, i * N + low[1] * unit, i * N + high[1] * unit, 0);
            }
            if (u >= 0 && low[0] * unit == square[0] && high[0] * unit == square[0] + square[2]
                    && low[1] * unit == square[1] && high[1] * unit == square[1] + square[2]) {
                listLengths[u] = 0;
            }
        }

        /**
         * A bulk append ({@code Bulk.append}) to an owned list: as many single appends, so it
         * appends all or, refused, a prefix that {@link BulkAppendException#appended()} lists,
         * refused for a full list exactly where the model is full.
         */
        private void appendBulkOwned() {
            if (uppers.length == 0) {
                return;
            }
            int u = uppers[random.nextInt(uppers.length)];
            int length = listLengths[u];
            // Now and then past the capacity, so that lists fill up and full lists refuse bulk
            // appends (single appends alone rarely fill an owned list between its deactivations).
            int r = random.nextInt(32);
            int count = 1 + random.nextInt(r == 0 ? LIST_CAPACITY + 1000 : r < 4 ? 600 : 80);
            int[] values = new int[count];
            for (int n = 0; n < count; n++) {
                values[n] = random.nextInt();
            }
            String call = "Bulk.append of " + count + " to the list (" + u / UPPER + "," + u % UPPER + ") of length "
                    + length;
            int appended = count;
            try {
                long returned = Bulk.append(runtime, "p", cell(u / UPPER, u % UPPER), values);
                if (returned != count) {
                    throw new Disagreement(call + " returned " + returned);
                }
            } catch (BulkAppendException e) {
                int[] done = e.appended();
                appended = done.length;
                for (int n = 0; n < appended; n++) {
                    if (done[n] != n) {
                        throw new Disagreement(call + " appended " + Arrays.toString(done) + ", not a prefix");
                    }
                }
                if (e.refused() != appended) {
                    throw new Disagreement(call + " refused element " + e.refused() + " after appending " + appended);
                }
                countRefusal(call, e, length + appended);
            }
            if (length + appended > LIST_CAPACITY) {
                throw new Disagreement(call + " appended " + appended + ", past the capacity " + LIST_CAPACITY);
            }
            System.arraycopy(values, 0, listValues[u], length, appended);
            listLengths[u] = length + appended;
        }

        /** A refused bulk append: a full list must be full in the model ({@code lengthThen} the list's length when refused). */
        private void countRefusal(String call, BulkAppendException e, int lengthThen) {
            if (e.getCause() instanceof DynamicListFullException) {
                if (lengthThen != LIST_CAPACITY) {
                    throw new Disagreement(call + " found the list full at length " + lengthThen + " of "
                            + LIST_CAPACITY);
                }
                refusedFull++;
            } else if (e.getCause() instanceof MemoryCapExceededException) {
                refusedByCap++;
            } else if (e.getCause() instanceof SoakAllocator.InjectedFault) {
                refusedByFault++;
            } else {
                throw e;
            }
        }

        /**
         * A bulk append to several owned lists ({@code Bulk.appendAll}): grouped by list in
         * coordinate order (the first axis most significant), each list's elements in the
         * arrays' order; refused, exactly the elements before the refused one in that order are
         * appended.
         */
        private void appendAllOwned() {
            if (uppers.length == 0) {
                return;
            }
            int count = 1 + random.nextInt(120);
            int[] listOf = new int[count];
            int[][] lists = new int[config.threeD() ? 3 : 2][count]; // k = 0 on three coordinates
            int[] values = new int[count];
            for (int n = 0; n < count; n++) {
                int u = uppers[random.nextInt(uppers.length)];
                listOf[n] = u;
                lists[0][n] = u / UPPER;
                lists[1][n] = u % UPPER;
                values[n] = random.nextInt();
            }
            // The call's order: by upper cell number (row-major, as the coordinates), then by element.
            long[] keys = new long[count]; // upper cell number, then element: sorted, the call's order
            for (int n = 0; n < count; n++) {
                keys[n] = (long) listOf[n] << Integer.SIZE | n;
            }
            Arrays.sort(keys);
            int[] order = new int[count];
            for (int q = 0; q < count; q++) {
                order[q] = (int) keys[q];
            }
            String call = "Bulk.appendAll of " + count + " to " + uppers.length + " owned lists";
            int taken = count; // elements of the order appended
            BulkAppendException refusal = null;
            try {
                long returned = Bulk.appendAll(runtime, "p", lists, values);
                if (returned != count) {
                    throw new Disagreement(call + " returned " + returned);
                }
            } catch (BulkAppendException e) {
                refusal = e;
                taken = 0;
                while (order[taken] != e.refused()) {
                    taken++;
                }
                int[] expected = Arrays.copyOf(order, taken);
                Arrays.sort(expected);
                if (!Arrays.equals(expected, e.appended())) {
                    throw new Disagreement(call + " refused element " + e.refused() + " and appended "
                            + Arrays.toString(e.appended()) + ", not the elements before it in the call's order");
                }
            }
            for (int q = 0; q < taken; q++) {
                int n = order[q];
                int u = listOf[n];
                if (listLengths[u] == LIST_CAPACITY) {
                    throw new Disagreement(call + " appended to the list (" + u / UPPER + "," + u % UPPER
                            + ") past its capacity " + LIST_CAPACITY);
                }
                listValues[u][listLengths[u]++] = values[n];
            }
            if (refusal != null) {
                countRefusal(call, refusal, listLengths[listOf[refusal.refused()]]);
            }
        }

        private void readOwnedList() {
            if (uppers.length == 0) {
                return;
            }
            int u = uppers[random.nextInt(uppers.length)];
            int length = listLengths[u];
            if (length > 0) {
                int k = random.nextInt(length);
                int actual = grid.p(u / UPPER, u % UPPER, k);
                if (actual != listValues[u][k]) {
                    throw new Disagreement("p(" + u / UPPER + "," + u % UPPER + "," + k + ") reads " + actual
                            + ", but its append stored " + listValues[u][k]);
                }
            }
            if (length < LIST_CAPACITY) {
                int past = grid.p(u / UPPER, u % UPPER, length);
                if (past != 0) {
                    throw new Disagreement("p(" + u / UPPER + "," + u % UPPER + "," + length + ") reads " + past
                            + " at the list's length; past the length reads 0");
                }
            }
        }

    }
}
