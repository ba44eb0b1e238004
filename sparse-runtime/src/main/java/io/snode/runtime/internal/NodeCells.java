package io.snode.runtime.internal;

import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import java.lang.foreign.MemorySegment;

/**
 * The node algorithms' view of one {@link NodeManager}: cells by {@code long} index as stored
 * in pointer words, checked on the way into the manager's {@code int} indices, so that a
 * corrupted word gives an exception rather than the wrong cell.
 */
public final class NodeCells implements CellManager {
    private final NodeManager manager;

    public NodeCells(MemoryPool pool, String ownerName, long cellBytes) {
        this.manager = new NodeManager(pool, ownerName, cellBytes, Math.min(8, Long.lowestOneBit(cellBytes)));
    }

    public NodeManager manager() {
        return manager;
    }

    @Override
    public long allocate() {
        return manager.allocate();
    }

    @Override
    public void unallocate(long cell) {
        manager.unallocate(index(cell));
    }

    @Override
    public void recycle(long cell) {
        manager.recycle(index(cell));
    }

    @Override
    public MemorySegment segment(long cell) {
        return manager.cellChunk(index(cell));
    }

    @Override
    public long offset(long cell) {
        return manager.cellOffset(index(cell));
    }

    @Override
    public long capacity() {
        return manager.dataList().capacity();
    }

    @Override
    public long chunkEnd(long cell) {
        var geometry = manager.dataList().geometry();
        return geometry.chunkStart(geometry.chunkIndex(index(cell)) + 1);
    }

    @Override
    public long cellStride() {
        return manager.cellStride();
    }

    private static int index(long cell) {
        if (cell < 0 || cell > Integer.MAX_VALUE) {
            throw new IllegalStateException("corrupted cell reference " + cell
                    + ": node memory holds a word that no cell of this SNode has");
        }
        return (int) cell;
    }
}
