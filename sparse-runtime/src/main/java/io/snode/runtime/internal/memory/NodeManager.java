package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

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
 *       threads are not stolen; about {@code cacheBatch} cells per thread wait there until that
 *       thread allocates again or the next collection drains them.)</li>
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
 *       free).</li>
 *   <li>After {@link #collect}: every recycled cell is zeroed and free, the recycled list is empty,
 *       all cached cells are back in the free list, the free list is compacted to start at entry 0
 *       with cursor 0; cells in use are untouched.</li>
 *   <li>Metrics ({@link #metrics()}) are exact when the manager is quiescent; read concurrently
 *       with allocations they may be stale by the work in flight.</li>
 * </ol>
 * <b>Progress</b>: allocation from the thread's cache is wait-free; a refill from the free list is
 * wait-free (one atomic add on the cursor claims a batch);
 * growth is blocking (one growth lock per manager, held while the chunks are allocated and zeroed,
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
 * <h2>Thread caches and exact undo (implementation notes)</h2>
 * A cache is an {@code int} stack whose top is the next cell to hand out. A refill happens only
 * when the stack is empty and fills it in one step; the cache records where the batch came from
 * (the cursor moved from {@code start} to {@code end}, or data-list growth from {@code start} to {@code end}
 * with the chunk counts of the three lists before it). A pop leaves the popped value in its slot,
 * so a later {@code unallocate(i)} whose slot above the top still holds {@code i} is an exact LIFO
 * reversal; when such reversals bring the cache back to the state right after the refill, the
 * refill itself is undone: the free-list cursor is moved back by compare-and-set (which fails,
 * harmlessly, if another thread took entries since: cursors only grow between collections), or,
 * under the growth lock, the data list is shrunk back and the chunks created are freed if the data
 * list's length is still the batch's end. Any other push forgets the refill record.
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

    private static final VarHandle FREE_CURSOR;

    static {
        try {
            FREE_CURSOR = MethodHandles.lookup().findVarHandle(CursorValue.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final byte NO_REFILL = 0;
    private static final byte REFILL_FROM_FREE_LIST = 1;
    private static final byte REFILL_FROM_GROWTH = 2;

    private final MemoryPool pool;
    private final MemoryPool.Owner owner;
    private final ListManager data;
    private final ListManager freeList;
    private final ListManager recycled;
    private final long cellStride;
    private final int cacheBatch;
    private final int growthBatch;
    private final long maxCells;
    /** Serialises growth and the undo of growth of the three lists. */
    private final ReentrantLock growthLock = new ReentrantLock();
    private final ThreadLocal<ThreadCache> caches;
    /** Every cache ever handed to a thread and not pruned; iterated by collection and metrics. */
    private final CopyOnWriteArrayList<ThreadCache> allCaches = new CopyOnWriteArrayList<>();

    /**
     * Free-list entries below this are taken. Access: getAcquire, compareAndSet, setRelease
     * (FREE_CURSOR). Padded: it is the one field threads write to each other, and must not share a
     * cache line with the fields every allocation reads.
     */
    private final PaddedCursor freeCursor = new PaddedCursor();
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
        this.data = new ListManager(owner, cellSize, cellAlignment);
        this.freeList = new ListManager(owner, IndexListDescriptor.ELEMENT_SIZE, IndexListDescriptor.ELEMENT_ALIGNMENT);
        this.recycled = new ListManager(owner, IndexListDescriptor.ELEMENT_SIZE, IndexListDescriptor.ELEMENT_ALIGNMENT);
        this.cellStride = cells.elementStride();
        this.cacheBatch = cacheBatch;
        this.growthBatch = (int) Math.min(cacheBatch, cells.firstChunkElements());
        this.maxCells = Math.min(MAX_CELLS, Math.min(cells.maxElements(), freeList.maxElements()));
        int stackCapacity = Math.max(2, 2 * cacheBatch);
        this.caches = ThreadLocal.withInitial(() -> {
            ThreadCache cache = new ThreadCache(Thread.currentThread(), stackCapacity);
            allCaches.add(cache);
            return cache;
        });
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
        ThreadCache cache = caches.get();
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
    private void refill(ThreadCache cache) {
        // The free list's length changes only during collection, which does not run now (Assumption 2).
        // One atomic add claims a whole batch: a single transfer of the cursor's cache line from the
        // core that last refilled (a read before a compare-and-set would cost two). When the list is
        // short or empty the cursor runs past its length; entries at or beyond the length are never
        // read, and readers of the cursor clamp it (freeListCursor(), drainThreadCaches()).
        long length = freeList.size();
        long start = (long) FREE_CURSOR.getAndAdd(freeCursor, (long) cacheBatch);
        if (start < length) {
            int n = (int) Math.min(cacheBatch, length - start);
            freeList.copyInts(start, cache.stack, 0, n);
            reverse(cache.stack, n); // the lowest entry on top: cells go out in free-list order
            cache.refilled(REFILL_FROM_FREE_LIST, start, start + cacheBatch, 0, 0, 0, n);
            return;
        }
        grow(cache);
    }

    /**
     * A growth from {@code cells} cells was refused by the cap for a chunk of {@code bytes}.
     * Growth from the same length asks for the same chunks in the same order, so while the pool
     * holds more than {@code cap - bytes} it would be refused again.
     */
    private record Refusal(long cells, long bytes) {
    }

    /** The latest refusal by the cap, or null; written under the growth lock, read without it. */
    private volatile Refusal lastRefusal;

    /**
     * Refuses a growth that would certainly be refused, before taking the growth lock: threads
     * that hit the cap at once do not queue on the lock to be told one at a time (a refused call
     * stays about as cheap under contention as alone). Benign race: the data list's length and
     * the pool's bytes are read without the lock; if either moved, the slow path decides.
     */
    private void refuseAgainWithoutTheLock() {
        Refusal refusal = lastRefusal;
        if (refusal != null && refusal.cells() == data.size()) {
            long held = pool.bytesReserved();
            if (refusal.bytes() > pool.capBytes() - held) {
                throw new MemoryCapExceededException(owner.name(), held, refusal.bytes(), pool.capBytes());
            }
        }
    }

    private static void reverse(int[] a, int n) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    private void grow(ThreadCache cache) {
        refuseAgainWithoutTheLock();
        growthLock.lock();
        try {
            checkOpen();
            long start = data.size();
            if (start >= maxCells) {
                throw new IllegalStateException("node manager of " + owner.name() + " is full: cellsAllocated="
                        + start + " maxCells=" + maxCells);
            }
            long end = Math.min(maxCells, start + growthBatch);
            int dataChunks = data.chunkCount();
            int freeChunks = freeList.chunkCount();
            int recycledChunks = recycled.chunkCount();
            try {
                // Index lists first and always as long as the data list: collection and recycling never allocate.
                freeList.ensureCapacity(end);
                recycled.ensureCapacity(end);
                data.ensureCapacity(end);
            } catch (Throwable t) {
                trimAll(dataChunks, freeChunks, recycledChunks, t);
                if (t instanceof MemoryCapExceededException cap) {
                    lastRefusal = new Refusal(start, cap.bytesRequested());
                }
                throw t;
            }
            data.setSize(end);
            int n = (int) (end - start);
            for (int i = 0; i < n; i++) {
                cache.stack[n - 1 - i] = (int) (start + i);
            }
            cache.refilled(REFILL_FROM_GROWTH, start, end, dataChunks, freeChunks, recycledChunks, n);
        } finally {
            growthLock.unlock();
        }
    }

    /** Frees the chunks created after the given counts; failures are added to {@code cause} if there is one. */
    private void trimAll(int dataChunks, int freeChunks, int recycledChunks, Throwable cause) {
        ListManager[] lists = {data, freeList, recycled};
        int[] keep = {dataChunks, freeChunks, recycledChunks};
        RuntimeException failure = null;
        for (int i = 0; i < lists.length; i++) {
            try {
                lists[i].trimChunks(keep[i]);
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
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
        ThreadCache cache = caches.get();
        int top = cache.size;
        if (top == cache.stack.length) {
            // The cache is full: the long way, through the recycled list (zeroed again at collection).
            recycled.appendInt(index);
            return;
        }
        // A pop leaves the popped index in its slot: if the slot holds this index, this undoes the last pop.
        boolean undoesLastPop = cache.popped > 0 && cache.stack[top] == index;
        cache.stack[top] = index;
        cache.size = top + 1;
        if (!undoesLastPop) {
            cache.forgetRefill();
            return;
        }
        if (--cache.popped == 0 && cache.refill != NO_REFILL) {
            undoRefill(cache);
        }
    }

    /** The cache is exactly as its last refill left it: give the batch back if nobody moved past it. */
    private void undoRefill(ThreadCache cache) {
        if (cache.refill == REFILL_FROM_FREE_LIST) {
            if (FREE_CURSOR.compareAndSet(freeCursor, cache.refillEnd, cache.refillStart)) {
                cache.size = 0;
            }
        } else {
            growthLock.lock();
            try {
                if (data.size() == cache.refillEnd) {
                    data.setSize(cache.refillStart);
                    cache.size = 0;
                    trimAll(cache.dataChunksBefore, cache.freeChunksBefore, cache.recycledChunksBefore, null);
                }
            } finally {
                growthLock.unlock();
            }
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
        return data.chunkFor(index);
    }

    /** Byte offset of cell {@code index} in {@link #cellChunk}: O(1) arithmetic, no checks. */
    public long cellOffset(int index) {
        return data.offsetFor(index);
    }

    /** Sets every byte of cell {@code index} (its whole stride) to zero. */
    public void zeroCell(int index) {
        data.chunkFor(index).asSlice(data.offsetFor(index), cellStride).fill((byte) 0);
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
        long cached = 0;
        for (ThreadCache cache : allCaches) {
            cached += cache.size;
        }
        long recycledCount = recycled.size();
        long free = freeList.size() - freeListCursor() + cached;
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
        FREE_CURSOR.setRelease(freeCursor, 0L);
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
        long length = freeList.size();
        long cursor = freeListCursor(); // clamped to the length
        for (ThreadCache cache : allCaches) {
            // In the order the cache would have handed them out (top of the stack first): the first
            // ones into taken slots just below the cursor, the rest after the end.
            int n = cache.size;
            int below = (int) Math.min(cursor, n);
            cursor -= below;
            for (int i = 0; i < below; i++) {
                freeList.setInt(cursor + i, cache.stack[n - 1 - i]);
            }
            for (int i = below; i < n; i++) {
                freeList.setInt(length++, cache.stack[n - 1 - i]);
            }
            cache.size = 0;
            cache.popped = 0;
            cache.forgetRefill();
            if (!cache.thread.isAlive()) {
                allCaches.remove(cache);
            }
        }
        freeList.setSize(length);
        FREE_CURSOR.setRelease(freeCursor, cursor);
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
        return Math.min((long) FREE_CURSOR.getAcquire(freeCursor), freeList.size());
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
        FREE_CURSOR.setRelease(freeCursor, 0L);
    }

    // ---------------------------------------------------------------- metrics and lifecycle

    /** The counters; exact when no thread allocates, unallocates or recycles concurrently. */
    public NodeManagerMetrics metrics() {
        long allocated = data.size();
        long length = freeList.size();
        long cursor = freeListCursor();
        long cached = 0;
        for (ThreadCache cache : allCaches) {
            // Benign race: another thread's cache size, read plain; stale at worst while it allocates.
            cached += cache.size;
        }
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
        allCaches.clear();
        caches.remove();
        if (failure != null) {
            throw failure;
        }
    }

    private void checkOpen() {
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

    /** Padding before the cursor (a full cache line plus one, against adjacent-line prefetch). */
    @SuppressWarnings("unused")
    private abstract static class CursorPadBefore {
        int headerGap; // see ThreadCachePad
        long p00, p01, p02, p03, p04, p05, p06, p07;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    private abstract static class CursorValue extends CursorPadBefore {
        @SuppressWarnings("unused")
        long value;
    }

    /** The free-list cursor with padding on both sides; fields of a superclass are laid out first. */
    @SuppressWarnings("unused")
    private static final class PaddedCursor extends CursorValue {
        long q00, q01, q02, q03, q04, q05, q06, q07;
        long q10, q11, q12, q13, q14, q15, q16, q17;
    }

    /**
     * Padding before a thread cache's fields (two cache lines). The {@code int} takes the 4-byte gap
     * after the object header: without it HotSpot puts a subclass's {@code int} there (it fills
     * empty slots of superclasses), in front of the padding; that is where {@code size} landed.
     */
    @SuppressWarnings("unused")
    private abstract static class ThreadCachePad {
        int headerGap;
        long p00, p01, p02, p03, p04, p05, p06, p07;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    /**
     * One thread's cells. Fields are written by the owning thread only, except during exclusive
     * operations (drain, collection), whose exclusion gives the happens-before edges; metrics read
     * {@link #size} racily. Padded on both sides: after a garbage collection has moved them, the
     * caches of two threads may sit next to each other, and {@link #size} is written at every
     * allocation (without padding, two threads allocating at once slowed each other down).
     */
    private abstract static class ThreadCacheFields extends ThreadCachePad {
        final Thread thread;
        /** Free cell indices; [0, size) are cached, the top is handed out next. */
        final int[] stack;
        int size;
        /** Pops since the last refill, minus exact LIFO push-backs. */
        int popped;
        byte refill = NO_REFILL;
        long refillStart;
        long refillEnd;
        int dataChunksBefore;
        int freeChunksBefore;
        int recycledChunksBefore;

        ThreadCacheFields(Thread thread, int capacity) {
            this.thread = thread;
            this.stack = new int[capacity];
        }
    }

    @SuppressWarnings("unused")
    private static final class ThreadCache extends ThreadCacheFields {
        long q00, q01, q02, q03, q04, q05, q06, q07;
        long q10, q11, q12, q13, q14, q15, q16, q17;

        ThreadCache(Thread thread, int capacity) {
            super(thread, capacity);
        }

        void refilled(byte kind, long start, long end, int dataChunks, int freeChunks, int recycledChunks, int n) {
            refill = kind;
            refillStart = start;
            refillEnd = end;
            dataChunksBefore = dataChunks;
            freeChunksBefore = freeChunks;
            recycledChunksBefore = recycledChunks;
            popped = 0;
            size = n;
        }

        void forgetRefill() {
            refill = NO_REFILL;
        }
    }
}
