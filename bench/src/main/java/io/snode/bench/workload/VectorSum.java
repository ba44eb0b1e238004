package io.snode.bench.workload;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * W3's limit: the sum of a {@code float[]} widened to double with the Vector API, four vector
 * accumulators (the memory bandwidth the leaf loops are compared against). Shared by
 * {@link W3IterateBenchmark#flatArrayLimit} and the dense baseline; loading it needs
 * {@code jdk.incubator.vector} in the module graph.
 */
final class VectorSum {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;

    private VectorSum() {
    }

    /** The sum of every element of {@code data}, in double. */
    static double sum(float[] data) {
        return sum(data, 0, data.length);
    }

    /** The sum of the elements {@code [from, to)} of {@code data}, in double. */
    static double sum(float[] data, int from, int to) {
        int lanes = FLOATS.length();
        DoubleVector a0 = DoubleVector.zero(DOUBLES);
        DoubleVector a1 = a0;
        DoubleVector a2 = a0;
        DoubleVector a3 = a0;
        int n = from;
        for (; n + 2 * lanes <= to; n += 2 * lanes) {
            FloatVector x = FloatVector.fromArray(FLOATS, data, n);
            FloatVector y = FloatVector.fromArray(FLOATS, data, n + lanes);
            a0 = a0.add(x.convertShape(VectorOperators.F2D, DOUBLES, 0).reinterpretAsDoubles());
            a1 = a1.add(x.convertShape(VectorOperators.F2D, DOUBLES, 1).reinterpretAsDoubles());
            a2 = a2.add(y.convertShape(VectorOperators.F2D, DOUBLES, 0).reinterpretAsDoubles());
            a3 = a3.add(y.convertShape(VectorOperators.F2D, DOUBLES, 1).reinterpretAsDoubles());
        }
        double sum = a0.add(a1).add(a2).add(a3).reduceLanes(VectorOperators.ADD);
        for (; n < to; n++) {
            sum += data[n];
        }
        return sum;
    }
}
