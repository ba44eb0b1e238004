package io.snode.codegen.internal.snapshot;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.PointerWord;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.NodeTree;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.function.Consumer;

/**
 * Writes one runtime's structure and values as a snapshot ({@link SnapshotFormat}): the layout
 * text, the root cell's fields, then per SNode in id order its records, taken block-wise from a
 * sequential snapshot of its active blocks ({@link ActiveBlocks}): a dense or bitmasked block's
 * cells are copied into the buffer with one copy when a cell's kept bytes are the whole cell, a
 * pointer block's mask comes from the snapshot and its active cells' fields are copied cell by
 * cell, a list's chunks are copied chunk by chunk. Then the END section and a force of the
 * channel. The caller keeps collections away (a launch of the phase lock) and other threads
 * from changing the structure while it runs. Where another thread does change it, the write
 * ends with {@link ConcurrentModificationException} before the END section (a file that every
 * read refuses) in two ways. The structure's epoch (deactivations) or activation stamp
 * (activations, appends, a load's records) taken before the first walk has moved when the
 * sections are written: every change completed during the write. And each record's parent cell
 * must be active by a record written before, and a dense SNode with fields must have a record
 * per active parent cell, as the reader requires ({@link RecordParents}): a change still in
 * progress when the write ends (its store made, its count not yet, so the stamps miss it) that
 * falls between the walks of a parent and its children. So a write that completes has written a
 * file every read accepts: the structure before a change in progress, or with it, never a
 * record without its parent. Values written meanwhile into cells already active are not detected.
 */
public final class SnapshotWriter {
    private final NodeTree tree;
    private final Layout layout;
    private final SectionWriter out;
    private final long[] records;
    private final NodeGeometry[] nodes;
    /** What the records written so far activate: each record's parent cell must be active by an earlier one. */
    private final RecordParents parents;

    private SnapshotWriter(NodeTree tree, Layout layout, FileChannel channel, int bufferBytes) {
        this.tree = tree;
        this.layout = layout;
        this.out = new SectionWriter(channel, bufferBytes);
        this.records = new long[layout.snodes().size()];
        this.nodes = new NodeGeometry[layout.snodes().size()];
        for (SNode snode : layout.snodes()) {
            nodes[snode.id()] = new NodeGeometry(tree.plan(), snode);
        }
        this.parents = new RecordParents(nodes);
    }

    /** Writes the snapshot of the runtime whose structure is {@code tree} to {@code channel}, forced to storage. */
    public static long write(NodeTree tree, Layout layout, FileChannel channel) throws IOException {
        return write(tree, layout, channel, snode -> { });
    }

    /** {@link #write(NodeTree, Layout, FileChannel)}, calling {@code afterEach} after each SNode's records (for tests). */
    static long write(NodeTree tree, Layout layout, FileChannel channel, Consumer<SNode> afterEach) throws IOException {
        SnapshotWriter writer = new SnapshotWriter(tree, layout, channel, SectionWriter.DEFAULT_BUFFER);
        writer.run(afterEach);
        channel.force(true);
        return writer.out.bytesWritten();
    }

    private void run(Consumer<SNode> afterEach) throws IOException {
        // Both before the first walk: an activation (a list's append included) or a deactivation
        // that completes later moves one of them (as a launch's snapshot of active blocks sees).
        long activations = tree.activationStamp();
        long epoch = tree.epoch();
        out.fileHeader();
        byte[] text = layout.toString().getBytes(StandardCharsets.UTF_8);
        out.begin(SnapshotFormat.LAYOUT, 0);
        out.reserve(text.length);
        out.buffer().put(text);
        out.end();
        for (SNode snode : layout.snodes()) {
            NodeGeometry node = nodes[snode.id()];
            switch (snode.kind()) {
                case ROOT -> root(node);
                case DENSE, BITMASKED, POINTER, HASH -> blocks(node);
                case DYNAMIC -> lists(node);
                default -> throw new AssertionError(snode.kind());
            }
            afterEach.accept(snode);
        }
        for (NodeGeometry node : nodes) {
            if (node.kind == NodeKind.DENSE && node.fieldBytes() > 0
                    && records[node.snode.id()] != parents.activeCells(node.snode.parent())) {
                // the reader's count at the END section (a parent cell deactivated between the walks)
                throw changed(records[node.snode.id()] + " blocks of " + node + " written for "
                        + parents.activeCells(node.snode.parent()) + " active cells of " + node.snode.parent().path());
            }
        }
        if (tree.epoch() != epoch || tree.activationStamp() != activations) {
            throw changed("a cell activated, deactivated or appended to by another thread");
        }
        int sections = out.sections();
        out.begin(SnapshotFormat.END, 0);
        out.reserve(8 + 8L * records.length);
        out.buffer().putInt(sections).putInt(records.length);
        for (long count : records) {
            out.buffer().putLong(count);
        }
        out.end();
        out.flush();
    }

