package io.snode.runtime.internal.vectorization;

import io.snode.api.FieldType;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The reductions a vector at a time, for contiguous {@code f32} and {@code f64} fields (a cell
 * that holds nothing but the field: the stride is the field's size); strided and integer fields,
 * and the cells after the last whole vector, go to {@link ScalarReductionKernels}, which follows
 * the same order. With {@link PanamaGcKernels} and {@link PanamaScanKernels} one of the three
 * classes of the project that name {@code jdk.incubator.vector}; made only by
 * {@link PanamaVectorizationProvider}.
 *
 * <p><b>Sums</b> keep the {@link #LANES} partial sums of {@link ReductionKernels} in vector
 * registers, one double lane per partial sum, so the loop adds exactly what the scalar loop adds:
 * with 512-bit vectors ({@link #WIDE}) four accumulators of eight doubles, each fed by eight
 * floats widened with one conversion ({@code FloatVector} of 256 bits to {@code DoubleVector} of
 * 512); with 256-bit vectors eight accumulators of four. The lanes are reduced by the caller
 * ({@link ReductionKernels#foldLanes}), never with {@code reduceLanes}, whose order of additions
 * is unspecified.
 *
 * <p><b>Minimum and maximum</b> use the preferred species, lane-wise {@code MIN}/{@code MAX}
 * (Math.min/max semantics; with a mask, a mask word's bits become a lane mask,
 * {@link VectorMask#fromLong}, and the masked operation leaves the lane of an inactive cell as it
 * is) and one {@code reduceLanes} per run, which is exact in any order.
 */
public final class PanamaReductionKernels implements ReductionKernels {

    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    /** Whether the CPU has 512-bit vectors: then the wide loop, else the 256-bit one. */
    static final boolean WIDE = DoubleVector.SPECIES_PREFERRED.vectorBitSize() >= 512;

    private static final VectorSpecies<Float> F256 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Double> D512 = DoubleVector.SPECIES_512;
    private static final VectorSpecies<Float> F128 = FloatVector.SPECIES_128;
    private static final VectorSpecies<Double> D256 = DoubleVector.SPECIES_256;

    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;

    /**
     * Made by {@link PanamaVectorizationProvider}.
     *
     * @throws UnsupportedOperationException unless {@link #supported()}
     */
    PanamaReductionKernels() {
        if (!supported()) {
            throw new UnsupportedOperationException("preferred vector size is " + DOUBLES.vectorBitSize()
                    + " bits (the reductions need at least 256)");
        }
    }

    /**
     * Whether the CPU's vectors hold at least four doubles: with 128-bit vectors the 32 partial
     * sums would need sixteen accumulators, and the provider keeps the scalar reductions.
     */
    static boolean supported() {
        return DOUBLES.vectorBitSize() >= 256;
    }

    @Override
    public String name() {
        return "panama-" + (WIDE ? 512 : 256);
    }

    @Override
    public boolean vectorized() {
        return true;
    }

    @Override
    public void sum(FieldType type, MemorySegment segment, long offset, long stride, long count, int firstLane,
                    double[] lanes) {
        sum(WIDE, type, segment, offset, stride, count, firstLane, lanes);
    }

    /**
     * {@link #sum} with the 512-bit loop ({@code wide}) or the 256-bit one: this CPU's choice is
     * {@link #WIDE}; tests run the other too (slowly where the CPU lacks its vectors).
     */
    static void sum(boolean wide, FieldType type, MemorySegment segment, long offset, long stride, long count,
                    int firstLane, double[] lanes) {
        if (!contiguousFloats(type, stride)) {
            ScalarReductionKernels.sumFrom(type, segment, offset, stride, 0, count, firstLane, lanes);
            return;
        }
        // Up to the first cell of partial sum 0 a cell at a time (a list's chunk may start anywhere).
        long head = Math.min(count, (LANES - firstLane) & (LANES - 1));
        ScalarReductionKernels.sumFrom(type, segment, offset, stride, 0, head, firstLane, lanes);
        MemorySegment cells = segment.asSlice(offset + head * stride, (count - head) * stride);
        boolean f32 = type == FieldType.F32;
        long done = head + (wide ? sumWide(f32, cells, count - head, lanes) : sumNarrow(f32, cells, count - head, lanes));
        ScalarReductionKernels.sumFrom(type, segment, offset, stride, done, count, firstLane, lanes);
    }

    /**
     * Whole groups of {@link #LANES} cells from cell 0 of {@code cells} (of partial sum 0), with
     * four accumulators of eight lanes; returns the cells added.
     */
    private static long sumWide(boolean f32, MemorySegment cells, long count, double[] lanes) {
        DoubleVector a0 = DoubleVector.fromArray(D512, lanes, 0);
        DoubleVector a1 = DoubleVector.fromArray(D512, lanes, 8);
        DoubleVector a2 = DoubleVector.fromArray(D512, lanes, 16);
        DoubleVector a3 = DoubleVector.fromArray(D512, lanes, 24);
        long n = 0;
        for (; n + LANES <= count; n += LANES) {
            a0 = a0.add(wide(f32, cells, n));
            a1 = a1.add(wide(f32, cells, n + 8));
            a2 = a2.add(wide(f32, cells, n + 16));
            a3 = a3.add(wide(f32, cells, n + 24));
        }
        a0.intoArray(lanes, 0);
        a1.intoArray(lanes, 8);
        a2.intoArray(lanes, 16);
        a3.intoArray(lanes, 24);
        return n;
    }

    /** Eight values from cell {@code n}, as doubles. */
    private static DoubleVector wide(boolean f32, MemorySegment cells, long n) {
        return f32 ? (DoubleVector) FloatVector.fromMemorySegment(F256, cells, n * Float.BYTES, ORDER).castShape(D512, 0)
                : DoubleVector.fromMemorySegment(D512, cells, n * Double.BYTES, ORDER);
    }

    /** {@link #sumWide} with eight accumulators of four lanes. */
    private static long sumNarrow(boolean f32, MemorySegment cells, long count, double[] lanes) {
        DoubleVector a0 = DoubleVector.fromArray(D256, lanes, 0);
        DoubleVector a1 = DoubleVector.fromArray(D256, lanes, 4);
        DoubleVector a2 = DoubleVector.fromArray(D256, lanes, 8);
        DoubleVector a3 = DoubleVector.fromArray(D256, lanes, 12);
        DoubleVector a4 = DoubleVector.fromArray(D256, lanes, 16);
        DoubleVector a5 = DoubleVector.fromArray(D256, lanes, 20);
        DoubleVector a6 = DoubleVector.fromArray(D256, lanes, 24);
        DoubleVector a7 = DoubleVector.fromArray(D256, lanes, 28);
        long n = 0;
        for (; n + LANES <= count; n += LANES) {
            a0 = a0.add(narrow(f32, cells, n));
            a1 = a1.add(narrow(f32, cells, n + 4));
            a2 = a2.add(narrow(f32, cells, n + 8));
            a3 = a3.add(narrow(f32, cells, n + 12));
            a4 = a4.add(narrow(f32, cells, n + 16));
            a5 = a5.add(narrow(f32, cells, n + 20));
            a6 = a6.add(narrow(f32, cells, n + 24));
            a7 = a7.add(narrow(f32, cells, n + 28));
        }
        a0.intoArray(lanes, 0);
        a1.intoArray(lanes, 4);
        a2.intoArray(lanes, 8);
        a3.intoArray(lanes, 12);
        a4.intoArray(lanes, 16);
        a5.intoArray(lanes, 20);
        a6.intoArray(lanes, 24);
        a7.intoArray(lanes, 28);
        return n;
    }

    /** Four values from cell {@code n}, as doubles. */
    private static DoubleVector narrow(boolean f32, MemorySegment cells, long n) {
        return f32 ? (DoubleVector) FloatVector.fromMemorySegment(F128, cells, n * Float.BYTES, ORDER).castShape(D256, 0)
                : DoubleVector.fromMemorySegment(D256, cells, n * Double.BYTES, ORDER);
    }

    @Override
    public double min(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask,
                      int maskAt, double start) {
        return extremum(false, type, segment, offset, stride, count, mask, maskAt, start);
    }

    @Override
    public double max(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask,
                      int maskAt, double start) {
        return extremum(true, type, segment, offset, stride, count, mask, maskAt, start);
    }

    private static double extremum(boolean max, FieldType type, MemorySegment segment, long offset, long stride,
                                   long count, long[] mask, int maskAt, double start) {
        if (!contiguousFloats(type, stride)) {
            return ScalarReductionKernels.extremumFrom(max, type, segment, offset, stride, 0, count, mask, maskAt, start);
        }
        int lanes = type == FieldType.F32 ? FLOATS.length() : DOUBLES.length();
        long whole = count - count % lanes;
        MemorySegment cells = segment.asSlice(offset, whole * stride);
        VectorOperators.Associative op = max ? VectorOperators.MAX : VectorOperators.MIN;
        double vector = type == FieldType.F32 ? extremumF32(op, max, cells, whole, mask, maskAt)
                : extremumF64(op, max, cells, whole, mask, maskAt);
        double result = max ? Math.max(start, vector) : Math.min(start, vector);
        return ScalarReductionKernels.extremumFrom(max, type, segment, offset, stride, whole, count, mask, maskAt,
                result);
    }

    /** The extremum of {@code count} floats (a multiple of the lane count), or the identity (an infinity) for none. */
    private static double extremumF32(VectorOperators.Associative op, boolean max, MemorySegment cells, long count,
                                      long[] mask, int maskAt) {
        int lanes = FLOATS.length();
        FloatVector acc = FloatVector.broadcast(FLOATS, max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY);
        for (long n = 0; n < count; n += lanes) {
            FloatVector v = FloatVector.fromMemorySegment(FLOATS, cells, n * Float.BYTES, ORDER);
            acc = mask == null ? acc.lanewise(op, v)
                    : acc.lanewise(op, v, VectorMask.fromLong(FLOATS, mask[maskAt + (int) (n >>> 6)] >>> (n & 63)));
        }
        return acc.reduceLanes(op);
    }

    /** {@link #extremumF32} over doubles. */
    private static double extremumF64(VectorOperators.Associative op, boolean max, MemorySegment cells, long count,
                                      long[] mask, int maskAt) {
        int lanes = DOUBLES.length();
        DoubleVector acc = DoubleVector.broadcast(DOUBLES, max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
        for (long n = 0; n < count; n += lanes) {
            DoubleVector v = DoubleVector.fromMemorySegment(DOUBLES, cells, n * Double.BYTES, ORDER);
            acc = mask == null ? acc.lanewise(op, v)
                    : acc.lanewise(op, v, VectorMask.fromLong(DOUBLES, mask[maskAt + (int) (n >>> 6)] >>> (n & 63)));
        }
        return acc.reduceLanes(op);
    }

    /** Whether the run is a packed array of {@code f32} or {@code f64}, which the vector loops read. */
    private static boolean contiguousFloats(FieldType type, long stride) {
        return type.isFloatingPoint() && stride == type.byteSize();
    }

    @Override
    public String toString() {
        return "ReductionKernels[" + name() + "]";
    }
}
