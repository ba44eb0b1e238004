package io.snode.runtime.internal.vectorization;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The collector's Vector API kernels. With {@link PanamaScanKernels} and
 * {@link PanamaReductionKernels} one of the three classes of the project that name
 * {@code jdk.incubator.vector}; {@link PanamaVectorizationProvider} links them,
 * and {@link VectorizationProvider} loads that reflectively, after checking that the module is in
 * the boot layer, so that the rest of the library runs without the module.
 *
 * <p>Which operation uses vectors is decided by measurement (the {@code bench} module's
 * {@code io.snode.bench.gc} benchmarks; figures in {@code gc/README.md}):
 * <ul>
 *   <li>Zeroing a run shorter than {@link #FILL_FROM_BYTES} stores {@link #ZERO_SPECIES}-wide
 *       zero vectors, four per iteration: 1.6 to 5.5 times {@code MemorySegment.fill} when the
 *       run is in cache, 1.2 to 1.7 times for 2 KiB cells scattered over DRAM (one call per cell).</li>
 *   <li>Longer runs (recycled cells that lie next to each other, coalesced) are DRAM-bound, and
 *       there {@code MemorySegment.fill} was as fast or a little faster (vector / fill 0.87 to 1.06
 *       from 256 KiB on), so they use it. Shorter runs laid end to end also favour fill (0.63 to
 *       0.95), but phase 2 never produces them: neighbouring cells are coalesced into one run,
 *       and for the gapped runs of sorted scattered cells the vector kernels measured 1.5 times
 *       the scalar ones.</li>
 *   <li>Index copies are plain {@link MemorySegment#copy}: an {@code IntVector} loop reached
 *       0.90 to 0.99 of it. The loop stays here, as {@link #copyIntsVector}, so that the
 *       benchmark keeps measuring it.</li>
 * </ul>
 */
public final class PanamaGcKernels implements GcKernels {

    /** The widest byte species the CPU supports. */
    static final VectorSpecies<Byte> ZERO_SPECIES = ByteVector.SPECIES_PREFERRED;
    static final VectorSpecies<Integer> INT_SPECIES = IntVector.SPECIES_PREFERRED;
    private static final int ZERO_LANES = ZERO_SPECIES.length();
    private static final int INT_LANES = INT_SPECIES.length();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ByteVector ZERO = ByteVector.zero(ZERO_SPECIES);

    /** Runs of at least this many bytes are zeroed with {@link MemorySegment#fill} (see the class comment). */
    public static final long FILL_FROM_BYTES = 256 * 1024;

    /**
     * Made by {@link PanamaVectorizationProvider}.
     *
     * @throws UnsupportedOperationException if the preferred vectors are narrower than 128 bits
     *                                       (no SIMD worth using; C2 may also be off)
     */
    PanamaGcKernels() {
        if (ZERO_SPECIES.vectorBitSize() < 128) {
            throw new UnsupportedOperationException("preferred vector size is " + ZERO_SPECIES.vectorBitSize()
                    + " bits (need at least 128)");
        }
    }

    /** Bits per vector of the species in use. */
    public static int vectorBitSize() {
        return ZERO_SPECIES.vectorBitSize();
    }

    @Override
    public String name() {
        return "panama-" + ZERO_SPECIES.vectorBitSize();
    }

    @Override
    public boolean vectorized() {
        return true;
    }

    @Override
    public void zero(MemorySegment segment, long offset, long length) {
        if (length >= FILL_FROM_BYTES) {
            segment.asSlice(offset, length).fill((byte) 0);
        } else {
            zeroVector(segment, offset, length);
        }
    }

    @Override
    public void copyInts(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        MemorySegment.copy(src, srcOffset, dst, dstOffset, count * ValueLayout.JAVA_INT.byteSize());
    }

    /** Zero-vector stores, unrolled by four, then one vector at a time, then longs and bytes. */
    public static void zeroVector(MemorySegment segment, long offset, long length) {
        // One slice up front: the loop below then indexes from zero within a known size, and the
        // segment's bounds check happens once here (an out-of-range request throws before writing).
        MemorySegment s = segment.asSlice(offset, length);
        long i = 0;
        long step4 = 4L * ZERO_LANES;
        long bound4 = length - step4;
        for (; i <= bound4; i += step4) {
            ZERO.intoMemorySegment(s, i, ORDER);
            ZERO.intoMemorySegment(s, i + ZERO_LANES, ORDER);
            ZERO.intoMemorySegment(s, i + 2L * ZERO_LANES, ORDER);
            ZERO.intoMemorySegment(s, i + 3L * ZERO_LANES, ORDER);
        }
        long bound = length - ZERO_LANES;
        for (; i <= bound; i += ZERO_LANES) {
            ZERO.intoMemorySegment(s, i, ORDER);
        }
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, 0L);
        }
        for (; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
    }

    /**
     * An {@code IntVector} load/store copy loop (overlapping ranges: {@link MemorySegment#copy}).
     * Kept for the benchmark that compares it with {@link MemorySegment#copy}.
     */
    public static void copyIntsVector(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        long bytes = count * Integer.BYTES;
        MemorySegment from = src.asSlice(srcOffset, bytes);
        MemorySegment to = dst.asSlice(dstOffset, bytes);
        if (from.asOverlappingSlice(to).isPresent()) {
            MemorySegment.copy(from, 0, to, 0, bytes);
            return;
        }
        long step = (long) INT_LANES * Integer.BYTES;
        long i = 0;
        for (; i <= bytes - step; i += step) {
            IntVector.fromMemorySegment(INT_SPECIES, from, i, ORDER).intoMemorySegment(to, i, ORDER);
        }
        for (; i < bytes; i += Integer.BYTES) {
            to.set(ValueLayout.JAVA_INT_UNALIGNED, i, from.get(ValueLayout.JAVA_INT_UNALIGNED, i));
        }
    }

    @Override
    public String toString() {
        return "GcKernels[" + name() + "]";
    }
}