    /**
     * The write's failure when the structure changed under it, thrown before the END section, so
     * that every read refuses what was written.
     */
    private static ConcurrentModificationException changed(String what) {
        return new ConcurrentModificationException("the runtime changed while its snapshot was written (" + what
                + "): the file is incomplete and every read refuses it; write again once nothing changes the runtime");
    }

    /**
     * Fails unless the parent cell of the record of {@code node} whose base is at {@code bases[at ...]} is active by a
     * record written before (else the reader would refuse the file): the parent's walk came before
     * another thread activated it.
     */
    private void requireParent(NodeGeometry node, int[] bases, int at) {
        int[] parent = node.kind == NodeKind.HASH
                ? node.parentCoordinates(node.containerBase(Arrays.copyOfRange(bases, at, at + node.arity)), 0)
                : node.parentCoordinates(bases, at);
        if (!parents.parentActive(node, parent)) {
            throw changed("a record of " + node + " lies in cell " + Arrays.toString(parent) + " of "
                    + node.snode.parent().path() + ", which was not active when that SNode was written");
        }
    }

    private void root(NodeGeometry node) throws IOException {
        if (node.fieldBytes() == 0) {
            return;
        }
        out.begin(SnapshotFormat.ROOT, 0);
        out.reserve(node.fieldBytes());
        copyOut(tree.root(), 0, node.fieldBytes());
        out.end();
    }

    private void blocks(NodeGeometry node) throws IOException {
        if (node.kind == NodeKind.DENSE && node.fieldBytes() == 0) {
            return; // its cells are active with their parent and hold nothing
        }
        ActiveBlocks blocks = ActiveBlocks.of(tree, node.snode);
        int[] bases = blocks.bases();
        long[] masks = blocks.masks();
        CheckedCells children = node.kind == NodeKind.POINTER ? tree.cells(node.snode) : null;
        long kept = node.fieldBytes();
        out.begin(SnapshotFormat.BLOCKS, node.snode.id());
        for (int b = 0; b < blocks.size(); b++) {
            long active = blocks.activeCells(b);
            if (active == 0) {
                continue; // a bitmasked or pointer container with nothing active: its parent's record says all
            }
            requireParent(node, bases, b * node.arity);
            if (parents.tracks(node)) {
                parents.activate(node, Arrays.copyOfRange(bases, b * node.arity, (b + 1) * node.arity),
                        node.maskWords == 0 ? null : Arrays.copyOfRange(masks, b * node.maskWords, (b + 1) * node.maskWords));
            }
            boolean packed = node.kind == NodeKind.POINTER
                    || (node.kind == NodeKind.BITMASKED && !node.wholeCells());
            long cells = node.kind == NodeKind.HASH ? 1 : packed ? active : node.cellCount;
            out.reserve(node.recordHeadBytes() + cells * kept);
            var buffer = out.buffer();
            for (int n = 0; n < node.arity; n++) {
                buffer.putInt(bases[b * node.arity + n]);
            }
            for (int w = 0; w < node.maskWords; w++) {
                buffer.putLong(masks[b * node.maskWords + w]);
            }
            if (node.kind == NodeKind.BITMASKED) {
                buffer.put(packed ? SnapshotFormat.ACTIVE_CELLS : SnapshotFormat.ALL_CELLS);
            }
            if (kept == 0) {
                records[node.snode.id()]++;
                continue;
            }
            MemorySegment segment = blocks.segment(b);
            long container = blocks.container(b);
            switch (node.kind) {
                case HASH -> copyOut(segment, container, kept);
                case DENSE -> copyCells(segment, container, node, node.cellCount, null, 0);
                case BITMASKED -> copyCells(segment, container + node.plan.cellsOffset(), node, node.cellCount,
                        packed ? masks : null, b * node.maskWords);
                case POINTER -> pointerCells(segment, container, node, children, masks, b * node.maskWords);
                default -> throw new AssertionError(node.kind);
            }
            records[node.snode.id()]++;
        }
        out.end();
    }

