package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.codegen.samples.SplitMix64;
import org.junit.jupiter.api.Test;

class VectorSumTest {
    @Test
    void equalsTheScalarSumForEveryLengthAroundTheLaneWidths() {
        SplitMix64 random = new SplitMix64(5);
        for (int length = 0; length <= 200; length++) {
            float[] data = new float[length];
            double scalar = 0;
            for (int n = 0; n < length; n++) {
                // multiples of 2^-10 below 2^10: every sum of these is exact, in any order
                data[n] = (float) ((random.next() >>> 44) - (1L << 19)) / 1024;
                scalar += data[n];
            }
            assertThat(VectorSum.sum(data)).as("length %d", length).isEqualTo(scalar);
        }
    }

    @Test
    void aRangeSumsOnlyItsElements() {
        float[] data = new float[100];
        for (int n = 0; n < data.length; n++) {
            data[n] = n;
        }
        for (int from = 0; from <= 40; from += 7) {
            for (int to = from; to <= 100; to += 13) {
                double scalar = 0;
                for (int n = from; n < to; n++) {
                    scalar += n;
                }
                assertThat(VectorSum.sum(data, from, to)).as("[%d, %d)", from, to).isEqualTo(scalar);
            }
        }
    }
}
