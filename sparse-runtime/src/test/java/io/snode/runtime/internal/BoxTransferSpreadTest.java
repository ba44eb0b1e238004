package io.snode.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The hash that a scattered cell list's grouping takes its buckets and table slots from
 * ({@link BoxTransfer#spread}) spreads the container keys of natural shapes and of the
 * multiples of 2,971,215,073 (one home under Fibonacci hashing at every table size up to 2^34):
 * numbering 65,536 containers with linear probing, as {@code GroupedWrite.number} does, costs at
 * most 2 probes per key on average. Until 12-06 the slot was the top bits of the key times
 * 2^64 / phi: 32,768 probes per key for those multiples (a review's simulation of
 * {@code number}), each cell of such a container paying one lookup.
 */
class BoxTransferSpreadTest {
    @Test
    void containerKeysOfNaturalShapesAndOfOneFibonacciClusterSpreadOverTheTable() {
        int keys = 1 << 16;
        int length = 1 << 17; // the table is at most half full
        int bits = Integer.numberOfTrailingZeros(length);
        Map<String, LongUnaryOperator> shapes = new LinkedHashMap<>();
        shapes.put("blocks along k", a -> a);
        shapes.put("blocks along j (2^16 blocks per axis)", a -> a << 16);
        shapes.put("blocks along i", a -> a << 32);
        shapes.put("multiples of 2971215073", a -> (a + 1) * 2_971_215_073L);
        for (var shape : shapes.entrySet()) {
            long[] table = new long[length];
            long probes = 0;
            for (long a = 0; a < keys; a++) {
                long key = shape.getValue().applyAsLong(a);
                int slot = (int) (BoxTransfer.spread(key) >>> (Long.SIZE - bits));
                probes++;
                while (table[slot] != 0) {
                    slot = (slot + 1) & (length - 1);
                    probes++;
                }
                table[slot] = key + 1;
            }
            assertThat((double) probes / keys).as(shape.getKey() + ": probes per key").isLessThan(2.0);
        }
    }
}
