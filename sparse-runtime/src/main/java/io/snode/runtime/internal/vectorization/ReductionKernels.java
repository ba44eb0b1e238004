package io.snode.runtime.internal.vectorization;

import io.snode.api.FieldType;
import java.lang.foreign.MemorySegment;

/**
 * The loops of the built-in reductions ({@code sum}, {@code min}, {@code max}) over a run of
 * cells of one block: {@code count} values of one field, the {@code n}-th at byte
 * {@code offset + n * stride} of {@code segment}; {@code min} and {@code max} optionally filtered
 * by mask bits (bit {@code n} of {@code mask[maskAt ...]}: word {@code n / 64}, bit
 * {@code n % 64}; a null mask takes every cell). A sum takes every cell of the run: the callers
 * pass whole bitmasked blocks, whose inactive cells hold zero, and adding {@code +0.0} leaves a
 * partial sum as it is (a partial sum that starts at {@code +0.0} is never {@code -0.0}), so the
 * result is the sum over the active cells without a mask test per cell.
 *
 * <p>Two implementations share this interface: {@link ScalarReductionKernels}, a cell at a time,
 * always available; and {@code PanamaReductionKernels}, Vector API loops for contiguous
 * {@code f32} and {@code f64} fields, loaded by {@link VectorizationProvider} only when
 * {@code jdk.incubator.vector} is in the module graph
 * ({@link VectorizationProvider#reductionKernels()}). Both give bit-identical results; tests run
 * them against each other.
 *
 * <p><b>The order of a sum.</b> Floating-point addition is not associative, so the order is part
 * of the contract, and it is the same for both implementations on every CPU: values are widened
 * to {@code double} (exact for {@code f32} and {@code i32}, rounded to nearest for {@code i64}
 * beyond 2^53) and added into {@link #LANES} partial sums, {@code lanes[(firstLane + n) % LANES]
 * += value(n)} for {@code n} ascending, each partial sum a plain IEEE {@code double} addition.
 * The number of partial sums is fixed, never the CPU's vector width: a vector loop of any width
 * adds the same numbers into the same partial sums in the same order (one vector lane per
 * partial sum), and so does the scalar loop. How the callers combine partial sums (lane by lane,
 * then across lanes) is theirs to fix ({@link #foldLanes}).
 *
 * <p><b>Minimum and maximum</b> are those of {@link Math#min(double, double)} and
 * {@link Math#max(double, double)} over the values widened to {@code double}: a NaN wins, and
 * {@code -0.0} is smaller than {@code 0.0}. Those operations are associative and commutative, so
 * any order, and any vector width, gives the same result.
 *
 * <p>Implementations are stateless and thread-safe. The segments check the bounds
 * ({@link IndexOutOfBoundsException}) and the lifetime ({@link IllegalStateException}); a mask
 * array must hold the bits of every cell of the run.
 */
public interface ReductionKernels {

    /**
     * The number of partial sums of every sum: one per {@code double} lane of four 512-bit vectors
     * (eight 256-bit ones), so that a vector loop keeps four to eight independent additions in
     * flight. Fixed, so that the result does not depend on the CPU.
     */
    int LANES = 32;

    /** A short name for reports: {@code "scalar"} or {@code "panama-512"} (the vector bit size). */
    String name();

    /** Whether the Vector API runs the contiguous floating-point loops. */
    boolean vectorized();

    /**
     * Adds the values of the run's cells into {@code lanes}, in the order of the class comment:
     * cell {@code n} into {@code lanes[(firstLane + n) % LANES]}.
     *
     * @param lanes     {@link #LANES} partial sums, updated in place
     * @param firstLane the partial sum of cell 0, in {@code [0, LANES)}
     */
    void sum(FieldType type, MemorySegment segment, long offset, long stride, long count, int firstLane,
             double[] lanes);

    /** {@code Math.min} of {@code start} and the values of the run's cells whose mask bit is set. */
    double min(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask, int maskAt,
               double start);

    /** {@code Math.max} of {@code start} and the values of the run's cells whose mask bit is set. */
    double max(FieldType type, MemorySegment segment, long offset, long stride, long count, long[] mask, int maskAt,
               double start);

    /**
     * The sum of {@link #LANES} partial sums in the one order every sum uses: halving, lane
     * {@code k} and lane {@code k + 16} first for every {@code k} below 16, then {@code k} and
     * {@code k + 8}, and so on down to lanes 0 and 1. {@code lanes} is not changed.
     */
    static double foldLanes(double[] lanes) {
        if (lanes.length != LANES) {
            throw new IllegalArgumentException("lanes.length=" + lanes.length + " (must be " + LANES + ")");
        }
        double[] fold = lanes.clone();
        for (int half = LANES / 2; half > 0; half /= 2) {
            for (int k = 0; k < half; k++) {
                fold[k] += fold[k + half];
            }
        }
        return fold[0];
    }
}
