package io.snode.runtime.internal.vectorization;

import java.lang.foreign.MemorySegment;

/**
 * The bulk memory operations of a collection: zeroing cells and copying runs of cell indices.
 * Two implementations share this interface (Lucene's {@code VectorizationProvider} pattern):
 * {@link ScalarGcKernels}, plain {@link MemorySegment#fill} and {@link MemorySegment#copy}, always
 * available; and {@code PanamaGcKernels}, Vector API stores, loaded by
 * {@link VectorizationProvider} only when {@code jdk.incubator.vector} is in the module graph
 * ({@link VectorizationProvider#gcKernels()}).
 * Both give identical memory contents; tests run them against each other.
 *
 * <p>Implementations are stateless and thread-safe. Arguments are checked by the segments
 * (an out-of-bounds range throws {@link IndexOutOfBoundsException}, a closed segment
 * {@link IllegalStateException}); nothing is written outside the given range.
 */
public interface GcKernels {

    /** A short name for reports: {@code "scalar"} or {@code "panama-512"} (the vector bit size). */
    String name();

    /** Whether the Vector API does the zeroing. */
    boolean vectorized();

    /** Sets bytes {@code [offset, offset + length)} of {@code segment} to zero. */
    void zero(MemorySegment segment, long offset, long length);

    /**
     * Copies {@code count} {@code int}s from {@code src} at byte {@code srcOffset} to {@code dst} at
     * byte {@code dstOffset}; the ranges may overlap (then as if through a temporary copy).
     */
    void copyInts(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);
}
