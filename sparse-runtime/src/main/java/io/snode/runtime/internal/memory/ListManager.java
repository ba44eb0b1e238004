package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Taichi's "infinitely long" list of fixed-size elements, off-heap, in chunks that are allocated
 * on first touch and grow geometrically ({@link ChunkGeometry}), with O(1) index lookup.
 *
 * <p>What it promises:
 * <ul>
 *   <li><b>Memory grows with use.</b> Chunk {@code k} is allocated only when an index in it is
 *       appended or {@link #ensureCapacity touched}; chunks start at about 4 KiB and double up to
 *       the largest chunk (128 Ki elements, at most 128 MiB), so the memory held is at most about
 *       twice the memory used plus one largest chunk. The first element costs one small chunk.</li>
 *   <li><b>Chunks form a prefix.</b> Chunks {@code 0 .. chunkCount()-1} exist, no others;
 *       indices below {@link #capacity()} have memory.</li>
 *   <li><b>O(1), allocation-free lookup.</b> {@link #chunkFor(long)} and {@link #offsetFor(long)}
 *       are a few bit operations and two loads, no scan, no object allocated.</li>
 *   <li><b>Atomic append.</b> {@link #append()} first makes sure the chunk for the next index
 *       exists (double-checked: lock-free check, then the growth lock), then claims the index
 *       with a compare-and-set on the size. A failed chunk allocation (cap, allocator failure)
 *       therefore leaves the size unchanged; at most one chunk is created per append.</li>
 *   <li><b>Lazy clear.</b> {@link #clear()} only resets the size; chunks and their contents stay
 *       (and stay readable). Elements appended later are <em>not</em> zeroed: they hold whatever
 *       was written before the clear (all-zero in chunks never written).</li>
 *   <li><b>Safe after close.</b> After {@link #close()} (or the pool's close) every mutating call
 *       throws {@link IllegalStateException}; segments obtained earlier throw on access.</li>
 * </ul>
 *
 * <p>Memory ordering. A chunk reference is published with a release store after the allocator
 * zeroed the chunk, and read with an acquire load, so a thread that finds a chunk sees its zeroes.
 * {@link #append()} publishes the <em>index</em> (the size) before the caller writes the element;
 * readers that run concurrently with writers need their own publication of the element (the node
 * algorithms publish a cell through a release store of its parent's pointer).
 *
 * <p>Exclusive operations: {@link #setSize}, {@link #clear()}, {@link #trimChunks} and
 * {@link #close()} must not run concurrently with appends or with readers of the affected
 * elements; the owner (a node manager, the collector) guarantees that.
 */
public final class ListManager implements AutoCloseable {

    private static final VarHandle SIZE;
    private static final VarHandle CHUNK_COUNT;
    private static final VarHandle DIRECTORY;
    private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(ListManager.class, "size", long.class);
            CHUNK_COUNT = lookup.findVarHandle(ListManager.class, "chunkCount", int.class);
            DIRECTORY = lookup.findVarHandle(ListManager.class, "directory", MemorySegment[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final MemorySegment[] NO_CHUNKS = new MemorySegment[0];

    private final MemoryPool pool;
    private final MemoryPool.Owner owner;
    private final ChunkGeometry geometry;
    private final long maxElements;
    private final MemoryPool.Region region;
    /** Held while chunks are created or freed; never held while reading. */
    private final ReentrantLock growthLock = new ReentrantLock();

    /** Number of elements. Access: getAcquire, setRelease, compareAndSet (SIZE). */
    @SuppressWarnings("unused")
    private long size;
    /** Chunks 0..chunkCount-1 exist. Written under growthLock with setRelease, read with getAcquire. */
    @SuppressWarnings("unused")
    private int chunkCount;
    /** Chunk references by chunk index; replaced by a longer copy when full. Written under growthLock. */
    @SuppressWarnings("unused")
    private MemorySegment[] directory = NO_CHUNKS;
    private volatile boolean closed;

    /** A list charged to the pool owner named {@code ownerName}. */
    public ListManager(MemoryPool pool, String ownerName, long elementSize, long elementAlignment) {
        this(Objects.requireNonNull(pool, "pool").owner(ownerName), elementSize, elementAlignment);
    }

    /**
     * A list charged to {@code owner}; it allocates nothing until the first append or touch.
     *
     * @param elementSize      bytes per element, positive
     * @param elementAlignment power of two, at most 4096
     */
    public ListManager(MemoryPool.Owner owner, long elementSize, long elementAlignment) {
        this(owner, elementSize, elementAlignment, null);
    }

    /**
     * A list in {@code region} (or in chunks of its own when null): its chunks are the parts of
     * the region one after the other ({@link ChunkGeometry#inRegion}), so that
     * element {@code i} lies at byte {@code i * stride} of {@link #region()}; the list holds as
     * many elements as whole chunks fit the region with one element's bytes to spare after them:
     * the zero element ({@link #zeroElementOffset()}).
     */
    public ListManager(MemoryPool.Owner owner, long elementSize, long elementAlignment, MemoryPool.Region region) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.pool = owner.pool();
        this.region = region;
        if (region == null) {
            this.geometry = ChunkGeometry.of(elementSize, elementAlignment);
            this.maxElements = geometry.maxElements();
        } else {
            this.geometry = ChunkGeometry.inRegion(elementSize, elementAlignment);
            // Elements that fit with the zero element after them; whole chunks only: those before
            // the chunk that holds index `fit` end before the zero element.
            long fit = region.segment().byteSize() / geometry.elementStride() - 1;
            this.maxElements = fit >= geometry.maxElements() ? geometry.maxElements()
                    : geometry.chunkStart(geometry.chunkIndex(fit));
        }
        pool.checkOpen();
    }

    /**
     * For a list in a region: the byte offset in {@link #region()} of one element's bytes past
     * every chunk the list can have ({@code maxElements() * stride}). No element is ever there, so
     * nothing writes it and it reads zero (an untouched page of the region), and it lies inside the
     * region. -1 for a list in chunks of its own.
     */
    public long zeroElementOffset() {
        return region == null ? -1 : maxElements * geometry.elementStride();
    }

    /** The region the chunks lie in (element {@code i} at {@code i * stride}), or null for separate chunks. */
    public MemorySegment region() {
        return region == null ? null : region.segment();
    }

    public ChunkGeometry geometry() {
        return geometry;
    }

    public MemoryPool.Owner owner() {
        return owner;
    }

    public long elementSize() {
        return geometry.elementSize();
    }

    /** Bytes from one element to the next. */
    public long elementStride() {
        return geometry.elementStride();
    }

    /** The number of elements (acquire load). */
    public long size() {
        return (long) SIZE.getAcquire(this);
    }

    /** Chunks held. */
    public int chunkCount() {
        return (int) CHUNK_COUNT.getAcquire(this);
    }

    /** Elements that have memory: indices below this have a chunk. */
    public long capacity() {
        return geometry.chunkStart(chunkCount());
    }

    /** Bytes of the chunks held. */
    public long bytesReserved() {
        return geometry.bytesOfChunks(chunkCount());
    }

    /** Indices run from 0 to this value minus one. */
    public long maxElements() {
        return maxElements;
    }

    /**
     * Appends one element and returns its index. Lock-free while the chunk exists; takes the
     * growth lock to create it. The element's bytes are not cleared (see {@link #clear()}).
     *
     * @throws io.snode.api.MemoryCapExceededException if a new chunk would exceed the cap; the size is unchanged
     * @throws IllegalStateException if the list is closed or full ({@link #maxElements()})
     */
    public long append() {
        checkOpen();
        for (;;) {
            long index = (long) SIZE.getAcquire(this);
            if (index >= maxElements) {
                throw new IllegalStateException("list of " + owner.name() + " is full: size=" + index
                        + " maxElements=" + maxElements);
            }
            if (geometry.chunkIndex(index) >= (int) CHUNK_COUNT.getAcquire(this)) {
                ensureCapacity(index + 1);
            }
            if (SIZE.compareAndSet(this, index, index + 1)) {
                return index;
            }
            // Lost the race to another appender: try the next index (its chunk may exist already).
        }
    }

    /** Appends an element whose first four bytes are {@code value} (a list of ints); returns its index. */
    public long appendInt(int value) {
        long index = append();
        setInt(index, value);
        return index;
    }

    /**
     * Makes sure chunks exist for indices {@code [0, elements)}, allocating the missing ones in
     * order. Publishes nothing else, so a caller can materialise memory for an index before it
     * publishes the index. If an allocation fails, the chunks created before the failure stay
     * (they are valid capacity, and the size is unchanged).
     *
     * @throws io.snode.api.MemoryCapExceededException if a chunk would exceed the pool's cap
     */
    public void ensureCapacity(long elements) {
        if (elements < 0 || elements > maxElements) {
            throw new IllegalArgumentException("elements=" + elements + " (must be in [0, " + maxElements + "])");
        }
        int wanted = geometry.chunksFor(elements);
        if (wanted <= (int) CHUNK_COUNT.getAcquire(this)) {
            return;
        }
        growthLock.lock();
        try {
            checkOpen();
            int have = (int) CHUNK_COUNT.getAcquire(this);
            MemorySegment[] dir = (MemorySegment[]) DIRECTORY.getAcquire(this);
            for (int k = have; k < wanted; k++) {
                MemorySegment chunk = region == null ? pool.allocateChunk(owner, geometry.chunkBytes(k))
                        : pool.commitChunk(region, geometry.chunkStart(k) * geometry.elementStride(), geometry.chunkBytes(k));
                if (k >= dir.length) {
                    dir = Arrays.copyOf(dir, Math.max(8, Math.max(k + 1, dir.length * 2)));
                    DIRECTORY.setRelease(this, dir);
                }
                CHUNK.setRelease(dir, k, chunk);
                CHUNK_COUNT.setRelease(this, k + 1);
            }
        } finally {
            growthLock.unlock();
        }
    }

    /**
     * The chunk that holds {@code index}. O(1), allocates nothing.
     *
     * @throws IndexOutOfBoundsException if {@code index} is negative, beyond {@link #maxElements()}
     *                                   or has no chunk yet
     * @throws IllegalStateException     if the list is closed
     */
    public MemorySegment chunkFor(long index) {
        if (index < 0 || index >= maxElements) {
            throw new IndexOutOfBoundsException("index=" + index + " (must be in [0, " + maxElements + "))");
        }
        int k = geometry.chunkIndex(index);
        MemorySegment[] dir = (MemorySegment[]) DIRECTORY.getAcquire(this);
        if (k < dir.length) {
            MemorySegment chunk = (MemorySegment) CHUNK.getAcquire(dir, k);
            if (chunk != null) {
                return chunk;
            }
        }
        throw noChunk(index);
    }

    private RuntimeException noChunk(long index) {
        if (closed || pool.isClosed()) {
            return new IllegalStateException("list of " + owner.name() + " is closed");
        }
        return new IndexOutOfBoundsException("index=" + index + " has no chunk yet (capacity=" + capacity() + ")");
    }

    /** Byte offset of {@code index} in {@link #chunkFor(long) its chunk}. O(1), no checks. */
    public long offsetFor(long index) {
        return geometry.byteOffsetInChunk(index);
    }

    /** Whether {@link #releaseElements} gives pages back: a list in a region of a pool that releases free pages. */
    public boolean releasesFreePages() {
        return region != null && pool.releasesFreePages();
    }

    /**
     * The pages {@link #releaseElements} gives back: {@link MemoryPool#HUGE_PAGE} in a region with
     * huge pages, else a base page ({@link NativeRegions#PAGE}); 0 when it gives none back ({@link #releasesFreePages()} is false).
     */
    public long releasedPageBytes() {
        if (!releasesFreePages()) {
            return 0;
        }
        return region.hugePages() ? MemoryPool.HUGE_PAGE : NativeRegions.PAGE;
    }

    /**
     * For a list in a region: gives the whole pages of elements {@code [first, first + count)}
     * back to the system and zeroes the rest of their bytes ({@link MemoryPool#releasePages});
     * the elements read zero afterwards and stay part of the list and its chunks. A collector's
     * step over free cells (no other thread may use them). Returns false, doing nothing, for a
     * list of chunks of its own or in a pool that does not release free pages
     * ({@link MemoryPool#releasesFreePages()}).
     *
     * @throws IndexOutOfBoundsException if the range is not within {@link #size()}
     * @throws IllegalStateException     if the allocator fails (the range may then be partly zeroed)
     */
    public boolean releaseElements(long first, long count) {
        if (first < 0 || count < 0 || first + count > size()) {
            throw new IndexOutOfBoundsException("elements [" + first + ", " + (first + count) + ") of a list of "
                    + size());
        }
        if (region == null) {
            return false;
        }
        long stride = geometry.elementStride();
        return pool.releasePages(region, first * stride, count * stride);
    }

    /** Chunk {@code k} (0 &lt;= k &lt; chunkCount()). */
    public MemorySegment chunk(int k) {
        MemorySegment[] dir = (MemorySegment[]) DIRECTORY.getAcquire(this);
        MemorySegment chunk = k >= 0 && k < dir.length ? (MemorySegment) CHUNK.getAcquire(dir, k) : null;
        if (chunk == null) {
            if (closed || pool.isClosed()) {
                throw new IllegalStateException("list of " + owner.name() + " is closed");
            }
            throw new IndexOutOfBoundsException("k=" + k + " (chunkCount=" + chunkCount() + ")");
        }
        return chunk;
    }

    /** The int in the first four bytes of element {@code index} (plain load). */
    public int getInt(long index) {
        return chunkFor(index).get(ValueLayout.JAVA_INT, offsetFor(index));
    }

    /** Stores {@code value} in the first four bytes of element {@code index} (plain store). */
    public void setInt(long index, int value) {
        chunkFor(index).set(ValueLayout.JAVA_INT, offsetFor(index), value);
    }

    /**
     * Copies the ints of elements {@code [fromIndex, fromIndex + count)} into {@code dst}, with one
     * bulk copy per chunk. Only for lists of 4-byte elements (stride 4), such as index lists.
     */
    public void copyInts(long fromIndex, int[] dst, int dstIndex, int count) {
        if (geometry.elementStride() != Integer.BYTES) {
            throw new IllegalArgumentException("elementStride=" + geometry.elementStride() + " (copyInts needs 4)");
        }
        Objects.checkFromIndexSize(dstIndex, count, dst.length);
        while (count > 0) {
            MemorySegment chunk = chunkFor(fromIndex);
            int k = geometry.chunkIndex(fromIndex);
            long leftInChunk = geometry.chunkElements(k) - geometry.indexInChunk(fromIndex);
            int run = (int) Math.min(count, leftInChunk);
            MemorySegment.copy(chunk, ValueLayout.JAVA_INT, offsetFor(fromIndex), dst, dstIndex, run);
            fromIndex += run;
            dstIndex += run;
            count -= run;
        }
    }

    /**
     * Sets the size (release store), within the chunks held. Exclusive: no concurrent append.
     * Used by node managers to grow by a batch and by collectors to rewrite a free list.
     */
    public void setSize(long newSize) {
        checkOpen();
        long capacity = capacity();
        if (newSize < 0 || newSize > capacity) {
            throw new IllegalArgumentException("newSize=" + newSize + " (must be in [0, capacity=" + capacity + "])");
        }
        SIZE.setRelease(this, newSize);
    }

    /** Resets the size to zero; chunks and contents stay. Exclusive: no concurrent append. */
    public void clear() {
        checkOpen();
        SIZE.setRelease(this, 0L);
    }

    /**
     * Frees chunks {@code keepChunks .. chunkCount()-1}, the last first. Exclusive: no concurrent
     * append, touch or reader of those chunks. Used to undo growth exactly (a failed batch, an
     * unallocated cell).
     *
     * @throws IllegalStateException if an element below {@link #size()} lives in a chunk to be freed
     */
    public void trimChunks(int keepChunks) {
        if (keepChunks < 0) {
            throw new IllegalArgumentException("keepChunks=" + keepChunks + " (must be non-negative)");
        }
        growthLock.lock();
        try {
            checkOpen();
            int have = (int) CHUNK_COUNT.getAcquire(this);
            if (keepChunks >= have) {
                return;
            }
            long firstFreed = geometry.chunkStart(keepChunks);
            long size = size();
            if (size > firstFreed) {
                throw new IllegalStateException("trimChunks(keepChunks=" + keepChunks + ") would free elements below size="
                        + size + " (chunk " + keepChunks + " starts at index " + firstFreed + ")");
            }
            MemorySegment[] dir = (MemorySegment[]) DIRECTORY.getAcquire(this);
            RuntimeException failure = null;
            for (int k = have - 1; k >= keepChunks; k--) {
                MemorySegment chunk = dir[k];
                CHUNK.setRelease(dir, k, (MemorySegment) null);
                CHUNK_COUNT.setRelease(this, k);
                try {
                    pool.freeChunk(chunk);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            growthLock.unlock();
        }
    }

    public boolean isClosed() {
        return closed || pool.isClosed();
    }

    /**
     * Frees every chunk and closes the list; idempotent. After the pool's close it only drops its
     * references (the pool freed the chunks already).
     */
    @Override
    public void close() {
        growthLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            int have = (int) CHUNK_COUNT.getAcquire(this);
            MemorySegment[] dir = (MemorySegment[]) DIRECTORY.getAcquire(this);
            DIRECTORY.setRelease(this, NO_CHUNKS);
            CHUNK_COUNT.setRelease(this, 0);
            SIZE.setRelease(this, 0L);
            if (pool.isClosed()) {
                return;
            }
            RuntimeException failure = null;
            for (int k = have - 1; k >= 0; k--) {
                try {
                    pool.freeChunk(dir[k]);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            growthLock.unlock();
        }
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("list of " + owner.name() + " is closed");
        }
        pool.checkOpen();
    }

    @Override
    public String toString() {
        return "ListManager[owner=" + owner.name() + ", size=" + size() + ", chunks=" + chunkCount()
                + ", bytesReserved=" + bytesReserved() + ", " + geometry + "]";
    }
}
