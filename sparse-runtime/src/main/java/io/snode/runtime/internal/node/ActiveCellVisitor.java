package io.snode.runtime.internal.node;

import java.lang.foreign.MemorySegment;

/**
 * Receives the active cells of one container from {@link NodeUnit#forEachActive}, one call per
 * cell, in increasing cell index. Every argument is a primitive or a reference that already
 * exists, so a visit allocates nothing; {@code level} is the caller's own value passed through,
 * so that one visitor object can serve every level of a walk (a recursive walk passes the level
 * of the container's node and keeps per-level state in arrays of its own).
 */
@FunctionalInterface
public interface ActiveCellVisitor {
    /**
     * @param level   the value the caller gave {@link NodeUnit#forEachActive}
     * @param index   the cell's index in its container (row-major over the node's own axes)
     * @param segment the memory that holds the cell
     * @param cell    the cell's byte offset in {@code segment}
     * @param managed the node manager's index of the cell (a pointer's child) or of the chunk
     *                that holds it (a dynamic element); -1 for dense and bitmasked cells
     */
    void visit(int level, long index, MemorySegment segment, long cell, long managed);
}
