package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.Layout;
import io.snode.api.LayoutException;
import io.snode.api.LayoutRule;
import io.snode.runtime.internal.memory.ChunkGeometry;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The memory plan's size rules: every count, size and offset it computes is exact
 * ({@link LayoutRule#SIZE_OVERFLOW}), and no piece of memory it plans is larger than the largest
 * chunk the pool hands out ({@link LayoutRule#CONTAINER_TOO_LARGE},
 * {@link LayoutRule#DYNAMIC_CHUNK_TOO_LARGE}). Both fail before any memory is asked for.
 */
class PlanLimitsTest {
    private static final long MAX = LayoutRule.MAX_CONTAINER_BYTES;

    private static LayoutException planFails(String text) {
        return catchLayout(() -> Plan.of(Layout.parse(text)));
    }

    private static LayoutException catchLayout(ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(LayoutException.class);
        return (LayoutException) thrown;
    }

    @Test
    void theLayoutLimitIsTheLargestChunkOfTheMemoryPool() {
        assertThat(ChunkGeometry.LARGEST_CHUNK_BYTES).isEqualTo(LayoutRule.MAX_CONTAINER_BYTES);
        // The halving rule never plans a chunk above the limit for cells up to the limit.
        for (long cell : new long[] {4, 8, 1024, 1025, 4096, MAX / 2 + 8, MAX}) {
            assertThat(ChunkGeometry.of(cell, 8).largestChunkBytes()).isLessThanOrEqualTo(MAX);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // 2^62 cells of 4 bytes: 2^64 bytes (the old plan printed a container of 0 B)
            "dense(ijklmnop,[256,256,256,256,256,256,256,64]).place(f32 x)"
                    + "|root/dense(ijklmnop,[256,256,256,256,256,256,256,64])",
            "dense(ijklmnop,[256,256,256,256,256,256,256,127]).place(f64 x)"
                    + "|root/dense(ijklmnop,[256,256,256,256,256,256,256,127])",
            // 2^61 pointer words of 8 bytes
            "pointer(ijklmnop,[256,256,256,256,256,256,256,32]).place(f32 x)"
                    + "|root/pointer(ijklmnop,[256,256,256,256,256,256,256,32])",
            // the mask words fit (2^56 words), the 2^62 cells of 4 bytes after them do not
            "bitmasked(ijklmnop,[256,256,256,256,256,256,256,64]).place(f32 x)"
                    + "|root/bitmasked(ijklmnop,[256,256,256,256,256,256,256,64])"})
    void bytesThatOverflowALongAreALayoutError(String text, String path) {
        LayoutException e = planFails(text);
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_OVERFLOW);
        assertThat(e.path()).isEqualTo(path);
        assertThat(e).hasMessageContaining("fits a signed 64-bit integer")
                .hasMessageContaining("more than 9223372036854775807 bytes");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // 2^27 cells of 4 bytes: a 512 MiB dense container inside the root cell
            "pointer(i,4).dense(ijk,512).place(f32 x)|root/pointer(i,4)/dense(ijk,512)|container=536870912 bytes",
            "dense(i,33554433).place(f32 x)|root/dense(i,33554433)|container=134217732 bytes",
            // the mask words (2^19 words of 8 bytes) push it over
            "bitmasked(i,33554432).place(f32 x)|root/bitmasked(i,33554432)|container=138412032 bytes",
            // 2^25 pointer words of 8 bytes
            "pointer(ijk,[256,256,512]).place(f32 x)|root/pointer(ijk,[256,256,512])|container=268435456 bytes",
            // two 64 MiB containers fit the root cell exactly; a field more does not
            "place(f32 c); dense(i,16777216).place(f32 a); dense(j,16777216).place(f32 b)|root"
                    + "|cell=134217732 bytes",
            // one cell of a pointer node is one allocation too
            "pointer(i,2){ place(f32 c); dense(j,16777216).place(f32 a); dense(k,16777216).place(f32 b) }"
                    + "|root/pointer(i,2)|cell=134217732 bytes"})
    void aContainerOrCellAboveTheLargestChunkIsALayoutError(String text, String path, String detail) {
        LayoutException e = planFails(text);
        assertThat(e.rule()).isEqualTo(LayoutRule.CONTAINER_TOO_LARGE);
        assertThat(e.path()).isEqualTo(path);
        assertThat(e).hasMessageContaining(detail).hasMessageContaining("at most 134217728 bytes (128 MiB)");
    }

    @Test
    void aDynamicChunkAboveTheLargestChunkIsALayoutError() {
        LayoutException e = planFails("dynamic(l,2147483647,2147483647).place(f32 x)");
        assertThat(e.rule()).isEqualTo(LayoutRule.DYNAMIC_CHUNK_TOO_LARGE);
        assertThat(e.path()).isEqualTo("root/dynamic(l,2147483647,2147483647)");
        assertThat(e).hasMessageContaining("chunk=2147483647 elements of 4 bytes = 8589934588 bytes");
        assertThat(planFails("pointer(i,4).dynamic(l,33554433,33554433).place(f32 x)").rule())
                .isEqualTo(LayoutRule.DYNAMIC_CHUNK_TOO_LARGE);
    }

    @Test
    void theLargestLegalContainersArePlannedExactly() {
        SNodePlan dense = Plan.of(Layout.parse("dense(i,33554432).place(f32 x)")).node(1);
        assertThat(dense.containerBytes()).isEqualTo(MAX);
        Plan root = Plan.of(Layout.parse("dense(i,16777216).place(f32 a); dense(j,16777216).place(f32 b)"));
        assertThat(root.node(0).cellBytes()).isEqualTo(MAX);
        assertThat(root.node(2).containerBytes()).isEqualTo(MAX / 2);
        SNodePlan pointer = Plan.of(Layout.parse("pointer(ijk,256).place(f32 x)")).node(1);
        assertThat(pointer.containerBytes()).isEqualTo(MAX);
        // mask 2^25 / 64 words of 8 bytes, then 2^25 - 2^20 cells of 4 bytes
        SNodePlan bitmasked = Plan.of(Layout.parse("bitmasked(i,32505856).place(f32 x)")).node(1);
        assertThat(bitmasked.containerBytes()).isEqualTo(32505856L / 8 + 32505856L * 4).isLessThanOrEqualTo(MAX);
        SNodePlan list = Plan.of(Layout.parse("pointer(i,4).dynamic(l,33554432,33554432).place(f32 x)")).node(2);
        assertThat(list.chunkBytes()).isEqualTo(MAX);
        // A pointer cell may hold the largest container once.
        Plan nested = Plan.of(Layout.parse("pointer(i,4).dense(j,33554432).place(f32 x)"));
        assertThat(nested.node(1).cellBytes()).isEqualTo(MAX);
    }

    @Test
    void theDefaultChunkKeepsTheLongestListSmallPerChunk() {
        SNodePlan list = Plan.of(Layout.parse("dynamic(l,2147483647).place(f64 x)")).node(1);
        assertThat(list.chunkSize()).isEqualTo(1024);
        assertThat(list.chunkBytes()).isEqualTo(8192);
        assertThat(list.maxChunks()).isEqualTo(2097152);
        assertThat(list.toString()).contains("capacity 2147483647, chunk 1024 elements (8192 B)");
    }

    @ParameterizedTest
    @CsvSource({"1,1", "2,1", "3,1", "4,1", "5,1", "1000,3", "2147483647,1", "2147483647,2", "2147483647,3",
            "2147483647,1024", "2147483647,33554432", "67108864,33554432", "65539,1", "131072,1"})
    void everyDynamicListIsAddressableThroughItsDirectory(int capacity, int chunk) {
        String text = "dynamic(l," + capacity + "," + chunk + ").place(i32 x)";
        SNodePlan list = Plan.of(Layout.parse(text)).node(1);
        long chunks = ((long) capacity + chunk - 1) / chunk;
        assertThat(list.maxChunks()).isEqualTo(chunks);
        long addressable = DynamicHeader.INLINE_CHUNKS
                + (long) list.directoryTopFanout() * list.directoryLeafFanout();
        assertThat(addressable).isGreaterThanOrEqualTo(chunks);
        long blockBytes = (long) Math.max(list.directoryTopFanout(), list.directoryLeafFanout()) * Long.BYTES;
        assertThat(blockBytes).isLessThanOrEqualTo(MAX);
    }

    /** Counts the requests that reach it, and serves them. */
    static final class CountingAllocator implements MemoryAllocator {
        final MemoryAllocator real = MemoryAllocator.arenaPerChunk();
        final AtomicInteger requests = new AtomicInteger();

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            requests.incrementAndGet();
            return real.allocate(byteSize, byteAlignment);
        }

        @Override
        public void free(MemorySegment segment) {
            real.free(segment);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "dense(ijk,1024).place(f64 x)|CONTAINER_TOO_LARGE",
            "dense(ijklmnop,[256,256,256,256,256,256,256,64]).place(f32 x)|SIZE_OVERFLOW",
            "pointer(ijk,16).dynamic(l,2147483647,2147483647).place(f32 x)|DYNAMIC_CHUNK_TOO_LARGE"})
    void creatingARuntimeForAnOversizedLayoutAsksForNoMemory(String text, LayoutRule rule) {
        CountingAllocator allocator = new CountingAllocator();
        Layout layout = Layout.parse(text);
        // The cap keeps the old code, which planned these, from asking for gigabytes.
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(allocator).withMemoryCap(1L << 30);
        LayoutException e = catchLayout(() -> SparseRuntime.create(layout, options).close());
        assertThat(e.rule()).isEqualTo(rule);
        assertThat(allocator.requests).hasValue(0);
    }

    @Test
    void theLargestDenseRootStillRuns() {
        CountingAllocator allocator = new CountingAllocator();
        Layout layout = Layout.parse("dense(i,33554432).place(f32 x)");
        try (SparseRuntime runtime = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withAllocator(allocator))) {
            runtime.setFloat("x", 1.5f, 33554431);
            runtime.setFloat("x", 2.5f, 0);
            assertThat(runtime.getFloat("x", 33554431)).isEqualTo(1.5f);
            assertThat(runtime.getFloat("x", 0)).isEqualTo(2.5f);
            assertThat(runtime.memoryStats().bytesReserved()).isGreaterThanOrEqualTo(MAX);
        }
        assertThat(allocator.requests.get()).isPositive();
    }
}
