package io.snode.runtime;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.util.List;
import java.util.Objects;

/**
 * The memory plan of one SNode (Taichi's {@code StructMeta}): its cells, their size and the byte
 * offsets inside them. Terms:
 * <ul>
 *   <li><b>cell</b>: the storage of one element of the node: its placed fields (AoS, in placement
 *   order, natural alignment), then the container of each child node;</li>
 *   <li><b>container</b>: the storage a node takes inside one cell of its parent: for dense, its
 *   cells; for bitmasked, its mask words then its cells; for pointer, one pointer word per cell
 *   (the cells are allocated by the node's node manager); for hash, one hash header naming
 *   the table that finds the cells (allocated as a pointer's are); for dynamic, one list header.</li>
 * </ul>
 * All offsets are in bytes. Every constant that generated code uses comes from here.
 */
public final class SNodePlan {
    private final SNode snode;
    private final Axis[] axes;
    private final int[] sizes;
    private final long[] strides;
    private final long cellCount;
    private final long cellBytes;
    private final int cellAlignment;
    private final long[] fieldOffsets;
    private final long[] childContainerOffsets;
    private final long containerBytes;
    /** What the container holds, for the container rule's message ({@link #containerContents()}). */
    private final String containerContents;
    private final long maskBytes;
    private final long chunkBytes;
    private final List<AxisSplit> ownSplits;

    /** @throws ArithmeticException when a size does not fit a {@code long} (the plan reports it) */
    SNodePlan(SNode snode, long cellBytes, int cellAlignment, long[] fieldOffsets, long[] childContainerOffsets) {
        this.snode = snode;
        this.axes = snode.axes().list().toArray(new Axis[0]);
        this.sizes = snode.sizes();
        this.strides = new long[sizes.length];
        long stride = 1;
        for (int n = sizes.length - 1; n >= 0; n--) {
            strides[n] = stride;
            stride = Math.multiplyExact(stride, sizes[n]);
        }
        this.cellCount = snode.cellCount();
        this.cellBytes = cellBytes;
        this.cellAlignment = cellAlignment;
        this.fieldOffsets = fieldOffsets;
        this.childContainerOffsets = childContainerOffsets;
        this.maskBytes = snode.kind() == NodeKind.BITMASKED
                ? Math.multiplyExact(BitmaskWords.words(cellCount), Long.BYTES) : 0;
        String cells = cellCount + " cells of " + cellBytes + " bytes";
        switch (snode.kind()) {
            case ROOT -> {
                containerBytes = cellBytes;
                containerContents = "the root cell";
            }
            case DENSE -> {
                containerBytes = Math.multiplyExact(cellCount, cellBytes);
                containerContents = cells;
            }
            case BITMASKED -> {
                containerBytes = Math.addExact(maskBytes, Math.multiplyExact(cellCount, cellBytes));
                containerContents = cells + " after " + maskBytes + " bytes of mask";
            }
            case POINTER -> {
                containerBytes = Math.multiplyExact(cellCount, PointerWord.BYTES);
                containerContents = cellCount + " pointer words of " + PointerWord.BYTES + " bytes";
            }
            case HASH -> {
                containerBytes = HashHeader.BYTES;
                containerContents = "the hash header";
            }
            case DYNAMIC -> {
                containerBytes = DynamicHeader.BYTES;
                containerContents = "the list header";
            }
            default -> throw new AssertionError(snode.kind());
        }
        this.chunkBytes = snode.kind() == NodeKind.DYNAMIC
                ? Math.multiplyExact((long) snode.chunkSize(), cellBytes) : 0;
        AxisSplit[] splits = new AxisSplit[axes.length];
        for (int n = 0; n < axes.length; n++) {
            splits[n] = new AxisSplit(axes[n], n, 1, sizes[n], strides[n]);
        }
        this.ownSplits = List.of(splits);
    }

    public SNode snode() {
        return snode;
    }

    public int id() {
        return snode.id();
    }

    public NodeKind kind() {
        return snode.kind();
    }

    /**
     * Number of cells in one container: the product of the node's sizes. A plan's containers
     * take at most {@link io.snode.api.LayoutRule#MAX_CONTAINER_BYTES} and a cell at least 4
     * bytes, so for every kind but dynamic this is at most 2^25 and fits an {@code int}.
     */
    public long cellCount() {
        return cellCount;
    }

