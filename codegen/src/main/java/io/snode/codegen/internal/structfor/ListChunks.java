package io.snode.codegen.internal.structfor;

import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.node.DynamicUnit;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where the chunks of every list of a dynamic target's snapshot lie, resolved once for the block
 * forms ({@link ActiveBlocks#list}): chunk {@code c} of block {@code b} starts at byte
 * {@code offsets[first[b] + c]} of {@code segments[first[b] + c]}, for {@code c} below
 * {@code ceil(length(b) / chunkSize)}. A block kernel then loops over contiguous memory per chunk
 * instead of finding each element's chunk through the list's header and directory again.
 *
 * <p>Each list's chunks are read after the snapshot read its length (with acquire ordering): an
 * append publishes the chunk of an element (release) before it takes the element's index, so
 * every chunk below the length is found. A chunk with no memory (below the length, never written,
 * left by a write past the length; or emptied by a deactivation racing the launch) resolves to a
 * read-only segment of zeros, what reading its elements gives; its memory is kept with these
 * arrays for the next snapshot that takes them over.
 *
 * <p>Made on a snapshot's first block-form launch and kept with it, as
 * {@link ActiveBlocks#weightPrefix()} is: while the snapshot describes the structure (no
 * activation, deactivation or collection since its walk) the chunks stay where they are, since a
 * chunk moves only when its list is emptied and memory is reused only after a collection. A
 * kept set is reused after activations too: a chunk that a later write gave memory below the
 * length still reads as the zeros it held when the set's chunks were resolved.
 */
final class ListChunks {
    final MemorySegment[] segments;
    final long[] offsets;
    /** Block {@code b}'s chunks start at entry {@code first[b]}; {@code first[size]} is the total. */
    final int[] first;
    /** chunkSize * cellBytes read-only zero bytes, or null until a chunk without memory needs them. */
    private final MemorySegment zeros;

    private ListChunks(MemorySegment[] segments, long[] offsets, int[] first, MemorySegment zeros) {
        this.segments = segments;
        this.offsets = offsets;
        this.first = first;
        this.zeros = zeros;
    }

    /** Chunk {@code c} of block {@code b}'s memory, or null where it resolved to the zeros (no memory then). */
    MemorySegment memory(int b, long c) {
        MemorySegment segment = segments[first[b] + (int) c];
        return segment == zeros ? null : segment;
    }

    /**
     * The chunks of every block of {@code blocks} (a dynamic target's), read now; the arrays of
     * {@code spare} (those of an earlier snapshot of the same target that nobody reads any more,
     * or null) are refilled when they are large enough.
     *
     * @param chunks      the allocator of the target's element chunks
     * @param directories the allocator of its directory blocks, or null
     */
    static ListChunks resolve(ActiveBlocks blocks, CheckedCells chunks, CheckedCells directories, ListChunks spare) {
        SNodePlan plan = blocks.plan;
        long chunkSize = plan.chunkSize();
        int leafFanout = plan.directoryLeafFanout();
        int size = blocks.size();
        long total = 0;
        for (int b = 0; b < size; b++) {
            total += (blocks.length(b) + chunkSize - 1) / chunkSize;
        }
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("the lists of " + blocks.target().path() + " hold " + total
                    + " chunks, more than the block forms can hand over in one launch (2^31 - 16)");
        }
        int count = (int) total;
        boolean reuse = spare != null && spare.segments.length >= count && spare.first.length >= size + 1;
        MemorySegment[] segments = reuse ? spare.segments : new MemorySegment[Math.max(16, count)];
        long[] offsets = reuse ? spare.offsets : new long[segments.length];
        int[] first = reuse ? spare.first : new int[size + 1];
        MemorySegment zeros = spare == null ? null : spare.zeros;
        int at = 0;
        for (int b = 0; b < size; b++) {
            first[b] = at;
            MemorySegment header = blocks.segment(b);
            long container = blocks.container(b);
            long listChunks = (blocks.length(b) + chunkSize - 1) / chunkSize;
            for (long c = 0; c < listChunks; c++, at++) {
                long reference = DynamicUnit.chunkReference(header, container, c, directories, leafFanout);
                if (reference == PointerWord.NULL) {
                    if (zeros == null) {
                        zeros = Arena.ofAuto().allocate(plan.chunkBytes(), Long.BYTES).asReadOnly();
                    }
                    segments[at] = zeros;
                    offsets[at] = 0;
                    continue;
                }
                long cell = PointerWord.cellIndex(reference);
                MemorySegment segment = chunks.segment(cell);
                if (segments[at] != segment) {
                    segments[at] = segment; // refilled arrays mostly hold the same chunk already
                }
                offsets[at] = chunks.offset(cell);
            }
        }
        first[size] = at;
        return new ListChunks(segments, offsets, first, zeros);
    }
}
