package io.snode.codegen.kernel;

import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.lang.foreign.MemorySegment;

/**
 * One active block of a dense or bitmasked SNode, as a struct-for hands it to a
 * {@link BlockKernel}: the coordinates of its first cell, its cells' memory (cell {@code n}
 * at byte {@code n * cellBytes()}, fields at {@link #fieldOffset}), and which cells are active.
 * Inactive cells of a bitmasked block hold zero in memory too (the runtime zeroes a cell when it
 * is deactivated), so a loop may read all cells and still sum only the active values.
 * Valid only during the kernel call.
 */
public final class LeafBlock {
    private final SNode snode;
    private final int[] origin;
    private final MemorySegment cells;
    private final long cellBytes;
    private final long[] mask;
    private final long[] fieldOffsets;

    /** Made by the launch; {@code fieldOffsets} by field slot, {@code mask} null for dense blocks. */
    public LeafBlock(SNode snode, int[] origin, MemorySegment cells, long cellBytes, long[] mask, long[] fieldOffsets) {
        this.snode = snode;
        this.origin = origin;
        this.cells = cells;
        this.cellBytes = cellBytes;
        this.mask = mask;
        this.fieldOffsets = fieldOffsets;
    }

    public SNode snode() {
        return snode;
    }

    /** Coordinates of cell 0, in the SNode's index axes; cell coordinates add the local indices. */
    public int[] origin() {
        return origin.clone();
    }

    /** Coordinate {@code n} of cell 0. */
    public int origin(int n) {
        return origin[n];
    }

    /** The block's cells: {@code cellCount() * cellBytes()} bytes, cell {@code n} at {@code n * cellBytes()}. */
    public MemorySegment cells() {
        return cells;
    }

    public long cellBytes() {
        return cellBytes;
    }

    public long cellCount() {
        return cells.byteSize() / cellBytes;
    }

    /** Byte offset of {@code field} inside a cell. */
    public long fieldOffset(PlacedField field) {
        if (field.snode() != snode) {
            throw new IllegalArgumentException("field=" + field.name() + " is not placed on " + snode.path());
        }
        return fieldOffsets[field.slot()];
    }

    /** Number of active cells. */
    public long activeCount() {
        if (mask == null) {
            return cellCount();
        }
        long count = 0;
        for (long word : mask) {
            count += Long.bitCount(word);
        }
        return count;
    }

    /** Whether every cell of the block is active (dense blocks). */
    public boolean allActive() {
        return mask == null;
    }

    /** Whether cell {@code n} is active (a snapshot taken when the launch started). */
    public boolean isActive(long n) {
        return mask == null || (mask[(int) (n >>> 6)] & (1L << n)) != 0;
    }

    /** The activity mask (bit n: cell n) of a bitmasked block, or null for a dense one. */
    public long[] mask() {
        return mask == null ? null : mask.clone();
    }
}
