package io.snode.codegen.internal.snapshot;

import static io.snode.codegen.internal.snapshot.SnapshotFormat.INT;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.LONG;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.interop.SnapshotException;
import io.snode.runtime.HashHeader;
import io.snode.runtime.Plan;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the sections after the layout ({@link SectionReader}) and checks every record against
 * the layout: base coordinates inside the parent's index space, mask bits inside the container,
 * encodings, list lengths within the capacity and pieces in order, records that end where their
 * section ends, SNodes in id order, and the END section's counts. It also keeps what the records
 * read so far activate ({@link RecordParents}), so that it checks, without a runtime, everything a
 * load would refuse: each record's parent cell is activated by an earlier record, each list comes
 * once; and that a dense SNode with fields has one record per block in an active parent cell (as
 * the writer writes them), checked as a bound when a record activates the cells that hold those
 * blocks (their records must fit in the file, so a few bytes cannot make the load reserve a
 * block per mask bit) and counted exactly at the END section. With a tree to load into it also
 * applies each record once its section's checksum has been checked and the record passed every
 * check ({@link RecordApplier}); without one it only checks (the first pass of {@code readInto},
 * so that a refused file leaves the runtime untouched).
 */
public final class SnapshotLoader {
    private final SectionReader in;
    private final Layout layout;
    private final NodeGeometry[] nodes;
    private final RecordApplier apply;
    private final long[] records;
    private int lastSnode;
    private boolean rootSeen;
    /**
     * The records of the cells that are always active (the root's fields, and the blocks of dense
     * SNodes with no sparse SNode above them), applied only after the END section: their memory
     * exists from the start, so applying them allocates nothing and cannot fail, and a load that
     * the memory cap or the allocator stops halfway has not written them (readInto then leaves
     * them as they were).
     */
    private final java.util.List<Deferred> alwaysActive = new java.util.ArrayList<>();

    /**
     * An always-active record to apply after the END section: the root's fields ({@code base}
     * null) or a dense block, its values copied out of the reader's buffer ({@code data}), which
     * later sections refill; {@code at} is the record's offset in the file, for messages.
     */
    private record Deferred(NodeGeometry node, int[] base, MemorySegment data, long at) {
    }
    /** What the records read so far activate: each record's parent must be active by an earlier one. */
    private final RecordParents parents;
    /**
     * Per SNode id, the dense SNodes with fields whose blocks live in its cells (through dense
     * SNodes only) and how many of their blocks one cell holds: a sparse SNode's records must not
     * activate more cells than the file could hold these blocks' records for.
     */
    private final List<DenseBelow>[] denseBelow;

    /** Blocks of {@code dense} (an SNode with fields, so one record each) held by one cell of the sparse SNode above. */
    private record DenseBelow(NodeGeometry dense, long perCell) {
    }

    /** The list whose pieces are being read: its base, length and next chunk; null between lists. */
    private int[] listBase;
    private long listLength;
    private long listNextChunk;

    private SnapshotLoader(SectionReader in, Layout layout, Plan plan, NodeTree tree) {
        this.in = in;
        this.layout = layout;
        this.nodes = new NodeGeometry[layout.snodes().size()];
        for (SNode snode : layout.snodes()) {
            nodes[snode.id()] = new NodeGeometry(plan, snode);
        }
        this.apply = tree == null ? null : new RecordApplier(tree, in);
        this.records = new long[nodes.length];
        this.parents = new RecordParents(nodes);
        @SuppressWarnings("unchecked")
        List<DenseBelow>[] below = new List[nodes.length];
        this.denseBelow = below;
        for (SNode snode : layout.snodes()) {
            if (snode.kind() != NodeKind.DENSE || nodes[snode.id()].fieldBytes() == 0) {
                continue;
            }
            long perCell = 1;
            SNode above = snode.parent();
            while (above.kind() == NodeKind.DENSE) {
                perCell = RecordParents.saturatedProduct(perCell, nodes[above.id()].cellCount);
                above = above.parent();
            }
            if (above.kind() != NodeKind.ROOT) { // below the root, the blocks exist from the start
                if (below[above.id()] == null) {
                    below[above.id()] = new ArrayList<>();
                }
                below[above.id()].add(new DenseBelow(nodes[snode.id()], perCell));
            }
        }
    }

