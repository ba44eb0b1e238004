package io.snode.codegen.internal.snapshot;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.Location;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Loads checked records into a runtime's structure ({@link NodeTree}), block-wise: it finds the
 * parent cell of a record (which an earlier record must have activated: SNodes come parents
 * first), then copies a dense or bitmasked block's cells in one piece when a cell's kept bytes are
 * the whole cell, sets a bitmasked container's mask words with atomic ORs, activates a pointer's or
 * hash node's cells one by one through the activation protocol ({@link NodeTree#locate}) and copies
 * their fields, and gives a list its chunks by a write at the last element of each present
 * chunk (which makes the chunk and raises the length) followed by one copy of the chunk.
 *
 * <p>Mask words stored here bypass the structure's activation count, so the caller starts a new
 * epoch when loading ends ({@link NodeTree#advanceEpoch}): snapshots of active blocks and
 * accessor caches taken before are then stale.
 */
final class RecordApplier {
    private final NodeTree tree;
    private final SectionReader in;
    /** Where records' values are read: the reader's buffer, or a deferred record's copy ({@link #from}). */
    private MemorySegment file;
    /** The file offset of a deferred record's copy (0 otherwise: offsets are the reader's). */
    private long copyAt;
    private final Location location = new Location();
    private final Location cell = new Location();

    RecordApplier(NodeTree tree, SectionReader in) {
        this.tree = tree;
        this.in = in;
    }

    /** Values come from {@code copy} (a deferred record's, at file offset {@code at}) from now on. */
    void from(MemorySegment copy, long at) {
        this.file = copy;
        this.copyAt = at;
    }

    void root(NodeGeometry root, long data) {
        MemorySegment.copy(source(), data, tree.root(), 0, root.fieldBytes());
    }

    private MemorySegment source() {
        return file != null ? file : in.memory();
    }

    /** Moves {@link #location} to the parent cell of a record whose parent coordinates are {@code parent}. */
    private void parent(NodeGeometry node, int[] parent, long at) throws io.snode.codegen.interop.SnapshotException {
        SNode above = node.snode.parent();
        if (above.kind() == NodeKind.ROOT) {
            location.set(tree.root(), 0);
            return;
        }
        if (!tree.locate(above, parent, false, location)) {
            throw in.fail(in.where() + ", record at byte " + (file != null ? copyAt : in.fileOffset(at)) + " of " + node
                    + ": its parent cell "
                    + Arrays.toString(parent) + " of " + above.path() + " is not active (no earlier record activates it)");
        }
    }

    /**
     * Gives the hash container of the cell at {@code coordinates} (a record's base) the table
     * that {@code cells} new cells need, before the first of them is inserted
     * ({@link NodeTree#reserveHashEntries}): one table instead of a growth in stages, whose
     * outgrown tables would hold memory until a collection, which a load does not run. Nothing
     * happens where the parent cell is inactive (the record's own step then refuses the file).
     */
    void reserveHash(NodeGeometry node, int[] coordinates, long cells) {
        tree.reserveHashEntries(node.snode, coordinates, cells, location);
    }

    void block(NodeGeometry node, int[] base, long[] mask, boolean packed, long data, long at)
            throws io.snode.codegen.interop.SnapshotException {
        if (node.kind == NodeKind.HASH) {
            int[] parent = new int[node.parentPositions.length];
            for (int m = 0; m < parent.length; m++) {
                parent[m] = base[node.parentPositions[m]] / node.sizes[node.parentPositions[m]];
            }
            parent(node, parent, at);
            tree.locate(node.snode, base, true, cell);
            copyIn(data, cell.segment, cell.offset, node.fieldBytes());
            return;
        }
        parent(node, node.parentCoordinates(base, 0), at);
        MemorySegment segment = location.segment;
        long container = location.offset + node.containerOffset;
        switch (node.kind) {
            case DENSE -> cells(node, segment, container, null, data);
            case BITMASKED -> {
                // Cells first: a plain copy is the first touch of fresh node memory, so its page
                // faults in writable once; the atomic OR below then finds it there (an OR first
                // would read, mapping the shared zero page, and fault again, with a TLB flush on
                // every core, to write). The bits also come after their values, as elsewhere.
                cells(node, segment, container + node.plan.cellsOffset(), packed ? mask : null, data);
                for (int w = 0; w < mask.length; w++) {
                    if (mask[w] != 0) {
                        Atomics.getAndBitwiseOr(segment, container + 8L * w, mask[w]);
                    }
                }
                tree.activationsCompleted(); // as any activation: launches' snapshots and a snapshot's write see it
            }
            case POINTER -> pointerCells(node, base, mask, data);
            default -> throw new AssertionError(node.kind);
        }
    }

    /** Copies a container's cells: all of them ({@code mask} null), else the ones whose bit is set. */
    private void cells(NodeGeometry node, MemorySegment segment, long cells, long[] mask, long data) {
        long kept = node.fieldBytes();
        if (kept == 0) {
            return;
        }
        if (mask == null && node.wholeCells()) {
            copyIn(data, segment, cells, node.cellCount * node.cellBytes);
            return;
        }
        for (long n = 0; n < node.cellCount; n++) {
            if (mask == null || (mask[(int) (n >>> 6)] & (1L << n)) != 0) {
                copyIn(data, segment, cells + n * node.cellBytes, kept);
                data += kept;
            }
        }
    }

    private void pointerCells(NodeGeometry node, int[] base, long[] mask, long data) {
        int[] coordinates = new int[node.arity];
        long kept = node.fieldBytes();
        for (int w = 0; w < mask.length; w++) {
            long bits = mask[w];
            while (bits != 0) {
                long index = (long) w * 64 + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                node.cellCoordinates(base, index, coordinates);
                tree.locate(node.snode, coordinates, true, cell);
                if (kept > 0) {
                    copyIn(data, cell.segment, cell.offset, kept);
                    data += kept;
                }
            }
        }
    }

    /** The list piece at {@code at} (an offset in the reader's buffer) starts a list: its parent cell must be active. */
    void listStart(NodeGeometry node, int[] base, long at) throws io.snode.codegen.interop.SnapshotException {
        parent(node, node.parentCoordinates(base, 0), at);
    }

    /** Chunk {@code chunk} of a list, {@code cells} elements: made by a write at its last element, then copied. */
    void chunk(NodeGeometry node, int[] base, long chunk, long cells, long data) {
        long last = chunk * node.snode.chunkSize() + cells - 1;
        int[] coordinates = base.clone();
        coordinates[node.listPosition] = (int) last;
        tree.locate(node.snode, coordinates, true, cell);
        long start = cell.offset - (last % node.snode.chunkSize()) * node.cellBytes;
        copyIn(data, cell.segment, start, cells * node.cellBytes);
    }

    /** Raises the list's length to {@code length} when its last chunk had no memory, and checks it. */
    void listEnd(NodeGeometry node, int[] base, long length, String record)
            throws io.snode.codegen.interop.SnapshotException {
        int[] coordinates = base.clone();
        if (tree.length(node.snode, coordinates, cell) < length) {
            coordinates[node.listPosition] = (int) (length - 1);
            tree.locate(node.snode, coordinates, true, cell);
        }
        long loaded = tree.length(node.snode, base, cell);
        if (loaded != length) {
            throw in.fail(record + ": the list holds " + loaded + " elements after loading, the snapshot " + length);
        }
    }

    private void copyIn(long data, MemorySegment segment, long offset, long bytes) {
        MemorySegment.copy(source(), data, segment, offset, bytes);
    }
}
