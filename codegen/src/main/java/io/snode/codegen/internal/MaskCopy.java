package io.snode.codegen.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** Copies a bitmask from node memory into a snapshot a vector at a time, counting its bits. */
final class MaskCopy {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    /** Words per vector. */
    static final int LANES = SPECIES.length();

    private MaskCopy() {
    }

    /**
     * Copies the {@code words} mask words at {@code offset} of {@code segment} to
     * {@code masks[at ...]} (plain reads: the caller fences after the pass) and returns how many
     * bits they set: a vector at a time when {@code words} is a multiple of {@link #LANES}, else
     * a word at a time.
     */
    static int copy(MemorySegment segment, long offset, long[] masks, int at, int words) {
        int count = 0;
        if (words % LANES != 0) {
            for (int w = 0; w < words; w++) {
                long mask = segment.get(ValueLayout.JAVA_LONG, offset + (long) w * Long.BYTES);
                masks[at + w] = mask;
                count += Long.bitCount(mask);
            }
            return count;
        }
        for (int w = 0; w < words; w += LANES) {
            LongVector mask = LongVector.fromMemorySegment(SPECIES, segment, offset + (long) w * Long.BYTES,
                    ByteOrder.nativeOrder());
            mask.intoArray(masks, at + w);
            count += (int) mask.lanewise(VectorOperators.BIT_COUNT).reduceLanes(VectorOperators.ADD);
        }
        return count;
    }
}
