package io.snode.runtime.internal;

import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import java.lang.foreign.MemorySegment;

/**
 * One SNode's allocator ({@link NodeManager}) as the node algorithms and generated code use
 * it: cells by the {@code long} index that pointer words store, checked on the way into the
 * manager's {@code int} indices, so that a corrupted word gives an exception rather than the
 * wrong cell. Cell indices, never addresses, are stored in node memory.
 */
public final class CheckedCells {
    private final NodeManager manager;

    public CheckedCells(MemoryPool pool, String ownerName, long cellBytes) {
        this(pool, ownerName, cellBytes, 0);
    }

    /**
     * Cells of {@code cellBytes} for at most {@code indexSpace} cells active at once, in one
     * reserved region where the pool has regions ({@link NodeManager}'s constructor); 0 for
     * chunks of their own.
     */
    public CheckedCells(MemoryPool pool, String ownerName, long cellBytes, long indexSpace) {
        this.manager = new NodeManager(pool, ownerName, cellBytes, Math.min(8, Long.lowestOneBit(cellBytes)), -1,
                indexSpace);
    }

    /**
     * The region holding every cell, cell {@code c} at byte {@code c * cellStride()}, or null when
     * the cells live in chunks: generated code then takes the region as a constant and skips the
     * chunk lookup of {@link #segment(long)}.
     */
    public MemorySegment region() {
        return manager.region();
    }

    /** The offset in {@link #region()} of its zero cell ({@link NodeManager#zeroCellOffset()}); -1 without a region. */
    public long zeroCellOffset() {
        return manager.zeroCellOffset();
    }

    /** {@code cellIndex(word) * stride}: the offset in {@link #region()} of the cell an active word refers to, checked. */
    public static long regionOffset(long cell, long stride) {
        return (long) index(cell) * stride;
    }

    public NodeManager manager() {
        return manager;
    }

    /** A cell whose bytes are all zero; its memory is not reused until it is recycled and collected. */
    public long allocate() {
        return manager.allocate();
    }

    /** Exactly reverses the latest {@link #allocate()} that returned {@code cell} (see NodeManager). */
    public void unallocate(long cell) {
        manager.unallocate(index(cell));
    }

    /** Hands a cell back; its memory is zeroed and reused only after collection. */
    public void recycle(long cell) {
        manager.recycle(index(cell));
    }

    /**
     * The chunk holding {@code cell} (the whole {@link #region()} when there is one); throws for
     * an index never allocated in chunks, and for one past the region in a region.
     */
    public MemorySegment segment(long cell) {
        return manager.cellChunk(index(cell));
    }

    /** The byte offset of {@code cell} inside {@link #segment(long)}. */
    public long offset(long cell) {
        return manager.cellOffset(index(cell));
    }

    /** Cells with memory: every cell index handed out so far is below this. */
    public long capacity() {
        return manager.dataList().capacity();
    }

    /**
     * The first cell index after the chunk that holds {@code cell}: cells from {@code cell} up
     * to it share {@link #segment(long)}, so a walk in index order looks the chunk up once.
     */
    public long chunkEnd(long cell) {
        var geometry = manager.dataList().geometry();
        return geometry.chunkStart(geometry.chunkIndex(index(cell)) + 1);
    }

    /**
     * Bytes from one cell to the next inside a chunk: for cells {@code a <= b} below
     * {@link #chunkEnd(long) chunkEnd(a)}, {@code offset(b) == offset(a) + (b - a) * cellStride()}.
     */
    public long cellStride() {
        return manager.cellStride();
    }

    private static int index(long cell) {
        // One test for both ends of [0, Integer.MAX_VALUE] (generated walks run this per level).
        if (cell >>> Integer.SIZE - 1 != 0) {
            throw new IllegalStateException("corrupted cell reference " + cell
                    + ": node memory holds a word that no cell of this SNode has");
        }
        return (int) cell;
    }
}