    /**
     * Reads every section after the layout of {@code in} (whose layout text is {@code layout}'s),
     * checking each, and loads it into {@code tree} when it is not null.
     */
    static void load(SectionReader in, Layout layout, Plan plan, NodeTree tree) throws SnapshotException {
        new SnapshotLoader(in, layout, plan, tree).run();
    }

    private void run() throws SnapshotException {
        while (in.next()) {
            switch (in.kind) {
                case SnapshotFormat.LAYOUT -> throw in.fail(in.where() + ": a second LAYOUT section");
                case SnapshotFormat.ROOT -> root();
                case SnapshotFormat.BLOCKS, SnapshotFormat.LISTS -> records();
                case SnapshotFormat.END -> end();
                default -> throw new AssertionError(in.kind);
            }
        }
    }

    private void root() throws SnapshotException {
        NodeGeometry root = nodes[0];
        if (rootSeen || lastSnode > 0) {
            throw in.fail(in.where() + ": the ROOT section comes once, before the SNodes' sections");
        }
        rootSeen = true;
        if (in.length != root.fieldBytes()) {
            throw in.fail(in.where() + ": " + in.length + " bytes of root fields; the layout's root fields take "
                    + root.fieldBytes());
        }
        if (apply != null) {
            alwaysActive.add(new Deferred(root, null, in.copy(in.payload, in.length), in.fileOffset(in.payload)));
        }
    }

    /** Whether {@code snode}'s cells are always active: every SNode from the root to it dense. */
    private static boolean alwaysActive(SNode snode) {
        for (SNode s = snode; s.kind() != NodeKind.ROOT; s = s.parent()) {
            if (s.kind() != NodeKind.DENSE) {
                return false;
            }
        }
        return true;
    }

    private void applyAlwaysActive() throws SnapshotException {
        for (Deferred record : alwaysActive) {
            apply.from(record.data(), record.at());
            if (record.base() == null) {
                apply.root(record.node(), 0);
            } else {
                apply.block(record.node(), record.base(), null, false, 0, 0);
            }
        }
    }

    private void records() throws SnapshotException {
        int id = in.snode;
        if (id <= 0 || id >= nodes.length) {
            throw in.fail(in.where() + ": snode id " + id + " outside 1.." + (nodes.length - 1) + " of layout " + layout);
        }
        NodeGeometry node = nodes[id];
        boolean lists = in.kind == SnapshotFormat.LISTS;
        if (lists != (node.kind == NodeKind.DYNAMIC)) {
            throw in.fail(in.where() + ": snode " + id + " is " + node.snode.path() + ", which takes "
                    + (lists ? "BLOCKS" : "LISTS") + " sections");
        }
        if (id < lastSnode) {
            throw in.fail(in.where() + ": snode " + id + " after snode " + lastSnode + "; SNodes come in id order");
        }
        if (id != lastSnode) {
            finishList();
        }
        lastSnode = id;
        long at = in.payload;
        long end = in.payload + in.length;
        if (apply != null && node.kind == NodeKind.HASH) {
            reserveHashTables(node, at, end);
        }
        while (at < end) {
            at = lists ? list(node, at, end) : block(node, at, end);
            records[id]++;
        }
    }

