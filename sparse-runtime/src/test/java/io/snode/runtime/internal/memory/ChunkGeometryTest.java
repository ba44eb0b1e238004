package io.snode.runtime.internal.memory;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChunkGeometryTest {

    private static final long MiB = 1L << 20;

    @ParameterizedTest(name = "size={0} align={1}: stride {2}, first chunk {3}, largest chunk {4} elements")
    @CsvSource({
            // size,      align, stride,    first, largest
            "4,           4,     4,         1024,  131072",
            "8,           8,     8,         512,   131072",
            "12,          8,     16,        256,   131072",
            "1024,        8,     1024,      4,     131072",   // 128 Ki x 1 KiB = exactly 128 MiB
            "1025,        1,     1025,      2,     65536",    // 128 Ki x 1025 B > 128 MiB: halved once
            "2048,        8,     2048,      2,     65536",
            "3000,        8,     3000,      1,     32768",    // 128 Ki and 64 Ki elements exceed 128 MiB
            "4096,        4096,  4096,      1,     32768",
            "5000,        4096,  8192,      1,     16384",
            "134217728,   8,     134217728, 1,     1",        // a 128 MiB element: one per chunk
            "209715200,   8,     209715200, 1,     1",        // 200 MiB: one per chunk, larger than 128 MiB
    })
    void chunkSizesFollowTheHalvingRule(long size, long align, long stride, long first, long largest) {
        ChunkGeometry g = ChunkGeometry.of(size, align);
        assertThat(g.elementStride()).isEqualTo(stride);
        assertThat(g.firstChunkElements()).isEqualTo(first);
        assertThat(g.largestChunkElements()).isEqualTo(largest);
    }

    @Property(tries = 500)
    void largestChunkIsTheLargestPowerOfTwoUpTo128KiElementsWithin128MiB(
            @ForAll @LongRange(min = 1, max = 512 * MiB) long size,
            @ForAll @IntRange(min = 0, max = 12) int alignShift) {
        ChunkGeometry g = ChunkGeometry.of(size, 1L << alignShift);
        long largest = g.largestChunkElements();
        assertThat(Long.bitCount(largest)).isEqualTo(1);
        assertThat(largest).isLessThanOrEqualTo(128 * 1024);
        assertThat(largest == 1 || g.largestChunkBytes() <= 128 * MiB).isTrue();
        // Maximal: doubling would break one of the two limits.
        assertThat(largest == 128 * 1024 || 2 * largest * g.elementStride() > 128 * MiB).isTrue();
        long first = g.firstChunkElements();
        assertThat(first).isBetween(1L, largest);
        assertThat(first == 1 || first * g.elementStride() <= 4096).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"4,4", "16,8", "2048,8", "3000,8", "4096,4096", "209715200,8"})
    void everyIndexMapsToTheChunkThatAScanFinds(long size, long align) {
        ChunkGeometry g = ChunkGeometry.of(size, align);
        long start = 0;
        for (int k = 0; k < g.geometricChunks() + 4; k++) {
            assertThat(g.chunkStart(k)).as("chunkStart(%d)", k).isEqualTo(start);
            long n = g.chunkElements(k);
            if (k + 1 < g.geometricChunks()) {
                assertThat(g.chunkElements(k + 1)).isEqualTo(2 * n);
            }
            for (long i : new long[] {0, 1, n / 2, n - 2, n - 1}) {
                if (i < 0 || i >= n) {
                    continue;
                }
                assertThat(g.chunkIndex(start + i)).as("chunkIndex(%d)", start + i).isEqualTo(k);
                assertThat(g.indexInChunk(start + i)).isEqualTo(i);
                assertThat(g.byteOffsetInChunk(start + i)).isEqualTo(i * g.elementStride());
            }
            assertThat(g.chunksFor(start + n)).isEqualTo(k + 1);
            start += n;
        }
        assertThat(g.chunkElements(g.geometricChunks() + 10)).isEqualTo(g.largestChunkElements());
    }

    @Property(tries = 2000)
    void indexLiesInsideTheChunkItMapsTo(@ForAll @LongRange(min = 1, max = 70000) long size,
                                         @ForAll @LongRange(min = 0, max = (1L << 40) - 1) long index) {
        ChunkGeometry g = ChunkGeometry.of(size, 1);
        index = index % g.maxElements();
        int k = g.chunkIndex(index);
        assertThat(index).isBetween(g.chunkStart(k), g.chunkStart(k) + g.chunkElements(k) - 1);
        assertThat(g.indexInChunk(index)).isEqualTo(index - g.chunkStart(k));
    }

    @Test
    void maxElementsKeepsTheChunkDirectoryAnArray() {
        assertThat(ChunkGeometry.of(8, 8).maxElements()).isEqualTo(1L << 40);
        ChunkGeometry huge = ChunkGeometry.of(200 * MiB, 8);
        assertThat(huge.maxElements()).isEqualTo(ChunkGeometry.MAX_CHUNKS);
        assertThat(huge.chunkIndex(huge.maxElements() - 1)).isLessThan(ChunkGeometry.MAX_CHUNKS + 32);
    }

    @Test
    void badArgumentsAreRejectedWithNameAndValue() {
        assertThatThrownBy(() -> ChunkGeometry.of(0, 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("elementSize=0");
        assertThatThrownBy(() -> ChunkGeometry.of(8, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("elementAlignment=3");
        assertThatThrownBy(() -> ChunkGeometry.of(8, 8192))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("elementAlignment=8192");
    }
}
