package io.snode.gc.internal;

import io.snode.gc.SNodeGcStatistics;
import io.snode.runtime.internal.memory.IndexListDescriptor;
import io.snode.runtime.internal.memory.ListManager;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.memory.NodeManagerMetrics;
import io.snode.runtime.internal.memory.WrittenPages;
import io.snode.runtime.internal.vectorization.GcKernels;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One collection of one {@link NodeManager}: the three phases of Taichi's parallel GC
 * ({@code gc_parallel_0}, {@code gc_parallel_1}, {@code gc_parallel_2}), run in order, each
 * phase's parallel part on a {@link TaskRunner}.
 *
 * <h2>The free list during a collection</h2>
 * Let {@code L} be the free list's length and {@code U} its cursor ("used": entries already
 * handed out) after the thread caches are drained, and {@code T = L - U} the untaken tail.
 * <pre>
 *   before        [ taken: 0 .. U ) [ free tail: U .. L )          recycled: [ r0 .. rR )
 *   phase 0       [ the T free entries, as a multiset ) [ stale ]   (compaction)
 *   phase 1       length := T, cursor := 0; R := recycled length; recycled length := 0 (contents kept)
 *   phase 2       [ T free entries ) [ r0 .. rR ) ; every cell r_i zeroed; length := T + R
 * </pre>
 *
 * <h2>Phase 0: compaction, and why it is race-free in parallel</h2>
 * {@link Compaction#ORDERED} (serial) moves {@code [U, L)} to {@code [0, T)} with a forward
 * {@code memmove}: the order of the free entries is kept (Taichi's {@code gc_serial}, and
 * {@link NodeManager#collect()}). {@link Compaction#OVERLAP_AWARE} is Taichi's
 * {@code gc_parallel_0}, whose sub-ranges may run on any threads in any order:
 * <ul>
 *   <li>{@code U > T} (more than half used): source {@code [U, L)} and destination
 *       {@code [0, T)} are disjoint, since {@code T < U}; the tail is copied as is, in parallel
 *       sub-ranges.</li>
 *   <li>{@code U <= T}: source and destination of a plain move would overlap. Only the last
 *       {@code U} entries, {@code [L - U, L)}, are moved, into the taken slots {@code [0, U)}; the
 *       entries {@code [U, L - U)} are already in place. Source and destination are disjoint
 *       because {@code U <= L - U}. The free entries end up in {@code [0, T)} as the same
 *       multiset, in a different order.</li>
 * </ul>
 * Within either case no entry is both read and written, so sub-ranges need no ordering among
 * themselves; the fork/join join is the only synchronisation.
 *
 * <h2>Phase 2: refill and zero</h2>
 * Sub-range {@code [a, b)} of the recycled entries is copied to free-list entries
 * {@code [T + a, T + b)} and each of its cells is zeroed. Distinct sub-ranges write distinct
 * free-list entries, and distinct cells (a cell is recycled at most once per collection, which
 * {@link #begin} checks by counting), so they are independent. Runs of recycled cells that are
 * adjacent in memory are zeroed with one kernel call; runs of cells of two pages or more, a
 * call per stretch of pages that hold a byte other than zero ({@link WrittenPages}): a page
 * that reads zero is left as it is, so that a collection commits no page of such cells that
 * nothing wrote (a freed 128 KiB dense block with one voxel set would otherwise commit its 31
 * untouched pages). Smaller cells are zeroed whole, untouched pages among them included.
 *
 * <h2>Assumptions</h2>
 * The caller holds the exclusion the node manager's protocol asks for (NodeManager's Assumption 2:
 * no allocate, unallocate or recycle runs on the manager from {@link #begin} to the end of
 * {@link #phase2}), and calls the phases in order, each once.
 */
public final class ManagerCollection {

    /** How phase 0 moves the free tail. */
    public enum Compaction {
        /** Forward {@code memmove} of the whole tail, keeping its order; on the calling thread. */
        ORDERED,
        /** Taichi's {@code gc_parallel_0}: disjoint source and destination, in parallel sub-ranges. */
        OVERLAP_AWARE
    }

    private static final long INDEX_BYTES = IndexListDescriptor.ELEMENT_SIZE;

    private final NodeManager manager;
    private final ListManager freeList;
    private final ListManager recycled;
    private final ListManager data;
    private final long stride;
    private final long cachedBefore;

    private int nextPhase;
    private long length;
    private long used;
    private long tail;
    private long moved;
    private long recycledCount;
    private long phase0Nanos;
    private long phase1Nanos;
    private long phase2Nanos;

    private ManagerCollection(NodeManager manager, long cachedBefore) {
        this.manager = manager;
        this.freeList = manager.freeList();
        this.recycled = manager.recycledList();
        this.data = manager.dataList();
        this.stride = manager.cellStride();
        this.cachedBefore = cachedBefore;
    }

    /**
     * Checks that {@code manager} can be collected and changes nothing.
     *
     * @throws IllegalStateException if the manager is closed, or if it has more free and recycled
     *                               cells than cells (a cell was recycled twice)
     */
    public static ManagerCollection begin(NodeManager manager) {
        Objects.requireNonNull(manager, "manager");
        if (manager.isClosed()) {
            throw new IllegalStateException("node manager of " + manager.owner().name() + " is closed");
        }
        NodeManagerMetrics m = manager.metrics();
        if (m.cellsFree() + m.cellsRecycled() > m.cellsAllocated()) {
            throw new IllegalStateException("node manager of " + m.ownerName() + ": free=" + m.cellsFree()
                    + " recycled=" + m.cellsRecycled() + " exceed cellsAllocated=" + m.cellsAllocated()
                    + " (a cell was recycled twice?)");
        }
        return new ManagerCollection(manager, m.cellsCached());
    }

    public NodeManager manager() {
        return manager;
    }

    /**
     * Phase 0: drains the thread caches into the free list, then moves the untaken tail to the
     * head of the free list (see the class comment for the two overlap cases).
     *
     * @param copyGrain fewest entries per parallel task
     */
    public void phase0(GcKernels kernels, TaskRunner runner, Compaction compaction, long copyGrain) {
        expectPhase(0);
        long t0 = System.nanoTime();
        manager.drainThreadCaches();
        length = manager.freeListLength();
        used = manager.freeListCursor();
        tail = length - used;
        if (used > 0 && tail > 0) {
            final long u = used;
            final long l = length;
            if (compaction == Compaction.ORDERED) {
                IndexLists.copy(kernels, freeList, u, freeList, 0, tail);
                moved = tail;
            } else if (u > tail) {
                runner.forRange(tail, copyGrain, (a, b) -> IndexLists.copy(kernels, freeList, u + a, freeList, a, b - a));
                moved = tail;
            } else {
                runner.forRange(u, copyGrain, (a, b) -> IndexLists.copy(kernels, freeList, l - u + a, freeList, a, b - a));
                moved = u;
            }
        }
        phase0Nanos = System.nanoTime() - t0;
    }

    /**
     * Phase 1, single-threaded: the free list shrinks to its {@code T} untaken entries with the
     * cursor at 0, the recycled list's length is remembered, and the recycled list is cleared
     * lazily (its entries stay readable for phase 2).
     */
    public void phase1() {
        expectPhase(1);
        long t0 = System.nanoTime();
        recycledCount = recycled.size();
        manager.resetFreeList(tail);
        recycled.clear();
        phase1Nanos = System.nanoTime() - t0;
    }

    /**
     * Phase 2: appends the remembered recycled entries to the free list and zeroes their cells,
     * in parallel sub-ranges, then declares the free list {@code T + R} long.
     *
     * @param grainBytes  fewest bytes of cells per parallel task
     * @param sort        if not null, and at least {@code sortAtLeast} cells were recycled in an
     *                    order that is not ascending, they are sorted by index, appended in that
     *                    order and zeroed in that order (memory order: scattered cells are zeroed
     *                    about twice as fast, and later allocations walk memory forwards)
     * @param sortAtLeast see {@code sort}
     */
    public void phase2(GcKernels kernels, TaskRunner runner, long grainBytes, CellIndexSort sort, long sortAtLeast) {
        expectPhase(2);
        long t0 = System.nanoTime();
        long grainCells = Math.max(1, grainBytes / stride);
        CellIndexSort order = recycledCount >= sortAtLeast ? sort : null;
        if (data.releasesFreePages() && recycledCount * stride >= RELEASE_AT_LEAST_BYTES) {
            // Sorted, neighbouring cells form the long runs whose pages can be given back.
            order = sort != null ? sort : new CellIndexSort();
            if (givesBackHugePages(data)) {
                // A task's run ends where the task does: let one hold many whole huge pages.
                grainCells = Math.max(grainCells, HUGE_PAGE_TASK_BYTES / stride);
            }
        }
        refillAndZero(kernels, runner, manager, tail, recycledCount, grainCells, order);
        manager.resetFreeList(tail + recycledCount);
        phase2Nanos = System.nanoTime() - t0;
    }

    /** Phase 2 in recycling order (Taichi's). */
    public void phase2(GcKernels kernels, TaskRunner runner, long grainBytes) {
        phase2(kernels, runner, grainBytes, null, Long.MAX_VALUE);
    }

    /** Most recycled cells that are sorted: the sort's two {@code int} arrays stay under 1 GiB. */
    public static final int MAX_SORTED_CELLS = 1 << 27;

    /**
     * The parallel part of phase 2 on its own: recycled entries {@code [0, count)} are copied to
     * free-list entries {@code [freeBase, freeBase + count)} (sorted ascending first if
     * {@code sort} is given and they are not ascending already) and their cells zeroed. It reads
     * the recycled list's entries regardless of its length (a cleared list keeps them) and
     * changes neither lengths nor the recycled entries, so calling it again over the same state
     * does the same work: the benchmarks call it in a loop.
     */
    public static void refillAndZero(GcKernels kernels, TaskRunner runner, NodeManager manager, long freeBase,
                                     long count, long grainCells, CellIndexSort sort) {
        ListManager recycled = manager.recycledList();
        ListManager freeList = manager.freeList();
        ListManager data = manager.dataList();
        long stride = manager.cellStride();
        if (sort != null && count >= 2 && count <= MAX_SORTED_CELLS) {
            int n = (int) count;
            int[] cells = sort.buffer(n);
            IndexLists.toArray(recycled, 0, n, cells);
            if (!CellIndexSort.isAscending(cells, n)) {
                sort.sort(n, data.size());
                runner.forRange(count, grainCells, (a, b) -> {
                    IndexLists.copyFrom(cells, (int) a, freeList, freeBase + a, (int) (b - a));
                    RunZeroer runs = new RunZeroer(kernels, data, stride);
                    for (int i = (int) a; i < b; i++) {
                        runs.add(cells[i]);
                    }
                    runs.flush();
                });
                return;
            }
        }
        runner.forRange(count, grainCells, (a, b) -> {
            IndexLists.copy(kernels, recycled, a, freeList, freeBase + a, b - a);
            zeroCells(kernels, recycled, a, b, data, stride);
        });
    }

    /**
     * Zeroes the cells whose indices are entries {@code [from, to)} of {@code indices}; cells that
     * follow each other in one chunk of {@code data} are zeroed as one run.
     */
    public static void zeroCells(GcKernels kernels, ListManager indices, long from, long to, ListManager data,
                                 long stride) {
        RunZeroer runs = new RunZeroer(kernels, data, stride);
        var g = indices.geometry();
        long i = from;
        while (i < to) {
            int k = g.chunkIndex(i);
            long n = Math.min(to - i, g.chunkStart(k) + g.chunkElements(k) - i);
            MemorySegment piece = indices.chunk(k);
            long base = g.byteOffsetInChunk(i) + IndexListDescriptor.CELL_INDEX_OFFSET;
            for (long j = 0; j < n; j++) {
                runs.add(piece.get(IndexListDescriptor.CELL_INDEX_LAYOUT, base + j * INDEX_BYTES));
            }
            i += n;
        }
        runs.flush();
    }

    /**
     * Fewest bytes of one run of recycled cells whose pages phase 2 gives back to the system
     * instead of zeroing them, where the cells lie in a region: 16 pages. Shorter runs are zeroed
     * and keep their pages (a page given back costs a fault when it is next touched, and a short
     * run has at most a page or two inside it).
     */
    public static final long RELEASE_AT_LEAST_BYTES = 64 << 10;

    /**
     * Fewest bytes of cells per zeroing task of phase 2 where free pages are given back in a
     * region with huge pages: 16 huge pages, so that a task's runs hold whole huge pages (a run
     * ends with its task, and the pages it only partly covers are zeroed, not given back).
     */
    public static final long HUGE_PAGE_TASK_BYTES = 16 * MemoryPool.HUGE_PAGE;

    /** Whether a collection gives back whole huge pages of {@code data}'s cells (a region with huge pages that releases free pages). */
    private static boolean givesBackHugePages(ListManager data) {
        return data.releasedPageBytes() == MemoryPool.HUGE_PAGE;
    }

    /**
     * Collects cells into runs of neighbours in one chunk (across the chunks of a region where
     * whole huge pages are given back) and zeroes each run with one kernel call per chunk; a run
     * of at least {@link #RELEASE_AT_LEAST_BYTES} in a region has its whole pages (whole huge
     * pages in a region with huge pages, {@code MemoryPool.releasePages})
     * given back instead ({@link ListManager#releaseElements}: they read zero, and commit again
     * when next touched) and the rest of its bytes zeroed. Every run's cells are free and used
     * by no other thread (the collection is exclusive), so what happens halfway is seen by no
     * one; if the give-back fails (a RuntimeException or an Error), the run is zeroed with the
     * kernel, so every reclaimed cell reads zero whatever the allocator did.
     */
    private static final class RunZeroer {
        private final GcKernels kernels;
        private final ListManager data;
        private final long stride;
        private MemorySegment runChunk;
        private long runStart;
        private long runEnd;
        private int runFirstCell;
        /**
         * Whether runs go on across the chunks of the list: where whole huge pages are given
         * back, in a region (whose chunks lie one after another, cell {@code c} at
         * {@code c * stride}), as a run must span a huge page to give it back and a chunk of a
         * region is at most 1 MiB. Then a run is {@code runCells} cells from {@code runFirstCell}.
         */
        private final boolean acrossChunks;
        private long runCells;

        RunZeroer(GcKernels kernels, ListManager data, long stride) {
            this.kernels = kernels;
            this.data = data;
            this.stride = stride;
            this.acrossChunks = givesBackHugePages(data);
        }

        void add(int cell) {
            if (acrossChunks) {
                if (runCells > 0 && cell == runFirstCell + runCells) {
                    runCells++;
                    return;
                }
                flush();
                runFirstCell = cell;
                runCells = 1;
                return;
            }
            MemorySegment chunk = data.chunkFor(cell);
            long offset = data.offsetFor(cell);
            if (chunk == runChunk && offset == runEnd) {
                runEnd += stride;
                return;
            }
            flush();
            runChunk = chunk;
            runStart = offset;
            runEnd = offset + stride;
            runFirstCell = cell;
        }

        void flush() {
            if (acrossChunks) {
                if (runCells > 0) {
                    if (runCells * stride < RELEASE_AT_LEAST_BYTES || !release(runCells)) {
                        zeroAcrossChunks(runFirstCell, runCells);
                    }
                    runCells = 0;
                }
                return;
            }
            if (runChunk != null) {
                long bytes = runEnd - runStart;
                if (bytes < RELEASE_AT_LEAST_BYTES || !release(bytes / stride)) {
                    zeroWritten(runChunk, runStart, bytes);
                }
                runChunk = null;
            }
        }

        /** Zeroes {@code [offset, offset + bytes)} of {@code chunk}; of large cells only the pages that do not read zero ({@link WrittenPages}). */
        private void zeroWritten(MemorySegment chunk, long offset, long bytes) {
            WrittenPages.zeroCells(chunk, offset, bytes, stride, kernels::zero);
        }

        /** Zeroes cells {@code [first, first + count)}, which may lie in several chunks, a chunk's part at a time. */
        private void zeroAcrossChunks(long first, long count) {
            var geometry = data.geometry();
            long cell = first;
            long end = first + count;
            while (cell < end) {
                long chunkEnd = geometry.chunkStart(geometry.chunkIndex(cell) + 1);
                long cells = Math.min(end, chunkEnd) - cell;
                zeroWritten(data.chunkFor(cell), data.offsetFor(cell), cells * stride);
                cell += cells;
            }
        }

        /** Gives the run's pages back; false when its cells are in no region or the allocator failed. */
        private boolean release(long cells) {
            try {
                return data.releaseElements(runFirstCell, cells);
            } catch (RuntimeException | Error allocatorFault) {
                // The run is zeroed instead: a give-back is an economy, never needed. An Error too
                // (an OutOfMemoryError in the allocator): thrown on, it would end the collection
                // in its last phase, with the free list not yet reset.
                return false;
            }
        }
    }

    /** What this collection did; complete after {@link #phase2}. */
    public SNodeGcStatistics statistics() {
        return new SNodeGcStatistics(manager.owner().name(), stride, recycledCount, recycledCount * stride,
                cachedBefore, moved, tail + recycledCount, phase0Nanos, phase1Nanos, phase2Nanos);
    }

    /** {@code T}: free entries after compaction (valid after phase 0). */
    public long freeTail() {
        return tail;
    }

    /** {@code R}: recycled entries remembered by phase 1 (valid after phase 1). */
    public long recycledCount() {
        return recycledCount;
    }

    private void expectPhase(int phase) {
        if (nextPhase != phase) {
            throw new IllegalStateException("phase " + phase + " of " + manager.owner().name()
                    + " called when phase " + nextPhase + " is next");
        }
        nextPhase = phase + 1;
    }
}