    /** Cells of a container: all of them ({@code masks} null), else those whose bit is set. */
    private void copyCells(MemorySegment segment, long cells, NodeGeometry node, long count, long[] masks, int at) {
        long kept = node.fieldBytes();
        if (masks == null && node.wholeCells()) {
            copyOut(segment, cells, count * node.cellBytes);
            return;
        }
        for (long n = 0; n < count; n++) {
            if (masks == null || (masks[at + (int) (n >>> 6)] & (1L << n)) != 0) {
                copyOut(segment, cells + n * node.cellBytes, kept);
            }
        }
    }

    /** The kept bytes of every active child cell of a pointer container, in cell order. */
    private void pointerCells(MemorySegment segment, long container, NodeGeometry node, CheckedCells children,
                              long[] masks, int at) {
        for (int w = 0; w < node.maskWords; w++) {
            long bits = masks[at + w];
            while (bits != 0) {
                long index = (long) w * 64 + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                long word = Atomics.getAcquire(segment, container + PointerWord.wordOffset(index));
                if (!PointerWord.isActive(word)) {
                    throw changed("cell " + index + " of a container of " + node.snode.path() + " was deactivated");
                }
                long cell = PointerWord.cellIndex(word);
                copyOut(children.segment(cell), children.offset(cell), node.fieldBytes());
            }
        }
    }

    private void lists(NodeGeometry node) throws IOException {
        ActiveBlocks blocks = ActiveBlocks.of(tree, node.snode);
        int[] bases = blocks.bases();
        long elementBytes = node.cellBytes;
        long chunkBytes = node.plan.chunkBytes();
        long head = 4L * node.arity + SnapshotFormat.LIST_PIECE_BYTES;
        out.begin(SnapshotFormat.LISTS, node.snode.id());
        for (int b = 0; b < blocks.size(); b++) {
            if (blocks.length(b) == 0) {
                continue; // an empty list: its parent's record says all
            }
            requireParent(node, bases, b * node.arity);
            parents.listStarts(node, Arrays.copyOfRange(bases, b * node.arity, (b + 1) * node.arity));
            LeafBlock list = blocks.leaf(b);
            int chunks = list.chunkCount();
            int chunk = 0;
            while (chunk < chunks) {
                out.reserve(head + 1 + chunkBytes);
                int first = chunk;
                long room = out.room() - head;
                var buffer = out.buffer();
                int start = out.position();
                buffer.position(start + (int) head);
                while (chunk < chunks && room >= 1 + list.chunkCells(chunk) * elementBytes) {
                    MemorySegment memory = list.chunk(chunk);
                    boolean present = !memory.isReadOnly();
                    buffer.put((byte) (present ? 1 : 0));
                    room--;
                    if (present) {
                        copyOut(memory, 0, memory.byteSize());
                        room -= memory.byteSize();
                    }
                    chunk++;
                }
                int end = buffer.position();
                buffer.position(start);
                for (int n = 0; n < node.arity; n++) {
                    buffer.putInt(bases[b * node.arity + n]);
                }
                buffer.putLong(list.cellCount()).putInt(first).putInt(chunk - first);
                buffer.position(end);
                records[node.snode.id()]++;
            }
        }
        out.end();
    }

    /** Copies {@code bytes} of {@code segment} from {@code offset} to the buffer's position, and moves it on. */
    private void copyOut(MemorySegment segment, long offset, long bytes) {
        int position = out.position();
        MemorySegment.copy(segment, offset, out.memory(), position, bytes);
        out.buffer().position(position + (int) bytes);
    }
}
