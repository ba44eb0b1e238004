package io.snode.runtime.internal.node;

import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;

/**
 * A dense node: its container is its cells, every one always active.
 *
 * <pre>
 *  0           cellBytes    2 * cellBytes          cellCount * cellBytes
 * +-----------+-----------+-----+-----------------+
 * |  cell 0   |  cell 1   | ... | cell count - 1  |
 * +-----------+-----------+-----+-----------------+
 * </pre>
 *
 * It publishes nothing: its steps of the activation protocol only move to the cell.
 */
public final class DenseUnit extends NodeUnit {
    /** The release walk's visitor, made once: releases what lies below each cell. */
    private final ActiveCellVisitor releaseBelow;

    DenseUnit(SNodePlan node, NodeUnits units) {
        super(node, units);
        this.releaseBelow = (level, index, segment, cell, managed) -> units.releaseBelow(node, segment, cell);
    }

    /** Byte offset of cell {@code index} from the start of the container. */
    public long cellOffset(long index) {
        return index * node.cellBytes();
    }

    @Override
    public boolean activatesInPlace() {
        return true;
    }

    @Override
    public boolean lookup(Location at, long container, long index) {
        at.offset = container + cellOffset(index);
        return true;
    }

    @Override
    public boolean isActive(MemorySegment segment, long container, long index) {
        return true;
    }

    @Override
    public int activateInline(Location at, long container, long index, boolean mayStore) {
        at.offset = container + cellOffset(index);
        return INLINE_UNCHANGED;
    }

    @Override
    public long publish(Location at, long container, long index, int step, ActivationRun activation) {
        at.offset = container + cellOffset(index);
        return GO_ON;
    }

    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        at.offset = container + cellOffset(index);
        return GO_ON;
    }

    @Override
    public void buildInPlace(Location at, long container, long index) {
        at.offset = container + cellOffset(index);
    }

    @Override
    public void unbuildInPlace(Location at, long container, long index) {
        at.offset = container + cellOffset(index);
    }

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        throw new AssertionError("a dense cell is always active: " + node.snode().path());
    }

    @Override
    public void release(MemorySegment segment, long container, boolean retire) {
        forEachActive(segment, container, releaseBelow, 0);
    }

    @Override
    public long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level) {
        long count = node.cellCount();
        for (long index = 0; index < count; index++) {
            visitor.visit(level, index, segment, container + cellOffset(index), -1);
        }
        return count;
    }
}
