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
import java.util.ConcurrentModificationException;

/**
 * Writes one runtime's structure and values as a snapshot ({@link SnapshotFormat}): the layout
 * text, the root cell's fields, then per SNode in id order its records, taken block-wise from a
 * sequential snapshot of its active blocks ({@link ActiveBlocks}): a dense or bitmasked block's
 * cells are copied into the buffer with one copy when a cell's kept bytes are the whole cell, a
 * pointer block's mask comes from the snapshot and its active cells' fields are copied cell by
 * cell, a list's chunks are copied chunk by chunk. Then the END section and a force of the
 * channel. The caller keeps collections away (a launch of the phase lock) and other threads
 * from changing the structure while it runs. Where another thread does change it, the
 * structure's epoch (deactivations) or activation stamp (activations, appends) taken before the
 * first walk has moved when the sections are written, and the write ends with
 * {@link ConcurrentModificationException} before the END section: a file that every read refuses,
 * never a mix of two states that reads back. Values written meanwhile into cells already active
 * move neither and are not detected.
 */
public final class SnapshotWriter {
    private final NodeTree tree;
    private final Layout layout;
    private final SectionWriter out;
    private final long[] records;

    private SnapshotWriter(NodeTree tree, Layout layout, FileChannel channel, int bufferBytes) {
        this.tree = tree;
        this.layout = layout;
        this.out = new SectionWriter(channel, bufferBytes);
        this.records = new long[layout.snodes().size()];
    }

    /** Writes the snapshot of the runtime whose structure is {@code tree} to {@code channel}, forced to storage. */
    public static long write(NodeTree tree, Layout layout, FileChannel channel) throws IOException {
        SnapshotWriter writer = new SnapshotWriter(tree, layout, channel, SectionWriter.DEFAULT_BUFFER);
        writer.run();
        channel.force(true);
        return writer.out.bytesWritten();
    }

    private void run() throws IOException {
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
            NodeGeometry node = new NodeGeometry(tree.plan(), snode);
            switch (snode.kind()) {
                case ROOT -> root(node);
                case DENSE, BITMASKED, POINTER, HASH -> blocks(node);
                case DYNAMIC -> lists(node);
                default -> throw new AssertionError(snode.kind());
            }
        }
        if (tree.epoch() != epoch || tree.activationStamp() != activations) {
            // Before the END section, so that every read refuses what was written.
            throw new ConcurrentModificationException("the runtime changed while its snapshot was written (a cell"
                    + " activated, deactivated or appended to by another thread): the file is incomplete and every"
                    + " read refuses it; write again once nothing changes the runtime");
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
                    throw new ConcurrentModificationException("the runtime changed while its snapshot was written:"
                            + " cell " + index + " of a container of " + node.snode.path() + " was deactivated;"
                            + " the file is incomplete and every read refuses it");
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
