package io.snode.bench.workload;

import io.snode.api.PlacedField;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * W6v's block form: what one task of a {@code reduceBlocks} over the particle lists accumulates
 * (elements, id sum, non-empty lists). Each list comes as its chunks, contiguous memory
 * ({@link LeafBlock#chunk}); a chunk's ids are added a vector at a time. Short vector loops
 * also let the processor fetch the next chunks while it adds this one: the chunks of different
 * lists lie wherever their appends happened to allocate them, and a scalar loop of 64 elements
 * per chunk measured a third slower, waiting on one chunk after another.
 */
public final class ListSum {
    static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    /**
     * Elements a chunk may hold for its ids to be added in int lanes: W6's ids are below 2^22
     * (4,000,000 particles), so 512 of them cannot overflow an int. Longer chunks add in long.
     */
    static final long INT_LANES_UP_TO = 512;

    private final PlacedField particle;
    long n;
    long ids;
    long nonEmpty;

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
            if (stride == Integer.BYTES && offset == 0 && cells <= INT_LANES_UP_TO) {
                ids += packed(chunk);
            } else {
                ids += strided(chunk, cells, offset, stride);
            }
        }
        partial.ids += ids;
        partial.n += length;
        partial.nonEmpty++;
    }

    /** The sum of a chunk of packed ints (cells of one i32 field), a vector at a time. */
    static long packed(MemorySegment chunk) {
        long bytes = chunk.byteSize();
        long step = (long) Integer.BYTES * INTS.length();
        IntVector sum = IntVector.zero(INTS);
        long at = 0;
        for (; at + step <= bytes; at += step) {
            sum = sum.add(IntVector.fromMemorySegment(INTS, chunk, at, ByteOrder.nativeOrder()));
        }
        long total = sum.reduceLanes(VectorOperators.ADD);
        if (at < bytes) {
            total += strided(chunk.asSlice(at), (bytes - at) / Integer.BYTES, 0, Integer.BYTES);
        }
        return total;
    }

    /** The ids of {@code cells} cells of {@code stride} bytes, the id at {@code offset} in each; out of line (see BlockSum#tail). */
    static long strided(MemorySegment chunk, long cells, long offset, long stride) {
        long sum = 0;
        for (long e = 0; e < cells; e++) {
            sum += chunk.get(ValueLayout.JAVA_INT, offset + e * stride);
        }
        return sum;
    }
}