    /** Bytes of one cell, a multiple of {@link #cellAlignment()}. */
    public long cellBytes() {
        return cellBytes;
    }

    /** The largest natural alignment of anything inside a cell (4 or 8). */
    public int cellAlignment() {
        return cellAlignment;
    }

    /** Bytes this node's container takes inside one cell of its parent. */
    public long containerBytes() {
        return containerBytes;
    }

    /** What {@link #containerBytes()} holds, in words: {@code "64 cells of 4 bytes"}. */
    public String containerContents() {
        return containerContents;
    }

    /**
     * Whether one of this node's cells is one allocation of its own (the root cell, a pointer's
     * or hash node's child cell), so that the container rule bounds the cell; other cells lie
     * inside their container.
     */
    public boolean cellIsAllocated() {
        return kind() == NodeKind.ROOT || hasChildCells();
    }

    /**
     * Whether each active cell is a cell of this node's node manager, found through a word of
     * the container (pointer, hash): the cell moves with its word, not with its index.
     */
    public boolean hasChildCells() {
        return kind() == NodeKind.POINTER || kind() == NodeKind.HASH;
    }

    /** Bytes of the activity mask at the start of a bitmasked container, else 0. */
    public long maskBytes() {
        return maskBytes;
    }

    /** Offset of cell 0 inside the container: after the mask for bitmasked, else 0. */
    public long cellsOffset() {
        return maskBytes;
    }

    /**
     * Offset of the field in slot {@code slot} inside a cell of this node.
     *
     * @throws IndexOutOfBoundsException when {@code slot} is not one of this node's field slots
     */
    public long fieldOffset(int slot) {
        if (slot < 0 || slot >= fieldOffsets.length) {
            throw outside("slot", slot, fieldOffsets.length, "fields");
        }
        return fieldOffsets[slot];
    }

    /**
     * Offset of {@code field} inside a cell of this node.
     *
     * @throws IllegalArgumentException when {@code field} is not placed on this node
     */
    public long fieldOffset(PlacedField field) {
        if (Objects.requireNonNull(field, "field").snode() != snode) {
            throw new IllegalArgumentException("field=" + field.name() + " is not placed on " + snode.path());
        }
        return fieldOffsets[field.slot()];
    }

    /**
     * Offset, inside a cell of this node, of the container of its child number {@code index}.
     *
     * @throws IndexOutOfBoundsException when {@code index} is not one of this node's children
     */
    public long childContainerOffset(int index) {
        if (index < 0 || index >= childContainerOffsets.length) {
            throw outside("index", index, childContainerOffsets.length, "children");
        }
        return childContainerOffsets[index];
    }

    /**
     * The row-major weight of this node's own axis number {@code axisIndex} in its cell index.
     *
     * @throws IndexOutOfBoundsException when {@code axisIndex} is not one of this node's own axes
     */
    public long stride(int axisIndex) {
        if (axisIndex < 0 || axisIndex >= strides.length) {
            throw outside("axisIndex", axisIndex, strides.length, "axes");
        }
        return strides[axisIndex];
    }

    /** {@code name=value is not in [0, length) (the <what> of <path>)}. */
    private IndexOutOfBoundsException outside(String name, int value, int length, String what) {
        return new IndexOutOfBoundsException(name + "=" + value + " is not in [0, " + length + ") (the " + what
                + " of " + snode.path() + ")");
    }

    /** This node's own splits with divisor 1: its index space coordinates are local indices. */
    public List<AxisSplit> ownSplits() {
        return ownSplits;
    }

    /** A dynamic node's chunk size in elements; 0 for other kinds. */
    public int chunkSize() {
        return snode.kind() == NodeKind.DYNAMIC ? snode.chunkSize() : 0;
    }

    /** Bytes of one chunk of a dynamic node ({@link #chunkSize()} cells); 0 for other kinds. */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** A dynamic node's capacity in elements; 0 for other kinds. */
    public int capacity() {
        return snode.kind() == NodeKind.DYNAMIC ? snode.capacity() : 0;
    }

