package io.snode.runtime.internal.vectorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The pointer scan and the mask copy, SIMD against scalar and both against a plain model, over
 * word counts and offsets around the lane width (Lucene's {@code TestVectorUtilSupport} habit):
 * the scalar kernels are run with as many lanes as the vector ones, so both must give the same
 * bits. In the scalar-fallback execution there is no vector side, and the scalar kernels (with one
 * lane, as the provider hands them out, and with 2, 4 and 8) are checked against the model alone.
 */
class ScanKernelsTest {

    /** Words of a pointer container: mostly null, some active, and the non-positive others. */
    private static final long[] SPECIAL = {0, 0, 0, 1, 0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 0, 2, -2, 0};

    /** The vector kernels if this JVM has them, each paired with scalar kernels of the same width. */
    private static List<ScanKernels[]> pairs() {
        List<ScanKernels[]> out = new ArrayList<>();
        for (int lanes : new int[] {1, 2, 4, 8}) {
            out.add(new ScanKernels[] {ScalarScanKernels.withLanes(lanes), null});
        }
        VectorizationProvider.vector().map(VectorizationProvider::scanKernels).ifPresent(vector ->
                out.add(new ScanKernels[] {ScalarScanKernels.withLanes(vector.lanes()), vector}));
        return out;
    }

    private static long modelActiveWords(long[] words, int from, int lanes) {
        long bits = 0;
        for (int n = 0; n < lanes; n++) {
            if (words[from + n] > 0) {
                bits |= 1L << n;
            }
        }
        return bits;
    }

    private static long[] randomWords(Random rnd, int count) {
        long[] words = new long[count];
        for (int w = 0; w < count; w++) {
            words[w] = switch (rnd.nextInt(4)) {
                case 0 -> SPECIAL[rnd.nextInt(SPECIAL.length)];
                case 1 -> rnd.nextLong();
                default -> 0; // sparse: half of the words are null
            };
        }
        return words;
    }

    @Test
    void theProviderHandsOutScalarKernelsWithOneLaneOrVectorKernelsWithSeveral() {
        ScanKernels scalar = VectorizationProvider.scalar().scanKernels();
        assertThat(scalar.lanes()).isEqualTo(1);
        assertThat(scalar.name()).isEqualTo("scalar");
        VectorizationProvider.vector().map(VectorizationProvider::scanKernels).ifPresent(vector -> {
            assertThat(vector.lanes()).isBetween(2, 64);
            assertThat(Integer.bitCount(vector.lanes())).isOne();
            assertThat(vector.name()).isEqualTo(VectorizationProvider.getInstance().name());
        });
    }

    @Test
    void activeWordsAgreeWithTheModelAtEveryOffsetAroundTheLaneWidth() {
        Random rnd = new Random(11);
        try (Arena arena = Arena.ofConfined()) {
            for (ScanKernels[] pair : pairs()) {
                int lanes = pair[0].lanes();
                for (int words = lanes; words <= 4 * lanes + 3; words++) {
                    long[] content = randomWords(rnd, words);
                    MemorySegment segment = arena.allocate((long) words * Long.BYTES, Long.BYTES);
                    MemorySegment.copy(content, 0, segment, ValueLayout.JAVA_LONG, 0, words);
                    for (int from = 0; from + lanes <= words; from++) {
                        long expected = modelActiveWords(content, from, lanes);
                        long offset = (long) from * Long.BYTES;
                        for (ScanKernels kernels : pair) {
                            if (kernels != null) {
                                assertThat(kernels.activeWords(segment, offset))
                                        .as("%s words=%d from=%d", kernels, words, from).isEqualTo(expected);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void everyWordPatternOfOneVectorGivesItsBits() {
        // All 2^lanes patterns of active (1) and inactive (0, -1, MIN_VALUE) words, up to 8 lanes.
        try (Arena arena = Arena.ofConfined()) {
            for (ScanKernels[] pair : pairs()) {
                int lanes = pair[0].lanes();
                if (lanes > 8) {
                    continue;
                }
                MemorySegment segment = arena.allocate((long) lanes * Long.BYTES, Long.BYTES);
                long[] inactive = {0, -1, Long.MIN_VALUE};
                for (int pattern = 0; pattern < 1 << lanes; pattern++) {
                    for (int n = 0; n < lanes; n++) {
                        long word = (pattern >>> n & 1) != 0 ? n + 1L : inactive[(pattern + n) % inactive.length];
                        segment.setAtIndex(ValueLayout.JAVA_LONG, n, word);
                    }
                    for (ScanKernels kernels : pair) {
                        if (kernels != null) {
                            assertThat(kernels.activeWords(segment, 0)).as("%s pattern=%s", kernels,
                                    Integer.toBinaryString(pattern)).isEqualTo(pattern);
                        }
                    }
                }
            }
        }
    }

    @Test
    void maskCopiesMoveExactlyTheWordsAndCountTheirBits() {
        Random rnd = new Random(12);
        try (Arena arena = Arena.ofConfined()) {
            for (ScanKernels[] pair : pairs()) {
                int lanes = Math.max(pair[0].lanes(), 8);
                for (int words = 0; words <= 4 * lanes + 3; words++) {
                    for (int from : new int[] {0, 1, lanes - 1, lanes}) {
                        for (int at : new int[] {0, 3}) {
                            long[] content = new long[from + words];
                            for (int w = 0; w < content.length; w++) {
                                content[w] = rnd.nextInt(3) == 0 ? 0 : rnd.nextLong() >>> rnd.nextInt(64);
                            }
                            MemorySegment segment = arena.allocate(Math.max(1, content.length) * (long) Long.BYTES,
                                    Long.BYTES);
                            MemorySegment.copy(content, 0, segment, ValueLayout.JAVA_LONG, 0, content.length);
                            long[] expected = new long[at + words + 2];
                            java.util.Arrays.fill(expected, 0x5555L);
                            int expectedCount = 0;
                            for (int w = 0; w < words; w++) {
                                expected[at + w] = content[from + w];
                                expectedCount += Long.bitCount(content[from + w]);
                            }
                            for (ScanKernels kernels : pair) {
                                if (kernels == null) {
                                    continue;
                                }
                                long[] masks = new long[expected.length];
                                java.util.Arrays.fill(masks, 0x5555L);
                                int count = kernels.copyMasks(segment, (long) from * Long.BYTES, masks, at, words);
                                assertThat(count).as("%s words=%d from=%d", kernels, words, from)
                                        .isEqualTo(expectedCount);
                                assertThat(masks).as("%s words=%d from=%d at=%d", kernels, words, from, at)
                                        .isEqualTo(expected);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void readsPastTheSegmentThrow() {
        try (Arena arena = Arena.ofConfined()) {
            for (ScanKernels[] pair : pairs()) {
                int lanes = pair[0].lanes();
                MemorySegment segment = arena.allocate((long) lanes * Long.BYTES, Long.BYTES);
                segment.fill((byte) 1);
                for (ScanKernels kernels : pair) {
                    if (kernels == null) {
                        continue;
                    }
                    assertThatThrownBy(() -> kernels.activeWords(segment, Long.BYTES))
                            .as("%s", kernels).isInstanceOf(IndexOutOfBoundsException.class);
                    long[] masks = new long[2 * lanes];
                    for (int words : new int[] {lanes + 1, 2 * lanes}) { // a word at a time, a vector at a time
                        assertThatThrownBy(() -> kernels.copyMasks(segment, 0, masks, 0, words))
                                .as("%s words=%d", kernels, words).isInstanceOf(IndexOutOfBoundsException.class);
                    }
                }
            }
        }
    }

    @Test
    void scalarLanesOutsideOneToSixtyFourAreRefused() {
        assertThat(ScalarScanKernels.withLanes(64).lanes()).isEqualTo(64);
        assertThatThrownBy(() -> ScalarScanKernels.withLanes(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lanes=0");
        assertThatThrownBy(() -> ScalarScanKernels.withLanes(65))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lanes=65");
    }
}
