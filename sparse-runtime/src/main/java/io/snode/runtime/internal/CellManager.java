package io.snode.runtime.internal;

import java.lang.foreign.MemorySegment;

/**
 * What the node algorithms need from an SNode's allocator: zeroed cells by index, their memory,
 * recycling, and handing back cells reserved and never published. Cell indices, never addresses, are stored in node memory.
 */
public interface CellManager {
    /** A cell whose bytes are all zero; its memory is not reused until it is recycled and collected. */
    long allocate();

    /** Exactly reverses the latest {@link #allocate()} that returned {@code cell} (see NodeManager). */
    void unallocate(long cell);

    /** Hands a cell back; its memory is zeroed and reused only after collection. */
    void recycle(long cell);

    /** The chunk holding {@code cell}; throws for an index never allocated. */
    MemorySegment segment(long cell);

    /** The byte offset of {@code cell} inside {@link #segment(long)}. */
    long offset(long cell);

    /** Cells with memory: every cell index handed out so far is below this. */
    long capacity();

    /**
     * The first cell index after the chunk that holds {@code cell}: cells from {@code cell} up
     * to it share {@link #segment(long)}, so a walk in index order looks the chunk up once.
     */
    long chunkEnd(long cell);

    /**
     * Bytes from one cell to the next inside a chunk: for cells {@code a <= b} below
     * {@link #chunkEnd(long) chunkEnd(a)}, {@code offset(b) == offset(a) + (b - a) * cellStride()}.
     */
    long cellStride();
}