    /**
     * A dynamic node's directory: chunks past the {@link DynamicHeader#INLINE_CHUNKS} inline ones
     * are found through a top block of {@link #directoryTopFanout()} references to leaf blocks of
     * {@link #directoryLeafFanout()} chunk references each (a power of two). Both are 0 when the
     * inline references cover the capacity.
     */
    public int directoryLeafFanout() {
        long extra = maxChunks() - DynamicHeader.INLINE_CHUNKS;
        if (extra <= 0) {
            return 0;
        }
        int bits = (64 - Long.numberOfLeadingZeros(extra - 1) + 1) / 2; // ceil(log2(extra) / 2)
        return 1 << bits;
    }

    /** Number of leaf-block references in a dynamic node's top directory block. */
    public int directoryTopFanout() {
        long extra = maxChunks() - DynamicHeader.INLINE_CHUNKS;
        if (extra <= 0) {
            return 0;
        }
        return (int) ((extra + directoryLeafFanout() - 1) / directoryLeafFanout());
    }

    /** Chunks a full dynamic list uses: capacity / chunk size, rounded up; 0 for other kinds. */
    public long maxChunks() {
        return kind() == NodeKind.DYNAMIC ? (capacity() + (long) chunkSize() - 1) / chunkSize() : 0;
    }

    /** Whether this kind allocates its cells through a node manager (pointer, hash, dynamic). */
    public boolean hasNodeManager() {
        return hasNodeManager(snode.kind());
    }

    /** Whether SNodes of {@code kind} allocate their cells through a node manager (pointer, hash, dynamic). */
    public static boolean hasNodeManager(NodeKind kind) {
        return kind == NodeKind.POINTER || kind == NodeKind.HASH || kind == NodeKind.DYNAMIC;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append("snode ").append(id()).append(' ').append(snode.path()).append(System.lineSeparator());
        text.append("  kind ").append(kind().text()).append(", cells ").append(cellCount)
                .append(", cell ").append(cellBytes).append(" B (align ").append(cellAlignment).append(")")
                .append(", container ").append(containerBytes).append(" B");
        if (kind() == NodeKind.BITMASKED) {
            text.append(" (mask ").append(maskBytes).append(" B, cells at +").append(cellsOffset()).append(')');
        }
        if (kind() == NodeKind.POINTER) {
            text.append(" (").append(cellCount).append(" pointer words of ").append(PointerWord.BYTES).append(" B)");
        }
        if (kind() == NodeKind.HASH) {
            text.append(" (hash header of ").append(HashHeader.BYTES).append(" B; a table of ")
                    .append(HashHeader.MIN_CAPACITY).append(" to ").append(HashHeader.MAX_CAPACITY)
                    .append(" entries of ").append(HashHeader.ENTRY_BYTES).append(" B, at most half used)");
        }
        if (kind() == NodeKind.DYNAMIC) {
            text.append(" (list header of ").append(DynamicHeader.BYTES).append(" B), capacity ")
                    .append(capacity()).append(", chunk ").append(chunkSize()).append(" elements (")
                    .append(chunkBytes).append(" B)");
            if (directoryLeafFanout() > 0) {
                text.append(", directory ").append(directoryTopFanout()).append(" x ")
                        .append(directoryLeafFanout());
            }
        }
        text.append(System.lineSeparator());
        for (int n = 0; n < axes.length; n++) {
            text.append("  axis ").append(axes[n].letter()).append(": size ").append(sizes[n]);
            if (Integer.bitCount(sizes[n]) == 1) {
                text.append(" (").append(Integer.numberOfTrailingZeros(sizes[n])).append(" bits)");
            } else {
                text.append(" (not a power of two: division)");
            }
            text.append(", stride ").append(strides[n]).append(System.lineSeparator());
        }
        for (PlacedField field : snode.fields()) {
            text.append("  field ").append(field.field()).append(" at +").append(fieldOffsets[field.slot()])
                    .append(System.lineSeparator());
        }
        for (int n = 0; n < childContainerOffsets.length; n++) {
            text.append("  child ").append(snode.children().get(n).description()).append(" container at +")
                    .append(childContainerOffsets[n]).append(System.lineSeparator());
        }
        return text.toString();
    }
}
