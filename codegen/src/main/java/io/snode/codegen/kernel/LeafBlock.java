package io.snode.codegen.kernel;

import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * One block of a struct-for's snapshot, as a struct-for hands it to a {@link BlockKernel} or
 * {@link BlockReducer}: an active container of a dense or bitmasked SNode, or one list of a
 * dynamic SNode. It gives the coordinates of its first cell ({@link #origin}), its cells' memory
 * (fields at {@link #fieldOffset} inside each cell of {@link #cellBytes} bytes), and which cells
 * are active.
 *
 * <p><b>Dense and bitmasked blocks</b> are one piece of memory: cell {@code n} at byte
 * {@code n * cellBytes()} of {@link #cells()}. The fields of inactive cells of a bitmasked block
 * hold zero in memory too (the runtime zeroes them when a cell is deactivated; a list below the
 * cell may leave a word of its header, away from the fields), so a loop may read all fields and
 * still sum only the active values. Only those of the launch's snapshot, though: over a kept
 * {@code ActiveSet}, a cell activated since the set was taken is read too by such a loop, while
 * its mask bit in {@link #mask} is not set. Store only into active cells: a store into an inactive cell's
 * memory activates nothing, and every read of that cell (generated reads load the value without
 * testing the bit, as the reductions read every cell) would give it, and so would the cell after an
 * activation that writes nothing.
 *
 * <p><b>Lists</b> (a dynamic SNode's blocks, one per active cell of its parent) lie in chunks:
 * element {@code index} is cell {@code index - chunkStart(c)} of {@link #chunk(int) chunk(c)},
 * {@code c = index / chunkSize()}, and a visit of every element is a loop over the
 * {@link #chunkCount()} chunks, each contiguous memory of {@link #chunkCells(int)} cells:
 * <pre>{@code
 * long offset = block.fieldOffset(particle);
 * for (int c = 0; c < block.chunkCount(); c++) {
 *     MemorySegment chunk = block.chunk(c);
 *     for (long n = 0; n < block.chunkCells(c); n++) {
 *         sum += chunk.get(ValueLayout.JAVA_INT, n * block.cellBytes() + offset);
 *     }
 * }
 * }</pre>
 * The list's length ({@link #cellCount()}) is the one the launch's snapshot read (with acquire
 * ordering), and the chunks cover exactly the elements below it: an element appended later is not
 * handed over, and every element handed over lies in a chunk that its append published before it
 * took its index. (An append takes its index before it stores the value, so an element whose
 * append is still running when the launch reads it may read zero.) A chunk that has no memory
 * (below the length, never written: a write past the length leaves such chunks) is handed over as
 * read-only zeros, what reading those elements gives; writing into it throws
 * {@link IllegalArgumentException} (FFM's "Attempt to write a read-only segment"): write such
 * elements through an accessor, which gives the chunk memory. {@link #origin()} is the list's coordinates (its parent
 * cell's, as {@code append} and {@code length} take them) with 0 on the list's own axis. Every
 * element below the length is active ({@link #allActive()}); a list may be empty (an active
 * parent cell whose list has no element: no chunk).
 *
 * <p>A dense or bitmasked block is one chunk: {@code chunkCount() == 1}, {@code chunk(0)} is
 * {@link #cells()}, so a loop over chunks serves every kind of block.
 *
 * <p>Valid only during the kernel call: keep neither the object nor its memory. The launch makes
 * one per block in its generated driver; when the JIT inlines the kernel there, escape analysis
 * can remove both this object and the slices of {@link #cells()} and {@link #chunk(int)}.
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
    /** A list's chunks: {@code chunkCount} entries from {@code chunkAt}; null for a dense or bitmasked block. */
    private final MemorySegment[] chunkMemory;
    private final long[] chunkOffsets;
    private final int chunkAt;
    private final int chunkCount;
    /** Cells of a full chunk: a list's chunk size, or a block's cell count. */
    private final long chunkSize;

    /**
     * A dense or bitmasked block, made by the launch. Its cells are {@code cellCount * cellBytes}
     * bytes of {@code memory} from {@code offset}; its parent cell's coordinates are
     * {@code bases[baseAt ...]} and the SNode's sizes per index axis {@code sizes}; its mask
     * words are {@code masks[maskAt ... maskAt + maskWords)}, {@code masks} null for dense
     * blocks, and {@code activeCount} of its cells are active; {@code fieldOffsets} by field
     * slot. The arrays are shared, not copied.
     *
     * @throws NullPointerException when an argument but {@code masks} is null (the message is the
     *                              parameter's name)
     */
    public LeafBlock(SNode snode, MemorySegment memory, long offset, long cellBytes, long cellCount, int[] bases,
                     int baseAt, int[] sizes, long[] masks, int maskAt, int maskWords, long activeCount,
                     long[] fieldOffsets) {
        this.snode = Objects.requireNonNull(snode, "snode");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.offset = offset;
        this.cellBytes = cellBytes;
        this.cellCount = cellCount;
        this.bases = Objects.requireNonNull(bases, "bases");
        this.baseAt = baseAt;
        this.sizes = Objects.requireNonNull(sizes, "sizes");
        this.masks = masks;
        this.maskAt = maskAt;
        this.maskWords = maskWords;
        this.activeCount = activeCount;
        this.fieldOffsets = Objects.requireNonNull(fieldOffsets, "fieldOffsets");
        this.chunkMemory = null;
        this.chunkOffsets = null;
        this.chunkAt = 0;
        this.chunkCount = 1;
        this.chunkSize = cellCount;
    }

    /**
     * A list of {@code length} elements, made by the launch: chunk {@code c} (of
     * {@code ceil(length / chunkSize)}) starts at byte {@code chunkOffsets[chunkAt + c]} of
     * {@code chunkMemory[chunkAt + c]}; elements of {@code cellBytes} bytes, {@code chunkSize} per
     * chunk; coordinates, sizes and field offsets as for a block. The arrays are shared, not copied.
     *
     * @throws NullPointerException     when an argument is null (the message is the parameter's name)
     * @throws IllegalArgumentException when {@code length} is negative or {@code chunkSize} not positive
     */
    public LeafBlock(SNode snode, long length, long chunkSize, long cellBytes, MemorySegment[] chunkMemory,
                     long[] chunkOffsets, int chunkAt, int[] bases, int baseAt, int[] sizes, long[] fieldOffsets) {
        this.snode = Objects.requireNonNull(snode, "snode");
        if (length < 0) {
            throw new IllegalArgumentException("length=" + length + " is negative");
        }
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunkSize=" + chunkSize + " is not positive");
        }
        this.memory = null;
        this.offset = 0;
        this.cellBytes = cellBytes;
        this.cellCount = length;
        this.bases = Objects.requireNonNull(bases, "bases");
        this.baseAt = baseAt;
        this.sizes = Objects.requireNonNull(sizes, "sizes");
        this.masks = null;
        this.maskAt = 0;
        this.maskWords = 0;
        this.activeCount = length;
        this.fieldOffsets = Objects.requireNonNull(fieldOffsets, "fieldOffsets");
        this.chunkMemory = Objects.requireNonNull(chunkMemory, "chunkMemory");
        this.chunkOffsets = Objects.requireNonNull(chunkOffsets, "chunkOffsets");
        this.chunkAt = chunkAt;
        this.chunkCount = (int) ((length + chunkSize - 1) / chunkSize);
        this.chunkSize = chunkSize;
    }

    public SNode snode() {
        return snode;
    }

    /**
     * Coordinates of cell 0, in the SNode's index axes; cell coordinates add the local indices.
     * For a list: its coordinates, and 0 on the list's axis.
     */
    public int[] origin() {
        int[] origin = new int[sizes.length];
        for (int n = 0; n < origin.length; n++) {
            origin[n] = origin(n);
        }
        return origin;
    }

    /**
     * Coordinate {@code n} of cell 0.
     *
     * @throws IndexOutOfBoundsException when {@code n} is not one of the SNode's index axes
     */
    public int origin(int n) {
        if (n < 0 || n >= sizes.length) {
            throw new IndexOutOfBoundsException("n=" + n + " is not in [0, " + sizes.length + ") (the index axes of "
                    + snode.path() + ")");
        }
        return bases[baseAt + n] * sizes[n];
    }

    /**
     * The block's cells: {@code cellCount() * cellBytes()} bytes, cell {@code n} at
     * {@code n * cellBytes()}. For a list, its one chunk (or no bytes, when it is empty).
     *
     * @throws IllegalStateException for a list of more than one chunk: its cells are not one
     *                               piece of memory; loop over {@link #chunk(int)}
     */
    public MemorySegment cells() {
        if (chunkMemory == null) {
            return memory.asSlice(offset, cellCount * cellBytes);
        }
        if (chunkCount > 1) {
            throw new IllegalStateException("a list of " + cellCount + " elements in " + chunkCount + " chunks of "
                    + chunkSize + " is not one piece of memory; loop over chunk(c) for c below chunkCount()");
        }
        return chunkCount == 0 ? MemorySegment.NULL : chunk(0);
    }

    public long cellBytes() {
        return cellBytes;
    }

    /** Number of cells: a dense or bitmasked block's cells, a list's length. */
    public long cellCount() {
        return cellCount;
    }

    /** Number of chunks the cells lie in: 1 for a dense or bitmasked block, {@code ceil(length / chunkSize())} for a list. */
    public int chunkCount() {
        return chunkCount;
    }

    /** Cells of a full chunk: a list's chunk size ({@code dynamic(l, capacity, chunk)}), a block's cell count. */
    public long chunkSize() {
        return chunkSize;
    }

    /** Index of chunk {@code c}'s first cell: {@code c * chunkSize()}. */
    public long chunkStart(int c) {
        return Objects.checkIndex(c, chunkCount) * chunkSize;
    }

    /** Cells of chunk {@code c}: {@link #chunkSize()}, fewer in a list's last chunk (the rest below the length). */
    public long chunkCells(int c) {
        long start = chunkStart(c);
        return Math.min(chunkSize, cellCount - start);
    }

    /**
     * Chunk {@code c}'s cells: {@code chunkCells(c) * cellBytes()} bytes, cell {@code chunkStart(c) + n}
     * at {@code n * cellBytes()}; read-only zeros for a list's chunk that has no memory.
     */
    public MemorySegment chunk(int c) {
        if (chunkMemory == null) {
            Objects.checkIndex(c, 1);
            return cells();
        }
        long cells = chunkCells(c);
        return chunkMemory[chunkAt + c].asSlice(chunkOffsets[chunkAt + c], cells * cellBytes);
    }

    /** Byte offset of {@code field} inside a cell. */
    public long fieldOffset(PlacedField field) {
        if (Objects.requireNonNull(field, "field").snode() != snode) {
            throw new IllegalArgumentException("field=" + field.name() + " is not placed on " + snode.path());
        }
        return fieldOffsets[field.slot()];
    }

    /** Number of active cells (a list's length). */
    public long activeCount() {
        return activeCount;
    }

    /** Whether every cell of the block is active (dense blocks and lists). */
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

    /** The activity mask (bit n: cell n) of a bitmasked block, or null for a dense one or a list. */
    public long[] mask() {
        return masks == null ? null : Arrays.copyOfRange(masks, maskAt, maskAt + maskWords);
    }

    /** The SNode's path, cell 0's coordinates, the cells (active ones) and, for a list, its chunks. */
    @Override
    public String toString() {
        String cells = chunkMemory != null ? cellCount + " elements in " + chunkCount + " chunks of " + chunkSize
                : masks != null ? cellCount + " cells, " + activeCount + " active" : cellCount + " cells";
        return "LeafBlock[" + snode.path() + " at " + Arrays.toString(origin()) + ": " + cells + "]";
    }
}
