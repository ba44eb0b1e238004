package io.snode.runtime.internal.vectorization;

import io.snode.runtime.BitmaskWords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The scans a vector of words at a time. With {@link PanamaGcKernels} and
 * {@link PanamaReductionKernels} one of the three classes of the project that name
 * {@code jdk.incubator.vector}; made only by {@link PanamaVectorizationProvider}.
 *
 * <p>Most words of a sparse pointer container are null: one compare per {@link #LANES} words
 * skips them without a branch per word. Mask copies move a vector of words and count their bits
 * with one lanewise bit count.
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

    /** A vector at a time when {@code words} is a multiple of {@link #LANES}, else a word at a time. */
    @Override
    public int copyMasks(MemorySegment segment, long offset, long[] masks, int at, int words) {
        int count = 0;
        if (words % LANES != 0) {
            for (int w = 0; w < words; w++) {
                long mask = segment.get(ValueLayout.JAVA_LONG, offset + BitmaskWords.offsetOfWord(w));
                masks[at + w] = mask;
                count += Long.bitCount(mask);
            }
            return count;
        }
        for (int w = 0; w < words; w += LANES) {
            LongVector mask = LongVector.fromMemorySegment(SPECIES, segment, offset + BitmaskWords.offsetOfWord(w), ORDER);
            mask.intoArray(masks, at + w);
            count += (int) mask.lanewise(VectorOperators.BIT_COUNT).reduceLanes(VectorOperators.ADD);
        }
        return count;
    }

    @Override
    public String toString() {
        return "ScanKernels[" + name() + ", lanes=" + LANES + "]";
    }
}