    private long block(NodeGeometry node, long at, long end) throws SnapshotException {
        MemorySegment file = in.memory();
        requireBytes(node, at, end, node.recordHeadBytes(), "the record's head");
        int[] base = base(node, at, node.kind == NodeKind.HASH ? node.shape : node.baseBounds);
        long p = at + 4L * node.arity;
        long[] mask = null;
        long cells = node.kind == NodeKind.HASH ? 1 : node.cellCount;
        if (node.maskWords > 0) {
            mask = new long[node.maskWords];
            long bitCount = 0;
            for (int w = 0; w < mask.length; w++) {
                mask[w] = file.get(LONG, p + 8L * w);
                bitCount += Long.bitCount(mask[w]);
            }
            long tail = node.cellCount & 63;
            if (tail != 0 && (mask[mask.length - 1] >>> tail) != 0) {
                throw in.fail(in.where() + ", record at byte " + in.fileOffset(at) + " of " + node + ": mask bits set at or past cell "
                        + node.cellCount);
            }
            p += 8L * mask.length;
            boolean packed = node.kind == NodeKind.POINTER;
            if (node.kind == NodeKind.BITMASKED) {
                byte encoding = file.get(java.lang.foreign.ValueLayout.JAVA_BYTE, p++);
                if (encoding != SnapshotFormat.ALL_CELLS && encoding != SnapshotFormat.ACTIVE_CELLS) {
                    throw in.fail(in.where() + ", record at byte " + in.fileOffset(at) + " of " + node + ": cell encoding " + encoding
                            + ", not 0 (every cell) or 1 (the active cells)");
                }
                packed = encoding == SnapshotFormat.ACTIVE_CELLS;
            }
            cells = packed ? bitCount : node.cellCount;
        }
        long data = cells * node.fieldBytes();
        requireBytes(node, p, end, data, cells + " cells of " + node.fieldBytes() + " bytes");
        // a hash record's base is its cell's coordinates, any other's its container's
        requireParentActive(node, node.parentCoordinates(node.kind == NodeKind.HASH ? node.containerBase(base) : base, 0),
                at);
        activate(node, base, mask, at);
        if (apply != null && alwaysActive(node.snode)) {
            alwaysActive.add(new Deferred(node, base, in.copy(p, data), in.fileOffset(at)));
        } else if (apply != null) {
            apply.block(node, base, mask, cells != node.cellCount || node.kind == NodeKind.HASH, p, at);
        }
        return p + data;
    }

    /** The most hash containers per section whose records {@link #reserveHashTables} counts. */
    static final int COUNTED_CONTAINERS = 4096;

    /**
     * Before the hash records of a section are loaded: counts them per container and gives each
     * container that takes more than a table of {@link HashHeader#MIN_CAPACITY} holds the table
     * that inserting them one by one would end with, at once ({@link RecordApplier#reserveHash}),
     * so that the load does not grow it in stages whose outgrown tables would hold memory until
     * a collection. The records are read here without checks, only to count them (one whose
     * coordinates lie outside the index space is not counted); each is checked when its turn
     * comes. The parents' records, in earlier SNodes' sections, are loaded already. A writer
     * puts the records of many containers in one section, in the order of the cells' memory, and
     * a container's records may span sections: its table then grows at most once per section.
     */
    private void reserveHashTables(NodeGeometry node, long at, long end) {
        // Containers are counted up to COUNTED_CONTAINERS per section, so that the count's map
        // (about 100 bytes of Java heap a container) stays small whatever the file holds, also
        // for records that the checks will refuse (under inactive parent cells, say); the
        // containers after those grow in stages, as before.
        MemorySegment file = in.memory();
        long recordBytes = 4L * node.arity + node.fieldBytes();
        Map<RecordParents.Cell, long[]> counts = new HashMap<>(); // by a container's first cell
        int[] base = new int[node.arity];
        int[] low = new int[node.arity]; // a power-of-two size's mask of a container's first cell (no division)
        for (int n = 0; n < node.arity; n++) {
            low[n] = Integer.bitCount(node.sizes[n]) == 1 ? -node.sizes[n] : 0;
        }
        int[] last = null; // the container of the record before, and its count: most records of a
        long[] lastCount = null; // hash at the root, or of few containers, need no map look-up
        records:
        for (long p = at; recordBytes <= end - p; p += recordBytes) {
            for (int n = 0; n < node.arity; n++) {
                int x = file.get(INT, p + 4L * n);
                if (x < 0 || x >= node.shape[n]) {
                    continue records;
                }
                base[n] = low[n] != 0 ? x & low[n] : x / node.sizes[n] * node.sizes[n];
            }
            if (last == null || !Arrays.equals(base, last)) {
                last = base.clone();
                RecordParents.Cell key = new RecordParents.Cell(last);
                lastCount = counts.get(key);
                if (lastCount == null && counts.size() < COUNTED_CONTAINERS) {
                    lastCount = new long[1];
                    counts.put(key, lastCount);
                }
            }
            if (lastCount != null) {
                lastCount[0]++;
            }
        }
        counts.forEach((container, count) -> {
            // A file may repeat a cell's record (the last value wins; no writer does): at most
            // the container's cells, then, where that is fewer.
            long cells = Math.min(count[0], node.cellCount);
            if (cells > HashHeader.maxUsed(HashHeader.MIN_CAPACITY)) {
                apply.reserveHash(node, container.at(), cells);
            }
        });
    }

