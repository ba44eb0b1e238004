package io.snode.runtime.internal.vectorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.FieldType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reduction loops against a plain model of the order {@link ReductionKernels} defines, and so
 * against each other: the provider's kernels, and where this JVM has the Vector API both vector
 * loops (512-bit and 256-bit, whichever the CPU prefers), over run lengths around the 32 partial
 * sums and the vector widths (Lucene's {@code TestVectorUtilSupport} habit), every field type,
 * packed and strided cells, first partial sums other than 0, and (for min and max) masks of every
 * density. Sums
 * compare bit for bit (NaNs as one value), so a loop that added a value into another partial sum,
 * or in another order, fails. In the scalar-fallback execution only the scalar kernels run.
 */
class ReductionKernelsTest {

    private static final int LANES = ReductionKernels.LANES;

    /** A sum loop under test: the interface's, or one of the Panama loops chosen by width. */
    private interface SumLoop {
        void sum(FieldType type, MemorySegment segment, long offset, long stride, long count, int firstLane,
                 double[] lanes);
    }

    private record Named(String name, SumLoop sum, ReductionKernels extrema) {
    }

    private static List<Named> kernels() {
        List<Named> out = new ArrayList<>();
        ReductionKernels scalar = VectorizationProvider.scalar().reductionKernels();
        out.add(new Named("scalar", scalar::sum, scalar));
        VectorizationProvider.vector().map(VectorizationProvider::reductionKernels).filter(ReductionKernels::vectorized)
                .ifPresent(vector -> {
                    out.add(new Named(vector.name(), vector::sum, vector));
                    // Both widths on this CPU (the one it lacks runs slowly, in Java): the same answers.
                    out.add(new Named("panama-512 loop", (t, s, o, st, c, f, l) ->
                            PanamaReductionKernels.sum(true, t, s, o, st, c, f, l), vector));
                    out.add(new Named("panama-256 loop", (t, s, o, st, c, f, l) ->
                            PanamaReductionKernels.sum(false, t, s, o, st, c, f, l), vector));
                });
        return out;
    }

    /** Lengths around the 32 partial sums and the vector widths (4 to 16 lanes), and whole blocks of 8^3. */
    private static List<Integer> counts() {
        List<Integer> out = new ArrayList<>();
        for (int n = 0; n <= 70; n++) {
            out.add(n);
        }
        for (int base : new int[] {96, 128, 512}) {
            out.add(base - 1);
            out.add(base);
            out.add(base + 1);
        }
        out.add(1000);
        return out;
    }

    /** Values whose sum depends on the order: magnitudes from 1e-8 to 1e8, both signs, a few exact zeros of both signs. */
    private static double randomValue(FieldType type, Random rnd) {
        double magnitude = Math.pow(10, rnd.nextInt(17) - 8) * (1 + rnd.nextDouble());
        double value = switch (rnd.nextInt(20)) {
            case 0 -> 0.0;
            case 1 -> -0.0;
            default -> rnd.nextBoolean() ? magnitude : -magnitude;
        };
        return switch (type) {
            case F32 -> (float) value;
            case F64, I64 -> value;
            case I32 -> (int) (value * 10);
        };
    }

    /**
     * Random values of {@code type}: {@code values} widened to double, {@code raw} the {@code i64}
     * bits (some beyond 2^53, which widen with rounding); floating-point ones replaced by one of
     * {@code special} (or null) one time in sixteen.
     */
    private static void fill(FieldType type, Random rnd, double[] values, long[] raw, double[] special) {
        for (int n = 0; n < values.length; n++) {
            values[n] = randomValue(type, rnd);
            if (type == FieldType.I64) {
                raw[n] = rnd.nextInt(8) == 0 ? rnd.nextLong() : (long) (values[n] * 10);
                values[n] = (double) raw[n];
            } else if (special != null && type.isFloatingPoint() && rnd.nextInt(16) == 0) {
                double value = special[rnd.nextInt(special.length)];
                values[n] = type == FieldType.F32 ? (float) value : value;
            }
        }
    }

    /** Writes {@code values} as {@code type} at {@code offset + n * stride}. */
    private static void write(MemorySegment segment, FieldType type, long offset, long stride, double[] values,
                              long[] raw) {
        for (int n = 0; n < values.length; n++) {
            long at = offset + n * stride;
            switch (type) {
                case F32 -> segment.set(ValueLayout.JAVA_FLOAT, at, (float) values[n]);
                case F64 -> segment.set(ValueLayout.JAVA_DOUBLE, at, values[n]);
                case I32 -> segment.set(ValueLayout.JAVA_INT, at, (int) values[n]);
                case I64 -> segment.set(ValueLayout.JAVA_LONG, at, raw[n]);
            }
        }
    }

    private static long[] randomMask(Random rnd, int count, int kind) {
        long[] mask = new long[(count + 63) / 64 + 1];
        for (int n = 0; n < count; n++) {
            boolean set = switch (kind) {
                case 0 -> false;
                case 1 -> true;
                default -> rnd.nextInt(kind) == 0; // densities 1/2, 1/3, 1/7
            };
            if (set) {
                mask[n >>> 6] |= 1L << n;
            }
        }
        return mask;
    }

    private static double[] modelSum(double[] values, int firstLane, double[] start) {
        double[] lanes = start.clone();
        for (int n = 0; n < values.length; n++) {
            lanes[(firstLane + n) % LANES] += values[n];
        }
        return lanes;
    }

    private static double modelExtremum(boolean max, double[] values, long[] mask, double start) {
        double result = start;
        for (int n = 0; n < values.length; n++) {
            if (mask == null || (mask[n >>> 6] & (1L << n)) != 0) {
                result = max ? Math.max(result, values[n]) : Math.min(result, values[n]);
            }
        }
        return result;
    }

    /** The bits of each lane, NaNs as one value, so that {@code -0.0} and {@code 0.0} differ. */
    private static long[] bits(double[] lanes) {
        return Arrays.stream(lanes).mapToLong(Double::doubleToLongBits).toArray();
    }

    @Test
    void everySumAddsEachCellIntoItsPartialSumInCellOrder() {
        Random rnd = new Random(31);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(1100 * 24L, 64);
            for (FieldType type : FieldType.values()) {
                for (long stride : new long[] {type.byteSize(), 16, 24}) {
                    for (int count : counts()) {
                        double[] values = new double[count];
                        long[] raw = new long[count];
                        fill(type, rnd, values, raw, null);
                        long offset = type.byteSize() * (long) rnd.nextInt(3); // packed runs need not start on a vector
                        write(segment, type, offset, stride, values, raw);
                        double[] start = new double[LANES];
                        for (int lane = 0; lane < LANES; lane++) {
                            start[lane] = rnd.nextInt(3) == 0 ? 0.0 : randomValue(FieldType.F64, rnd);
                        }
                        for (int firstLane : new int[] {0, 1 + rnd.nextInt(LANES - 1), LANES - 1}) {
                            double[] expected = modelSum(values, firstLane, start);
                            for (Named k : kernels()) {
                                double[] lanes = start.clone();
                                k.sum().sum(type, segment, offset, stride, count, firstLane, lanes);
                                assertThat(bits(lanes)).as("%s %s stride=%d count=%d firstLane=%d offset=%d",
                                        k.name(), type, stride, count, firstLane, offset).isEqualTo(bits(expected));
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aMaskIsReadFromItsOwnWordsWhenBlocksShareTheArray() {
        // Three blocks of 96 cells share one mask array of two words each, as a snapshot's do.
        Random rnd = new Random(5);
        try (Arena arena = Arena.ofConfined()) {
            int count = 96;
            MemorySegment segment = arena.allocate(count * 4L, 64);
            double[] values = new double[count];
            fill(FieldType.F32, rnd, values, new long[count], null);
            write(segment, FieldType.F32, 0, 4, values, new long[count]);
            long[] shared = new long[6];
            for (int w = 0; w < shared.length; w++) {
                shared[w] = rnd.nextLong();
            }
            for (int block = 0; block < 3; block++) {
                long[] own = {shared[2 * block], shared[2 * block + 1]};
                for (Named k : kernels()) {
                    assertThat(Double.doubleToLongBits(k.extrema().min(FieldType.F32, segment, 0, 4, count, shared,
                            2 * block, Double.POSITIVE_INFINITY))).as("%s block %d", k.name(), block)
                            .isEqualTo(Double.doubleToLongBits(modelExtremum(false, values, own,
                                    Double.POSITIVE_INFINITY)));
                    assertThat(Double.doubleToLongBits(k.extrema().max(FieldType.F32, segment, 0, 4, count, shared,
                            2 * block, Double.NEGATIVE_INFINITY))).as("%s block %d", k.name(), block)
                            .isEqualTo(Double.doubleToLongBits(modelExtremum(true, values, own,
                                    Double.NEGATIVE_INFINITY)));
                }
            }
        }
    }

    /**
     * Adding the zeros of inactive cells (what a sum over a whole bitmasked block does) gives the
     * bits of skipping them, from partial sums that start at zero: a partial sum is never
     * {@code -0.0}, so {@code + 0.0} changes nothing, even where the active values are {@code -0.0}.
     */
    @Test
    void zerosOfInactiveCellsAddNothing() {
        Random rnd = new Random(9);
        try (Arena arena = Arena.ofConfined()) {
            int count = 512;
            MemorySegment segment = arena.allocate(count * 8L, 64);
            for (FieldType type : new FieldType[] {FieldType.F32, FieldType.F64}) {
                for (int density : new int[] {2, 3, 7}) {
                    double[] values = new double[count];
                    fill(type, rnd, values, new long[count], new double[] {-0.0, Double.MIN_VALUE, -Double.MIN_VALUE});
                    long[] mask = randomMask(rnd, count, density);
                    double[] skipped = new double[LANES];
                    for (int n = 0; n < count; n++) {
                        if ((mask[n >>> 6] & (1L << n)) != 0) {
                            skipped[n % LANES] += values[n];
                        } else {
                            values[n] = 0.0; // as the runtime leaves an inactive cell
                        }
                    }
                    write(segment, type, 0, type.byteSize(), values, null);
                    for (Named k : kernels()) {
                        double[] lanes = new double[LANES];
                        k.sum().sum(type, segment, 0, type.byteSize(), count, 0, lanes);
                        assertThat(bits(lanes)).as("%s %s density 1/%d", k.name(), type, density).isEqualTo(bits(skipped));
                    }
                }
            }
        }
    }

    @Test
    void minAndMaxAreMathMinAndMaxOfTheMaskedValuesWithNaNsAndSignedZeros() {
        Random rnd = new Random(17);
        double[] special = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(1100 * 16L, 64);
            for (FieldType type : FieldType.values()) {
                for (long stride : new long[] {type.byteSize(), 16}) {
                    for (int count : counts()) {
                        double[] values = new double[count];
                        long[] raw = new long[count];
                        int specials = rnd.nextInt(3); // none, NaN and zeros, or all of them
                        fill(type, rnd, values, raw, specials == 0 ? null
                                : Arrays.copyOf(special, specials == 1 ? 3 : special.length));
                        long offset = type.byteSize() * (long) rnd.nextInt(3);
                        write(segment, type, offset, stride, values, raw);
                        for (int maskKind : new int[] {-1, 0, 1, 2, 7}) {
                            long[] mask = maskKind < 0 ? null : randomMask(rnd, count, maskKind);
                            for (double start : new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
                                    -0.0}) {
                                double min = modelExtremum(false, values, mask, start);
                                double max = modelExtremum(true, values, mask, start);
                                for (Named k : kernels()) {
                                    String as = k.name() + " " + type + " stride=" + stride + " count=" + count
                                            + " mask=" + maskKind + " start=" + start;
                                    assertThat(Double.doubleToLongBits(k.extrema().min(type, segment, offset, stride,
                                            count, mask, 0, start))).as("min " + as).isEqualTo(Double.doubleToLongBits(min));
                                    assertThat(Double.doubleToLongBits(k.extrema().max(type, segment, offset, stride,
                                            count, mask, 0, start))).as("max " + as).isEqualTo(Double.doubleToLongBits(max));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * The same runs called often enough for C2 to compile the loops, with their intrinsics (the
     * masked adds, the conversions, lane-wise min and max with NaNs and signed zeros): the
     * compiled code must give the interpreter's answers.
     */
    @Test
    void compiledLoopsGiveTheSameAnswers() {
        Random rnd = new Random(3);
        double[] special = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        try (Arena arena = Arena.ofConfined()) {
            int count = 512 + 37;
            MemorySegment f32 = arena.allocate(count * 4L, 64);
            MemorySegment f64 = arena.allocate(count * 8L, 64);
            double[] values = new double[count];
            double[] zeros = new double[count]; // -0.0 and 0.0 only: which one min and max return matters
            for (int n = 0; n < count; n++) {
                values[n] = rnd.nextInt(64) == 0 ? special[rnd.nextInt(special.length)] : randomValue(FieldType.F32, rnd);
                zeros[n] = rnd.nextBoolean() ? -0.0 : 0.0;
            }
            long[] mask = randomMask(rnd, count, 2);
            List<double[]> inputs = List.of(values, zeros);
            for (double[] input : inputs) {
                write(f32, FieldType.F32, 0, 4, input, null);
                write(f64, FieldType.F64, 0, 8, input, null);
                double[] expectedSum = modelSum(input, 0, new double[LANES]);
                double expectedMin = modelExtremum(false, input, mask, Double.POSITIVE_INFINITY);
                double expectedMax = modelExtremum(true, input, null, Double.NEGATIVE_INFINITY);
                for (Named k : kernels()) {
                    for (int call = 0; call < 6_000; call++) {
                        MemorySegment segment = call % 2 == 0 ? f32 : f64;
                        FieldType type = call % 2 == 0 ? FieldType.F32 : FieldType.F64;
                        double[] lanes = new double[LANES];
                        k.sum().sum(type, segment, 0, type.byteSize(), count, 0, lanes);
                        if (!Arrays.equals(bits(lanes), bits(expectedSum))) {
                            assertThat(bits(lanes)).as("%s %s sum, call %d", k.name(), type, call)
                                    .isEqualTo(bits(expectedSum));
                        }
                        double min = k.extrema().min(type, segment, 0, type.byteSize(), count, mask, 0,
                                Double.POSITIVE_INFINITY);
                        double max = k.extrema().max(type, segment, 0, type.byteSize(), count, null, 0,
                                Double.NEGATIVE_INFINITY);
                        if (Double.doubleToLongBits(min) != Double.doubleToLongBits(expectedMin)
                                || Double.doubleToLongBits(max) != Double.doubleToLongBits(expectedMax)) {
                            assertThat(new double[] {min, max}).as("%s %s min and max, call %d", k.name(), type, call)
                                    .containsExactly(expectedMin, expectedMax);
                        }
                    }
                }
            }
        }
    }

    @Test
    void foldLanesAddsPairwiseByHalvingAndRefusesOtherLengths() {
        double[] lanes = new double[LANES];
        lanes[0] = 1e16;
        lanes[1] = 1.0;
        lanes[16] = -1e16;
        lanes[17] = 1.0;
        // Pairwise by halving: lanes 0 and 16 cancel first, 1 and 17 make 2. A left-to-right sum
        // loses lane 1 (1e16 + 1.0 rounds back to 1e16) and gives 1.
        assertThat(ReductionKernels.foldLanes(lanes)).isEqualTo(2.0);
        double sequential = 0;
        for (double lane : lanes) {
            sequential += lane;
        }
        assertThat(sequential).isEqualTo(1.0);
        assertThat(lanes[1]).as("unchanged").isEqualTo(1.0);
        assertThatThrownBy(() -> ReductionKernels.foldLanes(new double[16]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lanes.length=16");
    }

    @Test
    void theProviderHandsOutScalarReductionsOrVectorOnesOfTheSameOrder() {
        assertThat(VectorizationProvider.scalar().reductionKernels()).isSameAs(ScalarReductionKernels.INSTANCE);
        assertThat(ScalarReductionKernels.INSTANCE.vectorized()).isFalse();
        VectorizationProvider.vector().map(VectorizationProvider::reductionKernels).ifPresent(vector ->
                assertThat(vector.name()).isEqualTo(vector.vectorized() ? "panama-" + (PanamaReductionKernels.WIDE
                        ? 512 : 256) : "scalar"));
    }

    @Test
    void aRunPastTheSegmentThrows() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(64 * 4L, 64);
            for (Named k : kernels()) {
                double[] lanes = new double[LANES];
                assertThatThrownBy(() -> k.sum().sum(FieldType.F32, segment, 4, 4, 64, 0, lanes))
                        .as(k.name()).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> k.extrema().max(FieldType.F64, segment, 0, 8, 33, null, 0, 0.0))
                        .as(k.name()).isInstanceOf(IndexOutOfBoundsException.class);
            }
        }
    }
}
