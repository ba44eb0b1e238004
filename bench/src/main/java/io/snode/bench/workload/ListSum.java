package io.snode.bench.workload;

import io.snode.api.PlacedField;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * W6v's block form: what one task of a {@code reduceBlocks} over the particle lists accumulates
 * (elements, id sum, non-empty lists). Each list comes as its chunks, contiguous memory
 * ({@link LeafBlock#chunk}), and a chunk's ids are added in a plain loop over it: no lookup of an
 * element's chunk, and one bounds check per chunk that C2 hoists. (A Vector API loop over the
 * chunk measured no faster: the visit waits on memory, the chunks lying wherever the appends
 * allocated them, not on the adds.)
 */
public final class ListSum {
    private final PlacedField particle;
    private long n;
    private long ids;
    private long nonEmpty;

    public ListSum(PlacedField particle) {
        this.particle = particle;
    }

    /** Adds {@code other}'s counts to this one; returns this. */
    public ListSum merge(ListSum other) {
        n += other.n;
        ids += other.ids;
        nonEmpty += other.nonEmpty;
        return this;
    }

    /** Elements of every list accumulated (and merged) so far. */
    public long n() {
        return n;
    }

    /** Sum of the particle ids. */
    public long ids() {
        return ids;
    }

    /** Lists with at least one element. */
    public long nonEmpty() {
        return nonEmpty;
    }

    /** The reducer: one list's elements, id sum and whether it is non-empty. */
    public static void accumulate(ListSum partial, LeafBlock list) {
        long length = list.cellCount();
        if (length == 0) {
            return;
        }
        long offset = list.fieldOffset(partial.particle);
        long stride = list.cellBytes();
        long ids = 0;
        for (int c = 0; c < list.chunkCount(); c++) {
            MemorySegment chunk = list.chunk(c);
            long cells = list.chunkCells(c);
            for (long e = 0; e < cells; e++) {
                ids += chunk.get(ValueLayout.JAVA_INT, offset + e * stride);
            }
        }
        partial.ids += ids;
        partial.n += length;
        partial.nonEmpty++;
    }
}
