package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The cell allocator of one sparse SNode (Taichi's {@code NodeManager}): hands out fixed-size,
 * zeroed cells identified by an {@code int} index, takes them back through a recycled list, and
 * makes recycled cells reusable in a collection.
 *
 * <h2>Terms and layout</h2>
 * <ul>
 *   <li><b>Data list</b> — a {@link ListManager} of cells; a cell's index is its position there,
 *       so index to memory is O(1) ({@link #cellChunk}, {@link #cellOffset}) and no pointer to
 *       index scan exists (Taichi's {@code ptr2index} is linear; we store indices). The data
 *       list's length is the number of cells that have memory ({@code cellsAllocated}); it only
 *       grows, except when {@link #unallocate} undoes growth.</li>
 *   <li><b>Free list</b> — a {@link ListManager} of cell indices ({@link IndexListDescriptor}).
 *       Entries {@code [cursor, length)} are free and not yet taken; the cursor advances by an
 *       atomic add of a whole batch (and may run past the length, which then means "empty");
 *       length and cursor change otherwise only during collection.</li>
 *   <li><b>Recycled list</b> — a {@link ListManager} of the indices of recycled cells; their memory
 *       is not reused until the next collection zeroes them and moves them to the free list.</li>
 *   <li><b>Thread caches</b> — each thread that allocates keeps a small stack of free cell indices
 *       (like Netty's {@code PoolThreadCache} or a TLAB). It refills the stack with one atomic step
 *       (a batch of up to {@link #cacheBatch()} entries from the free list, or a batch of up to
 *       {@link #growthBatch()} new cells at the end of the data list), so threads meet on the shared
 *       cursor once per batch instead of at every allocation. Cached cells count as free. The
 *       growth batch is at most the first data chunk's size, so the first cell of an SNode costs
 *       one small chunk per list.</li>
 * </ul>
 * Both index lists always have chunks for {@code cellsAllocated} entries (they grow with the
 * data list, in the same step), so recycling and collection never allocate memory and cannot
 * fail for lack of it.
 *
 * <h2>Allocation and collection protocol</h2>
 * <b>Assumptions</b> (what callers must do):
 * <ol>
 *   <li>{@link #allocate}, {@link #unallocate} and {@link #recycle} may run concurrently from any
 *       number of threads.</li>
 *   <li>{@link #collect}, {@link #drainThreadCaches}, {@link #resetFreeList} and writes to the raw
 *       lists run only while no allocate, unallocate or recycle runs on this manager, and the
 *       caller's exclusion provides happens-before in both directions (the runtime's phase lock:
 *       launches hold it shared, the collector exclusively).</li>
 *   <li>A cell is recycled at most once per time it is handed out, and only while in use; a cell
 *       is unallocated at most once, only by a caller that allocated it and never published it.</li>
 *   <li>{@link #close} does not run concurrently with anything else on this manager.</li>
 * </ol>
 * <b>Guarantees</b>:
 * <ol>
 *   <li>Every index {@link #allocate} returns is distinct from every other index in use, and the
 *       cell reads all-zero (fresh chunks are zeroed by the allocator; recycled cells are zeroed by
 *       collection; unallocated cells are zeroed by {@link #unallocate}).</li>
 *   <li>Reuse before growth: a thread takes cells from its cache, then from the shared free list,
 *       and only when both are empty does the data list grow. (Cells cached by <em>other</em>
 *       live threads are not stolen; about {@code cacheBatch} cells per thread wait there until
 *       that thread allocates again or the next collection drains them. Those of threads that
 *       ended are taken over: by a thread's first allocation, among the oldest caches, and by a
 *       refill whose growth was refused, before the refusal reaches the caller; see
 *       {@link ThreadCaches}.)</li>
 *   <li>A recycled cell's memory is not reused before the next collection, so a reader that still
 *       holds its index during a launch sees its old contents, never another cell's.</li>
 *   <li>A failed allocation (memory cap, allocator failure, full index space) changes nothing:
 *       chunks created for the failed growth are freed, counters read as before.</li>
 *   <li>{@link #unallocate} exactly reverses the most recent {@link #allocate} of the calling thread
 *       that returned that index, counters and chunks included (growth that this allocation caused
 *       is undone and its chunks freed), provided no other thread moved the shared free-list cursor
 *       or grew the data list in between; several allocations are reversed exactly when undone in
 *       reverse order. Otherwise the cell (zeroed) goes back to the calling thread's cache as a free
 *       cell, or, if that cache is full, to the recycled list: it is never lost and never handed out
 *       twice, but the counters then differ from before the allocation (more cells allocated or
 *       free). An allocation served by the cells of an ended thread's cache (a refused growth's
 *       take-over, see {@link ThreadCaches}) is undone the same way, inexactly: its cache may be
 *       full.</li>
 *   <li>After {@link #collect}: every recycled cell is zeroed and free, the recycled list is empty,
 *       all cached cells are back in the free list, the free list is compacted to start at entry 0
 *       with cursor 0; cells in use are untouched.</li>
 *   <li>Metrics ({@link #metrics()}) are exact when the manager is quiescent; read concurrently
 *       with allocations they may be stale by the work in flight.</li>
 * </ol>
 * <b>Progress</b>: allocation from the thread's cache is wait-free; a refill from the free list is
 * wait-free (one atomic add on the cursor claims a batch);
 * a thread's first allocation looks at a few other caches (lock-free); a refused growth looks at
 * every cache for one whose thread ended (linear in the caches); growth is blocking (one growth lock per manager, held while the chunks are allocated and zeroed,
 * once per batch of cells; a growth that the cap refused is refused again without the lock while
 * the pool still lacks the room, so refusals under contention do not queue); recycle is lock-free (a compare-and-set append); collection runs on
 * the calling thread in time linear in the free-list tail, the cached cells and the recycled cells.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (MemoryPool pool = new MemoryPool();
 *      NodeManager cells = new NodeManager(pool, "root.pointer", 64, 8)) {
 *     int cell = cells.allocate();                 // zeroed
 *     MemorySegment chunk = cells.cellChunk(cell);
 *     long offset = cells.cellOffset(cell);
 *     chunk.set(ValueLayout.JAVA_FLOAT, offset, 1f);
 *     cells.recycle(cell);                         // memory kept until collect()
 *     cells.collect();                             // between launches: zeroes it, frees it
 * }
 * }</pre>
 *
 * <p>How a thread cache refills and how {@link #unallocate} undoes an allocation exactly: see
 * {@link ThreadCaches}.
 */
public final class NodeManager implements AutoCloseable {

    /**
     * Largest number of cells a thread cache takes in one refill. Each refill moves the shared
     * cursor's cache line to the refilling core (100-200 ns when it comes from another core), so
     * the batch must be large enough for that to vanish against the allocations it serves.
     */
    public static final int MAX_CACHE_BATCH = 512;
    /** The default batch holds at most this many bytes of cells, so big cells are not hoarded. */
    public static final long CACHE_BATCH_BYTES = 16 * 1024;
    /** Cell indices are non-negative {@code int}s. */
    public static final long MAX_CELLS = Integer.MAX_VALUE;
    /** A region has room for this many cells per cell of the index space (see the constructor). */
    public static final long REGION_CELLS_PER_INDEX = 4;
    /** The least address space a manager with a region reserves: 4 GiB (room for churn between collections). */
    public static final long REGION_MIN_BYTES = 4L << 30;
    /** The largest region a manager reserves: 256 GiB of address space. */
    public static final long REGION_LIMIT_BYTES = 256L << 30;

    private final MemoryPool pool;
    private final MemoryPool.Owner owner;
    private final ListManager data;
    private final ListManager freeList;
    private final ListManager recycled;
    private final long cellStride;
    /** The data list's region, or null. */
    private final MemorySegment region;
    private final int cacheBatch;
    private final int growthBatch;
    /** Cells this manager can hand out at most (indices below it). */
    private final long maxCells;
    private final Growth growth;
    private final ThreadCaches caches;

    /**
     * Free-list entries below this are taken. Access: getAcquire, compareAndSet, setRelease.
     * Padded: it is the one field threads write to each other, and must not share a
     * cache line with the fields every allocation reads.
     */
    private final Padding.Cursor freeCursor = new Padding.Cursor();
    private volatile boolean closed;

    /** A manager with the {@link #defaultCacheBatch default cache batch} for its cell size. */
    public NodeManager(MemoryPool pool, String ownerName, long cellSize, long cellAlignment) {
        this(pool, ownerName, cellSize, cellAlignment, -1);
    }

    /**
     * A manager whose memory is charged to the pool owner {@code ownerName} (the SNode's path).
     * It allocates nothing until the first {@link #allocate()}.
     *
     * @param cellSize      bytes per cell, positive
     * @param cellAlignment power of two, at most 4096
     * @param cacheBatch    cells a thread cache takes per refill, 1 to {@link #MAX_CACHE_BATCH};
     *                      (growth takes at most the first data chunk's cells per refill);
     *                      1 makes every allocation go to the shared free list or growth (counters
     *                      then move exactly like Taichi's); -1 for {@link #defaultCacheBatch}
     */
    public NodeManager(MemoryPool pool, String ownerName, long cellSize, long cellAlignment, int cacheBatch) {
        this(pool, ownerName, cellSize, cellAlignment, cacheBatch, 0);
    }

    /**
     * A manager as above whose cells lie in one reserved region ({@link MemoryPool#reserveRegion})
     * when {@code indexSpace > 0} and the pool's allocator has regions: room for
     * {@link #REGION_CELLS_PER_INDEX} times the {@code indexSpace} cells that can be active at once
     * (cells recycled and not yet collected take room too), and at least {@link #REGION_MIN_BYTES}
     * of address space (never more than {@link #MAX_CELLS} cells). Where that is more than
     * {@link #REGION_LIMIT_BYTES} (a hash node's children, a dynamic node's chunks, a pointer
     * node of a vast index space), the region is {@link #REGION_LIMIT_BYTES} when the pool's cap is
     * at most that (every part of a region handed out counts against the cap before it is used,
     * so the cap refuses before the region is full), and the cells live in chunks of their own,
     * as without a region, when the cap is larger. In a region, cell {@code i} is at byte
     * {@code i * cellStride()} of {@link #region()}.
     */
    public NodeManager(MemoryPool pool, String ownerName, long cellSize, long cellAlignment, int cacheBatch,
                       long indexSpace) {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(ownerName, "ownerName");
        ChunkGeometry cells = ChunkGeometry.of(cellSize, cellAlignment);
        if (cacheBatch == -1) {
            cacheBatch = defaultCacheBatch(cells.elementStride());
        } else if (cacheBatch < 1 || cacheBatch > MAX_CACHE_BATCH) {
            throw new IllegalArgumentException("cacheBatch=" + cacheBatch
                    + " (must be in [1, " + MAX_CACHE_BATCH + "] or -1 for the default)");
        }
        this.pool = pool;
        this.owner = pool.owner(ownerName);
        this.data = new ListManager(owner, cellSize, cellAlignment, region(pool, owner, cellSize, cellAlignment, indexSpace));
        this.region = data.region();
        this.freeList = new ListManager(owner, IndexListDescriptor.ELEMENT_SIZE, IndexListDescriptor.ELEMENT_ALIGNMENT);
        this.recycled = new ListManager(owner, IndexListDescriptor.ELEMENT_SIZE, IndexListDescriptor.ELEMENT_ALIGNMENT);
        this.cellStride = cells.elementStride();
        this.cacheBatch = cacheBatch;
        this.growthBatch = (int) Math.min(cacheBatch, cells.firstChunkElements());
        this.maxCells = Math.min(MAX_CELLS, Math.min(data.maxElements(), freeList.maxElements()));
        this.growth = new Growth(this, data, freeList, recycled, maxCells, growthBatch);
        this.caches = new ThreadCaches(Math.max(2, 2 * cacheBatch));
    }

    /** The region for {@code indexSpace} cells (see the constructor), or null. */
    private static MemoryPool.Region region(MemoryPool pool, MemoryPool.Owner owner, long cellSize, long cellAlignment,
                                            long indexSpace) {
        if (indexSpace <= 0) {
            return null;
        }
        ChunkGeometry geometry = ChunkGeometry.inRegion(cellSize, cellAlignment);
        long cells = indexSpace > MAX_CELLS / REGION_CELLS_PER_INDEX ? MAX_CELLS : indexSpace * REGION_CELLS_PER_INDEX;
        cells = Math.min(MAX_CELLS, Math.max(cells, REGION_MIN_BYTES / geometry.elementStride()));
        long bytes = geometry.bytesOfChunks(geometry.chunksFor(cells));
        if (bytes > REGION_LIMIT_BYTES) {
            if (pool.capBytes() > REGION_LIMIT_BYTES) {
                return null; // the cap would let the cells outgrow the largest region
            }
            // More cells can be active than the largest region holds, but every part of a region
            // handed out counts against the cap first, so the cap refuses before the region is full.
            bytes = geometry.bytesOfChunks(chunksWithin(geometry, geometry.chunksFor(cells), REGION_LIMIT_BYTES));
        }
        // One cell more: the zero cell after the chunks (ListManager#zeroElementOffset).
        return pool.reserveRegion(owner, bytes + geometry.elementStride());
    }

    /** The most chunks, of at most {@code chunks}, whose bytes fit in {@code limit}. */
    private static int chunksWithin(ChunkGeometry geometry, int chunks, long limit) {
        int low = 0; // fits
        int high = chunks; // does not fit
        while (high - low > 1) {
            int middle = (low + high) >>> 1;
            if (geometry.bytesOfChunks(middle) <= limit) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /**
     * The default cache batch: as many cells as fit {@link #CACHE_BATCH_BYTES}, rounded down to a
     * power of two, between 1 and {@link #MAX_CACHE_BATCH}. A 16-byte cell gets 512, a 64-byte cell 256, a 1 KiB cell
     * 16, a cell of 16 KiB or more 1.
     */
    public static int defaultCacheBatch(long cellStride) {
        long fit = CACHE_BATCH_BYTES / cellStride;
        if (fit <= 1) {
            return 1;
        }
        return (int) Math.min(MAX_CACHE_BATCH, Long.highestOneBit(fit));
    }

    // ---------------------------------------------------------------- allocation (concurrent)

    /**
     * Hands out a zeroed cell and returns its index.
     *
     * @throws io.snode.api.MemoryCapExceededException if growth would exceed the pool's cap; nothing changed
     * @throws IllegalStateException if the manager or its pool is closed, or all {@link #MAX_CELLS} cells exist
     */
    public int allocate() {
        checkOpen();
        ThreadCaches.Cache cache = caches.get();
        int top = cache.size;
        if (top == 0) {
            refill(cache);
            top = cache.size;
        }
        cache.size = --top;
        cache.popped++;
        return cache.stack[top];
    }

    /** Fills the empty cache from the free list, else by growth; throws leaving everything unchanged. */
    private void refill(ThreadCaches.Cache cache) {
        // The free list's length changes only during collection, which does not run now (Assumption 2).
        // One atomic add claims a whole batch: a single transfer of the cursor's cache line from the
        // core that last refilled (a read before a compare-and-set would cost two). When the list is
        // short or empty the cursor runs past its length; entries at or beyond the length are never
        // read, and readers of the cursor clamp it (freeListCursor(), drainThreadCaches()).
        long length = freeList.size();
        long start = freeCursor.getAndAdd(cacheBatch);
        if (start < length) {
            int n = (int) Math.min(cacheBatch, length - start);
            freeList.copyInts(start, cache.stack, 0, n);
            ThreadCaches.reverse(cache.stack, n); // the lowest entry on top: cells go out in free-list order
            cache.refilled(ThreadCaches.REFILL_FROM_FREE_LIST, start, start + cacheBatch, 0, 0, 0, n);
            return;
        }
        try {
            growth.refill(cache);
        } catch (RuntimeException | Error refused) {
            // Refused (the cap, an allocator fault, which may be an Error such as Arena.allocate's
            // OutOfMemoryError, a full index space), having changed nothing:
            // cells that threads which ended left cached serve first. A closed manager or pool
            // stays refused, and so does a growth whose undo itself failed (its suppressed
            // exceptions say so, and must reach the caller).
            if (closed || pool.isClosed() || refused.getSuppressed().length > 0 || !caches.takeOverEnded(cache)) {
                throw refused;
            }
        }
    }

    /**
     * Takes back a cell that the caller allocated and never published, zeroing it; see
     * Guarantee 5 in the class comment for when the reversal is exact. Used by the node
     * algorithms to hand back cells an activation reserved and did not publish.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not a cell of this manager
     * @throws IllegalStateException     if the manager or its pool is closed
     */
    public void unallocate(int index) {
        checkOpen();
        checkCell(index);
        zeroCell(index);
        ThreadCaches.Cache cache = caches.get();
        if (!cache.push(index)) {
            // The cache is full: the long way, through the recycled list (zeroed again at collection).
            recycled.appendInt(index);
            return;
        }
        if (cache.backAtRefill()) {
            undoRefill(cache);
        }
    }

    /** The cache is exactly as its last refill left it: give the batch back if nobody moved past it. */
    private void undoRefill(ThreadCaches.Cache cache) {
        if (cache.refill == ThreadCaches.REFILL_FROM_FREE_LIST) {
            if (freeCursor.compareAndSet(cache.refillEnd, cache.refillStart)) {
                cache.size = 0;
            }
        } else {
            growth.undo(cache);
        }
        cache.forgetRefill();
    }

    /**
     * Puts a cell on the recycled list. Its memory is neither zeroed nor reused until the next
     * {@link #collect()}; until then readers holding the index still see its contents.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not a cell of this manager
     */
    public void recycle(int index) {
        checkOpen();
        checkCell(index);
        recycled.appendInt(index);
    }

    // ---------------------------------------------------------------- cell access (hot paths)

    /** The chunk holding cell {@code index}: O(1), no allocation. */
    public MemorySegment cellChunk(int index) {
        return region != null ? region : data.chunkFor(index);
    }

    /** Byte offset of cell {@code index} in {@link #cellChunk}: O(1) arithmetic, no checks. */
    public long cellOffset(int index) {
        return region != null ? index * cellStride : data.offsetFor(index);
    }

    /** The most cells this manager hands out: every index it returns is below this. */
    public long maxCells() {
        return maxCells;
    }

    /**
     * The offset in {@link #region()} of the zero cell, a cell's bytes past every cell this
     * manager can hand out: never handed out, never written, reading zero. Reads of an inactive
     * pointer land there, so that generated code reads through the region constant alone. -1 when
     * cells live in chunks.
     */
    public long zeroCellOffset() {
        return data.zeroElementOffset();
    }

    /** The region holding every cell (cell {@code i} at {@code i * cellStride()}), or null when cells live in chunks. */
    public MemorySegment region() {
        return region;
    }

    /** Sets every byte of cell {@code index} (its whole stride) to zero, writing only pages that do not read zero ({@link WrittenPages}). */
    public void zeroCell(int index) {
        WrittenPages.zeroCells(data.chunkFor(index), data.offsetFor(index), cellStride, cellStride);
    }

    public long cellStride() {
        return cellStride;
    }

    public long cellSize() {
        return data.elementSize();
    }

    /** Cells a thread cache takes per refill from the free list, at most. */
    public int cacheBatch() {
        return cacheBatch;
    }

    /** Cells a thread cache takes per refill by growth: {@code min(cacheBatch, cells in the first data chunk)}. */
    public int growthBatch() {
        return growthBatch;
    }

    public MemoryPool.Owner owner() {
        return owner;
    }

    // ---------------------------------------------------------------- collection (exclusive)

    /**
     * The serial collector (Taichi's CPU {@code gc_serial}): drains the thread caches, compacts the
     * untaken tail of the free list to its head, zeroes every recycled cell and appends it to the
     * free list, clears the recycled list and resets the cursor. Exclusive (Assumption 2).
     *
     * @throws IllegalStateException if there are more free and recycled cells than cells (a cell
     *                               was recycled twice); nothing is changed then
     */
    public void collect() {
        checkOpen();
        long recycledCount = recycled.size();
        long free = freeList.size() - freeListCursor() + caches.cachedCells();
        if (free + recycledCount > data.size()) {
            throw new IllegalStateException("node manager of " + owner.name() + ": free=" + free + " recycled="
                    + recycledCount + " exceed cellsAllocated=" + data.size() + " (a cell was recycled twice?)");
        }
        drainThreadCaches();
        long length = freeList.size();
        long cursor = freeListCursor();
        long tail = length - cursor;
        // Compact: entries [cursor, length) move to [0, tail). Forward copy; destination below source.
        if (cursor > 0) {
            for (long i = 0; i < tail; i++) {
                freeList.setInt(i, freeList.getInt(cursor + i));
            }
        }
        for (long i = 0; i < recycledCount; i++) {
            int cell = recycled.getInt(i);
            zeroCell(cell);
            freeList.setInt(tail + i, cell);
        }
        freeList.setSize(tail + recycledCount);
        freeCursor.setRelease(0L);
        recycled.clear();
    }

    /**
     * Moves every cell held by thread caches back into the free list, keeping its form (untaken
     * entries are {@code [cursor, length)}): cached cells go into taken slots just below the
     * cursor, or after the end when the cursor reaches 0 (there is room: free cells never outnumber
     * cells, and the free list has chunks for every cell). Forgets every cache's refill record and
     * drops the caches of threads that ended. Exclusive (Assumption 2); collection's first step,
     * exposed for a parallel collector.
     */
    public void drainThreadCaches() {
        checkOpen();
        freeCursor.setRelease(caches.drainInto(freeList, freeListCursor())); // the cursor clamped to the length
    }

    /** The data list (cells). Raw access for the collector and codegen; never resize it. */
    public ListManager dataList() {
        return data;
    }

    /**
     * The free list: {@link IndexListDescriptor} entries; {@code [freeListCursor(), freeListLength())}
     * are free. A collector may write entries below its capacity and then call {@link #resetFreeList}.
     */
    public ListManager freeList() {
        return freeList;
    }

    /** The recycled list: {@link IndexListDescriptor} entries; a collector clears it after refilling. */
    public ListManager recycledList() {
        return recycled;
    }

    public long freeListLength() {
        return freeList.size();
    }

    /** Entries of the free list already taken (acquire load), at most {@link #freeListLength()}. */
    public long freeListCursor() {
        // The raw cursor may run past the length when refills found the list short or empty.
        return Math.min(freeCursor.getAcquire(), freeList.size());
    }

    public long recycledListLength() {
        return recycled.size();
    }

    /**
     * Declares entries {@code [0, length)} of the free list free and resets the cursor to 0
     * (release stores). Exclusive (Assumption 2); a parallel collector's last step before
     * clearing the recycled list.
     */
    public void resetFreeList(long length) {
        checkOpen();
        freeList.setSize(length);
        freeCursor.setRelease(0L);
    }

    // ---------------------------------------------------------------- metrics and lifecycle

    /** The counters; exact when no thread allocates, unallocates or recycles concurrently. */
    public NodeManagerMetrics metrics() {
        long allocated = data.size();
        long length = freeList.size();
        long cursor = freeListCursor();
        long cached = caches.cachedCells();
        long recycledCount = recycled.size();
        long free = Math.max(0, length - cursor) + cached;
        long inUse = allocated - free - recycledCount;
        return new NodeManagerMetrics(owner.name(), cellStride, allocated, inUse, free, cached, recycledCount,
                length, cursor, data.chunkCount() + freeList.chunkCount() + recycled.chunkCount(),
                data.bytesReserved() + freeList.bytesReserved() + recycled.bytesReserved(),
                data.bytesReserved());
    }

    public boolean isClosed() {
        return closed || pool.isClosed();
    }

    /** Frees the three lists' chunks; idempotent. Not concurrent with other calls (Assumption 4). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (ListManager list : new ListManager[] {data, freeList, recycled}) {
            try {
                list.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        caches.clear();
        if (failure != null) {
            throw failure;
        }
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("node manager of " + owner.name() + " is closed");
        }
        pool.checkOpen();
    }

    private void checkCell(int index) {
        long allocated = data.size();
        if (index < 0 || index >= allocated) {
            throw new IndexOutOfBoundsException("index=" + index + " (must be in [0, cellsAllocated=" + allocated + "))");
        }
    }

    @Override
    public String toString() {
        return "NodeManager" + metrics();
    }
}
