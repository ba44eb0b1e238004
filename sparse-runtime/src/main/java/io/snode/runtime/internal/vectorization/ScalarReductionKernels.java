package io.snode.runtime.internal.vectorization;

import io.snode.api.FieldType;
import io.snode.runtime.BitmaskWords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The portable reduction loops, a cell at a time, in exactly the order of {@link ReductionKernels}
 * (the model the Panama loops are tested against, and what they delegate to for strided fields,
 * integer fields and the cells after their last whole vector).
 */
public final class ScalarReductionKernels implements ReductionKernels {

    static final ScalarReductionKernels INSTANCE = new ScalarReductionKernels();

    private ScalarReductionKernels() {
    }

    @Override
    public String name() {
        return "scalar";
    }

    @Override
    public boolean vectorized() {
        return false;
    }

    @Override
    public void sum(FieldType type, MemorySegment segment, long offset, long stride, long count, int firstLane,
                    double[] lanes) {
        sumFrom(type, segment, offset, stride, 0, count, firstLane, lanes);
    }

    /** {@link #sum} over cells {@code [from, count)} of the run only: the vector loops' head and tail. */
    static void sumFrom(FieldType type, MemorySegment segment, long offset, long stride, long from, long count,
                        int firstLane, double[] lanes) {
        for (long n = from; n < count; n++) {
            lanes[(int) ((firstLane + n) & (LANES - 1))] += load(type, segment, offset + n * stride);
        }
    }

    @Override
    public double min(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask,
                      int maskAt, double start) {
        return extremumFrom(false, type, segment, offset, stride, 0, count, mask, maskAt, start);
    }

    @Override
    public double max(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask,
                      int maskAt, double start) {
        return extremumFrom(true, type, segment, offset, stride, 0, count, mask, maskAt, start);
    }

    /** {@code Math.max} (or {@code Math.min}) of {@code start} and the masked values of cells {@code [from, count)}. */
    static double extremumFrom(boolean max, FieldType type, MemorySegment segment, long offset, long stride, long from,
                               long count, long[] mask, int maskAt, double start) {
        double result = start;
        for (long n = from; n < count; n++) {
            if (mask == null || BitmaskWords.isSet(mask, maskAt, n)) {
                double value = load(type, segment, offset + n * stride);
                result = max ? Math.max(result, value) : Math.min(result, value);
            }
        }
        return result;
    }

    /** The value at {@code offset} of {@code segment}, widened to {@code double}. */
    public static double load(FieldType type, MemorySegment segment, long offset) {
        return switch (type) {
            case I32 -> segment.get(ValueLayout.JAVA_INT, offset);
            case I64 -> segment.get(ValueLayout.JAVA_LONG, offset);
            case F32 -> segment.get(ValueLayout.JAVA_FLOAT, offset);
            case F64 -> segment.get(ValueLayout.JAVA_DOUBLE, offset);
        };
    }

    @Override
    public String toString() {
        return "ReductionKernels[" + name() + "]";
    }
}
