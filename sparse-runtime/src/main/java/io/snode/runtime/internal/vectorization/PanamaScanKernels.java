package io.snode.runtime.internal.vectorization;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The pointer scan a vector of words at a time. With {@link PanamaGcKernels} and
 * {@link PanamaReductionKernels} one of the three classes of the project that name
 * {@code jdk.incubator.vector}; made only by {@link PanamaVectorizationProvider}.
 *
 * <p>Most words of a sparse pointer container are null: one compare per {@link #LANES} words
 * skips them without a branch per word. Mask copies are the interface's, a word at a time (see
 * {@link ScanKernels#copyMasks}).
 */
public final class PanamaScanKernels implements ScanKernels {

    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    /** Words per vector: 8 with AVX-512, 4 with AVX2, 2 with SSE or NEON. */
    static final int LANES = SPECIES.length();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    PanamaScanKernels() {
    }

    @Override
    public String name() {
        return "panama-" + SPECIES.vectorBitSize();
    }

    @Override
    public int lanes() {
        return LANES;
    }

    @Override
    public long activeWords(MemorySegment segment, long offset) {
        return LongVector.fromMemorySegment(SPECIES, segment, offset, ORDER).compare(VectorOperators.GT, 0L).toLong();
    }

    @Override
    public String toString() {
        return "ScanKernels[" + name() + ", lanes=" + LANES + "]";
    }
}
