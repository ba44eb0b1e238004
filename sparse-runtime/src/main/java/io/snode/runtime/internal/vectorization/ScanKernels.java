package io.snode.runtime.internal.vectorization;

import io.snode.runtime.BitmaskWords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The scans of node memory that struct-for's walks and snapshots make: finding the active words
 * of a pointer container, and copying a bitmask out while counting its bits (one loop for both,
 * {@link #copyMasks}). Two implementations share this interface: {@link ScalarScanKernels}, a
 * word at a time, always available; and {@code PanamaScanKernels}, {@code LongVector} loads and
 * compares, loaded by {@link VectorizationProvider} only when {@code jdk.incubator.vector} is in
 * the module graph ({@link VectorizationProvider#scanKernels()}). Both compute the same results;
 * tests run them against each other.
 *
 * <p>Reads are plain: the caller re-reads a word it follows, and fences before it reads what the
 * word leads to or what a copied mask describes. Implementations are stateless and thread-safe;
 * the segments check the bounds ({@link IndexOutOfBoundsException}) and the lifetime
 * ({@link IllegalStateException}).
 */
public interface ScanKernels {

    /** A short name for reports: {@code "scalar"} or {@code "panama-512"} (the vector bit size). */
    String name();

    /**
     * How many words {@link #activeWords} looks at: the longs per preferred vector (8 with AVX-512,
     * 4 with AVX2, 2 with SSE or NEON), or 1 for the scalar kernels, for which the generated walks
     * keep their loop a word at a time.
     */
    int lanes();

    /**
     * Bit {@code n} is set when the word at {@code offset + 8 n} ({@code n < lanes()}) is active
     * (greater than zero, as {@code PointerWord.isActive}); the higher bits are clear.
     */
    long activeWords(MemorySegment segment, long offset);

    /**
     * Copies the {@code words} mask words at {@code offset} of {@code segment} to
     * {@code masks[at ...]} and returns how many bits they set.
     *
     * <p>A word at a time in both families: in a snapshot walk, which copies one block's mask
     * after another from memory the caches do not hold, a copy through {@code LongVector} loads,
     * stores and a lanewise bit count made the walk of L2's 56,628 blocks (WORKLOADS.md) take
     * 5.8 ms a launch after 1,000 launches, against 2.2 ms a word at a time (2,000 launches after
     * an idle deactivation each, one thread, AVX2; 2.6 against 1.4 ms on two threads), although
     * on blocks that the caches hold the vector copy is the faster one.
     */
    default int copyMasks(MemorySegment segment, long offset, long[] masks, int at, int words) {
        int count = 0;
        for (int w = 0; w < words; w++) {
            long mask = segment.get(ValueLayout.JAVA_LONG, offset + BitmaskWords.offsetOfWord(w));
            masks[at + w] = mask;
            count += Long.bitCount(mask);
        }
        return count;
    }
}
