package io.snode.gc.internal;

import io.snode.runtime.internal.memory.ChunkGeometry;
import io.snode.runtime.internal.memory.IndexListDescriptor;
import io.snode.runtime.internal.memory.ListManager;
import io.snode.runtime.internal.vectorization.GcKernels;
import java.lang.foreign.MemorySegment;

/**
 * Bulk operations on lists of cell indices ({@link IndexListDescriptor} elements of a
 * {@link ListManager}) that cut a range at chunk boundaries and hand each contiguous piece to
 * a {@link GcKernels} call, instead of one {@code getInt}/{@code setInt} (two chunk look-ups) per
 * entry.
 */
public final class IndexLists {

    private IndexLists() {
    }

    /**
     * Copies entries {@code [srcIndex, srcIndex + count)} of {@code src} to
     * {@code [dstIndex, dstIndex + count)} of {@code dst}, piece by piece in ascending order.
     * Within one list, overlapping ranges are copied correctly when {@code dstIndex <= srcIndex}
     * (each piece is a {@code memmove}, and a piece never overwrites entries a later piece reads).
     * Both lists must have chunks for the ranges; sizes are not changed.
     */
    public static void copy(GcKernels kernels, ListManager src, long srcIndex, ListManager dst, long dstIndex,
                            long count) {
        if (src == dst && dstIndex > srcIndex && dstIndex < srcIndex + count) {
            throw new IllegalArgumentException("srcIndex=" + srcIndex + " dstIndex=" + dstIndex + " count=" + count
                    + " (an overlapping copy within one list must move entries down)");
        }
        checkIndexList(src);
        checkIndexList(dst);
        ChunkGeometry sg = src.geometry();
        ChunkGeometry dg = dst.geometry();
        long done = 0;
        while (done < count) {
            long s = srcIndex + done;
            long d = dstIndex + done;
            int sk = sg.chunkIndex(s);
            int dk = dg.chunkIndex(d);
            long n = Math.min(count - done,
                    Math.min(sg.chunkStart(sk) + sg.chunkElements(sk) - s, dg.chunkStart(dk) + dg.chunkElements(dk) - d));
            kernels.copyInts(src.chunk(sk), sg.byteOffsetInChunk(s) + IndexListDescriptor.CELL_INDEX_OFFSET,
                    dst.chunk(dk), dg.byteOffsetInChunk(d) + IndexListDescriptor.CELL_INDEX_OFFSET, n);
            done += n;
        }
    }

    private static void checkIndexList(ListManager list) {
        if (list.elementStride() != IndexListDescriptor.ELEMENT_SIZE) {
            throw new IllegalArgumentException("list=" + list + " is not a list of cell indices (elementStride="
                    + list.elementStride() + ", expected " + IndexListDescriptor.ELEMENT_SIZE + ")");
        }
    }

    /** Receives one contiguous piece of an index list: {@code count} entries at byte {@code offset} of {@code chunk}. */
    @FunctionalInterface
    public interface PieceVisitor {
        void visit(MemorySegment chunk, long offset, long count);
    }

    /** Visits entries {@code [from, to)} of {@code list} as contiguous pieces, in order. */
    public static void forEachPiece(ListManager list, long from, long to, PieceVisitor visitor) {
        ChunkGeometry g = list.geometry();
        long i = from;
        while (i < to) {
            int k = g.chunkIndex(i);
            long n = Math.min(to - i, g.chunkStart(k) + g.chunkElements(k) - i);
            visitor.visit(list.chunk(k), g.byteOffsetInChunk(i), n);
            i += n;
        }
    }

    /** Copies entries {@code [from, from + count)} of {@code list} to {@code out[0, count)}. */
    public static void toArray(ListManager list, long from, int count, int[] out) {
        checkIndexList(list);
        int[] pos = {0};
        forEachPiece(list, from, from + count, (chunk, offset, n) -> {
            MemorySegment.copy(chunk, IndexListDescriptor.CELL_INDEX_LAYOUT, offset, out, pos[0], (int) n);
            pos[0] += (int) n;
        });
    }

    /** Writes {@code values[from, from + count)} to entries {@code [dstIndex, dstIndex + count)} of {@code dst}. */
    public static void copyFrom(int[] values, int from, ListManager dst, long dstIndex, int count) {
        checkIndexList(dst);
        int[] pos = {from};
        forEachPiece(dst, dstIndex, dstIndex + count, (chunk, offset, n) -> {
            MemorySegment.copy(values, pos[0], chunk, IndexListDescriptor.CELL_INDEX_LAYOUT, offset, (int) n);
            pos[0] += (int) n;
        });
    }
}