    private long list(NodeGeometry node, long at, long end) throws SnapshotException {
        MemorySegment file = in.memory();
        long head = 4L * node.arity + SnapshotFormat.LIST_PIECE_BYTES;
        requireBytes(node, at, end, head, "the list piece's head");
        int[] base = base(node, at, node.baseBounds);
        long p = at + 4L * node.arity;
        long length = file.get(LONG, p);
        long first = Integer.toUnsignedLong(file.get(INT, p + 8));
        long count = Integer.toUnsignedLong(file.get(INT, p + 12));
        p += SnapshotFormat.LIST_PIECE_BYTES;
        String record = in.where() + ", list piece at byte " + in.fileOffset(at) + " of " + node;
        int capacity = node.snode.capacity();
        if (length < 1 || length > capacity) {
            throw in.fail(record + ": length " + length + " outside 1.." + capacity);
        }
        long chunkSize = node.snode.chunkSize();
        long chunks = (length + chunkSize - 1) / chunkSize;
        if (first == 0) {
            finishList();
            requireParentActive(node, node.parentCoordinates(base, 0), at);
            if (!parents.listStarts(node, base)) {
                throw in.fail(record + ": list " + Arrays.toString(base) + " comes a second time (a list's pieces come"
                        + " once, in order)");
            }
            listBase = base;
            listLength = length;
            listNextChunk = 0;
        } else if (listBase == null || !Arrays.equals(base, listBase) || length != listLength
                || first != listNextChunk) {
            throw in.fail(record + ": chunks from " + first + " of list " + Arrays.toString(base)
                    + ", which is not the list whose chunks came before");
        }
        if (count < 1 || first + count > chunks) {
            throw in.fail(record + ": chunks " + first + ".." + (first + count) + " of a list of " + length
                    + " elements in " + chunks + " chunks");
        }
        if (apply != null && first == 0) {
            apply.listStart(node, base, at);
        }
        for (long c = first; c < first + count; c++) {
            requireBytes(node, p, end, 1, "chunk " + c + "'s flag");
            byte present = file.get(java.lang.foreign.ValueLayout.JAVA_BYTE, p++);
            if (present != 0 && present != 1) {
                throw in.fail(record + ": chunk " + c + " flag " + present + ", not 0 (no memory) or 1");
            }
            if (present == 1) {
                long cells = Math.min(chunkSize, length - c * chunkSize);
                requireBytes(node, p, end, cells * node.cellBytes, "chunk " + c + " of " + cells + " elements");
                if (apply != null) {
                    apply.chunk(node, base, c, cells, p);
                }
                p += cells * node.cellBytes;
            }
        }
        listNextChunk = first + count;
        if (listNextChunk == chunks) {
            if (apply != null) {
                apply.listEnd(node, base, length, record);
            }
            listBase = null;
        }
        return p;
    }

    /** Fails unless the parent cell at {@code parent} of the record at {@code at} is active (by an earlier record). */
    private void requireParentActive(NodeGeometry node, int[] parent, long at) throws SnapshotException {
        if (!parents.parentActive(node, parent)) {
            throw in.fail(in.where() + ", record at byte " + in.fileOffset(at) + " of " + node + ": its parent cell "
                    + Arrays.toString(parent) + " of " + node.snode.parent().path()
                    + " is not active (no earlier record activates it)");
        }
    }

