package io.snode.codegen.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** Copies a bitmask from node memory into a snapshot a vector at a time, counting its bits. */
final class MaskCopy {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    /** Words per vector; {@link #copy} takes a multiple of it. */
    static final int LANES = SPECIES.length();

    private MaskCopy() {
    }

    /**
     * Copies the {@code words} mask words at {@code offset} of {@code segment} to
     * {@code masks[at ...]} (plain reads: the caller fences after the pass) and returns how many
     * bits they set. {@code words} is a multiple of {@link #LANES}.
     */
    static int copy(MemorySegment segment, long offset, long[] masks, int at, int words) {
        int count = 0;
        for (int w = 0; w < words; w += LANES) {
            LongVector mask = LongVector.fromMemorySegment(SPECIES, segment, offset + (long) w * Long.BYTES,
                    ByteOrder.nativeOrder());
            mask.intoArray(masks, at + w);
            count += (int) mask.lanewise(VectorOperators.BIT_COUNT).reduceLanes(VectorOperators.ADD);
        }
        return count;
    }
}
