package io.snode.runtime.internal.vectorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * SIMD and scalar kernels against each other and against a byte-by-byte model, over lengths
 * around the vector width (Lucene's {@code TestVectorUtilSupport} habit) and odd offsets. In the
 * scalar-fallback execution the vector side is skipped and the scalar kernels are checked
 * against the model alone.
 */
class GcKernelsTest {

    private static final GcKernels SCALAR = VectorizationProvider.scalar().gcKernels();

    /** The lengths around multiples of 16, 32 and 64 bytes (and of 4x64, the unrolled step). */
    private static List<Integer> lengths() {
        List<Integer> out = new ArrayList<>();
        for (int base : new int[] {0, 8, 16, 32, 64, 128, 192, 256, 512, 1024, 2048, 4096}) {
            for (int d = -3; d <= 3; d++) {
                if (base + d >= 0) {
                    out.add(base + d);
                }
            }
        }
        out.add(10_000);
        out.add(65_537);
        out.add(256 * 1024 - 1); // the vector kernels fill from 256 KiB on
        out.add(256 * 1024 + 3);
        return out;
    }

    private static List<GcKernels> kernels() {
        List<GcKernels> out = new ArrayList<>(List.of(SCALAR));
        VectorizationProvider.vector().map(VectorizationProvider::gcKernels).ifPresent(out::add);
        return out;
    }

    @Test
    void zeroClearsExactlyTheRangeForEveryLengthAndOffset() {
        Random rnd = new Random(1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(270_000, 64);
            byte[] model = new byte[(int) seg.byteSize()];
            for (GcKernels k : kernels()) {
                for (int length : lengths()) {
                    for (int offset : new int[] {0, 1, 3, 61}) {
                        if (offset + length > seg.byteSize()) {
                            continue;
                        }
                        rnd.nextBytes(model);
                        MemorySegment.copy(model, 0, seg, ValueLayout.JAVA_BYTE, 0, model.length);
                        k.zero(seg, offset, length);
                        java.util.Arrays.fill(model, offset, offset + length, (byte) 0);
                        assertThat(seg.toArray(ValueLayout.JAVA_BYTE)).as("%s length=%d offset=%d", k.name(), length, offset)
                                .isEqualTo(model);
                    }
                }
            }
        }
    }

    @Test
    void copyIntsMovesExactlyTheRangeIncludingOverlapsInBothDirections() {
        Random rnd = new Random(2);
        try (Arena arena = Arena.ofConfined()) {
            int ints = 20_000;
            MemorySegment a = arena.allocate(ints * 4L, 64);
            MemorySegment b = arena.allocate(ints * 4L, 64);
            for (GcKernels k : kernels()) {
                for (int count : lengths()) {
                    if (count * 4 > 40_000 || count > 19_000) {
                        continue;
                    }
                    for (int[] offsets : new int[][] {{0, 0}, {1, 7}, {5, 0}, {0, 3}}) {
                        int[] src = rnd.ints(ints).toArray();
                        int[] dst = rnd.ints(ints).toArray();
                        MemorySegment.copy(src, 0, a, ValueLayout.JAVA_INT, 0, ints);
                        MemorySegment.copy(dst, 0, b, ValueLayout.JAVA_INT, 0, ints);
                        k.copyInts(a, offsets[0] * 4L, b, offsets[1] * 4L, count);
                        System.arraycopy(src, offsets[0], dst, offsets[1], count);
                        assertThat(b.toArray(ValueLayout.JAVA_INT)).as("%s count=%d", k.name(), count).isEqualTo(dst);

                        // Within one segment: down and up by a few entries (overlapping when count is large).
                        MemorySegment.copy(src, 0, a, ValueLayout.JAVA_INT, 0, ints);
                        int from = 10 + offsets[0];
                        int to = 10 + offsets[1];
                        k.copyInts(a, from * 4L, a, to * 4L, count);
                        int[] model = src.clone();
                        System.arraycopy(model, from, model, to, count);
                        assertThat(a.toArray(ValueLayout.JAVA_INT)).as("%s overlapping count=%d", k.name(), count)
                                .isEqualTo(model);
                    }
                }
            }
        }
    }

    @Test
    void theVectorZeroLoopClearsLongRunsToo() {
        assumeTrue(VectorizationProvider.vector().isPresent(), "Vector API not in the module graph");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(600_000, 64);
            seg.fill((byte) 5);
            VectorOnly.zeroVector(seg, 3, 599_990);
            byte[] expected = new byte[600_000];
            java.util.Arrays.fill(expected, (byte) 5);
            java.util.Arrays.fill(expected, 3, 599_993, (byte) 0);
            assertThat(seg.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected);
        }
    }

    @Test
    void theVectorCopyLoopAgreesWithTheScalarCopy() {
        assumeTrue(VectorizationProvider.vector().isPresent(), "Vector API not in the module graph");
        Random rnd = new Random(3);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(8192 * 4L, 64);
            MemorySegment b = arena.allocate(8192 * 4L, 64);
            MemorySegment c = arena.allocate(8192 * 4L, 64);
            for (int count : lengths()) {
                if (count > 8000) {
                    continue;
                }
                int[] src = rnd.ints(8192).toArray();
                MemorySegment.copy(src, 0, a, ValueLayout.JAVA_INT, 0, src.length);
                b.fill((byte) 0);
                c.fill((byte) 0);
                VectorOnly.copyIntsVector(a, 4, b, 8, count);
                SCALAR.copyInts(a, 4, c, 8, count);
                assertThat(b.mismatch(c)).as("count=%d", count).isEqualTo(-1);
            }
        }
    }

    @Test
    void outOfRangeRequestsThrowAndWriteNothing() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(256, 64);
            seg.fill((byte) 7);
            for (GcKernels k : kernels()) {
                assertThatThrownBy(() -> k.zero(seg, 200, 100)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> k.copyInts(seg, 0, seg, 200, 30)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThat(seg.toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 7);
            }
        }
    }

    /** Touches the Panama class only when a test that already checked the module calls it. */
    private static final class VectorOnly {
        static void zeroVector(MemorySegment segment, long offset, long length) {
            PanamaGcKernels.zeroVector(segment, offset, length);
        }

        static void copyIntsVector(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
            PanamaGcKernels.copyIntsVector(src, srcOffset, dst, dstOffset, count);
        }
    }
}
