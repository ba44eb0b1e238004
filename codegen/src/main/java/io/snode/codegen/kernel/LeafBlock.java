package io.snode.codegen.kernel;

import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One active block of a dense or bitmasked SNode, as a struct-for hands it to a
 * {@link BlockKernel} or {@link BlockReducer}: the coordinates of its first cell, its cells'
 * memory (cell {@code n} at byte {@code n * cellBytes()}, fields at {@link #fieldOffset}), and
 * which cells are active. Inactive cells of a bitmasked block hold zero in memory too (the
 * runtime zeroes a cell when it is deactivated), so a loop may read all cells and still sum only
 * the active values.
 *
 * <p>Valid only during the kernel call: keep neither the object nor its memory. The launch makes
 * one per block in its generated driver; when the JIT inlines the kernel there, escape analysis
 * can remove both this object and the {@link #cells()} slice.
 */
public final class LeafBlock {
    private final SNode snode;
    private final MemorySegment memory;
    private final long offset;
    private final long cellBytes;
    private final long cellCount;
    private final int[] bases;
    private final int baseAt;
    private final int[] sizes;
    private final long[] masks;
    private final int maskAt;
    private final int maskWords;
    private final long activeCount;
    private final long[] fieldOffsets;

    /**
     * Made by the launch. The block's cells are {@code cellCount * cellBytes} bytes of
     * {@code memory} from {@code offset}; its parent cell's coordinates are
     * {@code bases[baseAt ...]} and the SNode's sizes per index axis {@code sizes}; its mask
     * words are {@code masks[maskAt ... maskAt + maskWords)}, {@code masks} null for dense
     * blocks, and {@code activeCount} of its cells are active; {@code fieldOffsets} by field
     * slot. The arrays are shared, not copied.
     */
    public LeafBlock(SNode snode, MemorySegment memory, long offset, long cellBytes, long cellCount, int[] bases,
                     int baseAt, int[] sizes, long[] masks, int maskAt, int maskWords, long activeCount,
                     long[] fieldOffsets) {
        this.snode = snode;
        this.memory = memory;
        this.offset = offset;
        this.cellBytes = cellBytes;
        this.cellCount = cellCount;
        this.bases = bases;
        this.baseAt = baseAt;
        this.sizes = sizes;
        this.masks = masks;
        this.maskAt = maskAt;
        this.maskWords = maskWords;
        this.activeCount = activeCount;
        this.fieldOffsets = fieldOffsets;
    }

    public SNode snode() {
        return snode;
    }

    /** Coordinates of cell 0, in the SNode's index axes; cell coordinates add the local indices. */
    public int[] origin() {
        int[] origin = new int[sizes.length];
        for (int n = 0; n < origin.length; n++) {
            origin[n] = origin(n);
        }
        return origin;
    }

    /** Coordinate {@code n} of cell 0. */
    public int origin(int n) {
        return bases[baseAt + n] * sizes[n];
    }

    /** The block's cells: {@code cellCount() * cellBytes()} bytes, cell {@code n} at {@code n * cellBytes()}. */
    public MemorySegment cells() {
        return memory.asSlice(offset, cellCount * cellBytes);
    }

    public long cellBytes() {
        return cellBytes;
    }

    public long cellCount() {
        return cellCount;
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
        return activeCount;
    }

    /** Whether every cell of the block is active (dense blocks). */
    public boolean allActive() {
        return masks == null;
    }

    /** Whether cell {@code n} is active (a snapshot taken when the launch started). */
    public boolean isActive(long n) {
        if (n < 0 || n >= cellCount) {
            throw new IndexOutOfBoundsException("cell " + n + " of a block of " + cellCount + " cells");
        }
        return masks == null || (masks[maskAt + (int) (n >>> 6)] & (1L << n)) != 0;
    }

    /** The activity mask (bit n: cell n) of a bitmasked block, or null for a dense one. */
    public long[] mask() {
        return masks == null ? null : Arrays.copyOfRange(masks, maskAt, maskAt + maskWords);
    }
}