    /**
     * Notes the cells that the record at {@code at} of a sparse SNode with children activates,
     * and fails when the file cannot hold a record for each block of a dense SNode with fields
     * that the active cells now hold (before the load activates them).
     */
    private void activate(NodeGeometry node, int[] base, long[] mask, long at) throws SnapshotException {
        long added = parents.activate(node, base, mask);
        long active = added == 0 ? 0 : parents.activeCells(node.snode);
        List<DenseBelow> below = denseBelow[node.snode.id()];
        if (added == 0 || below == null) {
            return;
        }
        for (DenseBelow dense : below) {
            long blocks = RecordParents.saturatedProduct(active, dense.perCell());
            long recordBytes = dense.dense().denseRecordBytes();
            if (blocks > in.size() / recordBytes) {
                throw in.fail(in.where() + ", record at byte " + in.fileOffset(at) + " of " + node + ": " + active
                        + " active cells hold " + blocks + " blocks of " + dense.dense() + ", whose records ("
                        + recordBytes + " bytes each, one per block) do not fit in the file's " + in.size() + " bytes");
            }
        }
    }

    /** Fails when a list's pieces stopped before its last chunk. */
    private void finishList() throws SnapshotException {
        if (listBase != null) {
            throw in.fail(in.where() + ": list " + Arrays.toString(listBase) + " of snode " + lastSnode + " ends after "
                    + listNextChunk + " of its chunks (length " + listLength + ")");
        }
    }

    private int[] base(NodeGeometry node, long at, int[] bounds) throws SnapshotException {
        int[] base = new int[node.arity];
        for (int n = 0; n < base.length; n++) {
            base[n] = in.memory().get(INT, at + 4L * n);
            if (base[n] < 0 || base[n] >= bounds[n]) {
                throw in.fail(in.where() + ", record at byte " + in.fileOffset(at) + " of " + node + ": coordinate " + n + " is "
                        + base[n] + ", outside 0.." + (bounds[n] - 1));
            }
        }
        return base;
    }

    private void requireBytes(NodeGeometry node, long at, long end, long bytes, String what) throws SnapshotException {
        if (bytes > end - at) {
            throw in.fail(in.where() + ", at byte " + in.fileOffset(at) + " of " + node + ": " + what + " takes " + bytes
                    + " bytes, the section has " + (end - at) + " left");
        }
    }

    private void end() throws SnapshotException {
        finishList();
        MemorySegment file = in.memory();
        if (in.length < 8) {
            throw in.fail(in.where() + ": " + in.length + " bytes, the END section takes at least 8");
        }
        int sections = file.get(INT, in.payload);
        int count = file.get(INT, in.payload + 4);
        if (count != nodes.length || in.length != 8 + 8L * count) {
            throw in.fail(in.where() + ": counts for " + count + " SNodes in " + in.length + " bytes; the layout has "
                    + nodes.length);
        }
        if (sections != in.index()) {
            throw in.fail(in.where() + ": written after " + sections + " sections, found after " + in.index());
        }
        for (int id = 0; id < count; id++) {
            long written = file.get(LONG, in.payload + 8 + 8L * id);
            if (written != records[id]) {
                throw in.fail(in.where() + ": " + written + " records of snode " + id + " written, " + records[id]
                        + " found");
            }
        }
        for (NodeGeometry node : nodes) {
            if (node.kind == NodeKind.DENSE && node.fieldBytes() > 0) {
                long expected = parents.activeCells(node.snode.parent());
                if (records[node.snode.id()] != expected) {
                    throw in.fail(in.where() + ": " + records[node.snode.id()] + " records of " + node
                            + ", which has one per active cell of " + node.snode.parent().path() + ": " + expected
                            + " active cells");
                }
            }
        }
        if (apply != null) {
            applyAlwaysActive();
        }
    }
}
