package io.snode.codegen.internal;

import io.snode.runtime.PointerWord;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Finds the active words of a pointer container a vector at a time, for the generated walks
 * ({@link WalkerEmitter}): most words of a sparse container are {@link PointerWord#NULL}, and one
 * compare per {@link #LANES} words skips them without a branch per word.
 */
public final class PointerScan {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    /** Words per vector: 8 with AVX-512, 4 with AVX2, 2 with SSE or NEON. */
    public static final int LANES = SPECIES.length();

    private PointerScan() {
    }

    /**
     * Bit {@code n} is set when the word at {@code offset + 8 n} ({@code n < LANES}) is active
     * (greater than zero, as {@link PointerWord#isActive}). A plain read: the caller re-reads a
     * word it follows, and fences before it reads what the word leads to.
     */
    public static long activeWords(MemorySegment segment, long offset) {
        return LongVector.fromMemorySegment(SPECIES, segment, offset, ByteOrder.nativeOrder())
                .compare(VectorOperators.GT, 0L).toLong();
    }
}
