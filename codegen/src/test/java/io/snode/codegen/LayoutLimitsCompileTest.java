package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.Layout;
import io.snode.api.LayoutException;
import io.snode.api.LayoutRule;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Compiling a layout whose plan breaks a size rule fails with a {@link LayoutException} before
 * any memory is asked for; the largest legal layouts compile and run.
 */
class LayoutLimitsCompileTest {

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
            "pointer(ijk,16).dense(ijk,512).place(f32 x)|CONTAINER_TOO_LARGE|root/pointer(ijk,16)/dense(ijk,512)",
            "bitmasked(ijk,[256,256,512]).place(f32 x)|CONTAINER_TOO_LARGE|root/bitmasked(ijk,[256,256,512])",
            "dense(ijklmnop,[256,256,256,256,256,256,256,64]).place(f32 x)|SIZE_OVERFLOW"
                    + "|root/dense(ijklmnop,[256,256,256,256,256,256,256,64])",
            "pointer(i,8).dynamic(l,2147483647,2147483647).place(f32 x)|DYNAMIC_CHUNK_TOO_LARGE"
                    + "|root/pointer(i,8)/dynamic(l,2147483647,2147483647)"})
    void compilingAnOversizedLayoutThrowsBeforeAnyAllocation(String text, LayoutRule rule, String path) {
        Layout layout = Layout.parse(text);
        CountingAllocator allocator = new CountingAllocator();
        // The cap keeps the old code, which compiled these, from asking for gigabytes.
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(allocator).withMemoryCap(1L << 30);
        Throwable thrown = catchThrowable(() -> SNodeRuntime.compile(layout, options).close());
        assertThat(thrown).isInstanceOf(LayoutException.class);
        LayoutException e = (LayoutException) thrown;
        assertThat(e.rule()).isEqualTo(rule);
        assertThat(e.path()).isEqualTo(path);
        assertThat(allocator.requests).hasValue(0);
        // The default compile (own collector) fails the same way.
        assertThat(catchThrowable(() -> SNodeRuntime.compile(layout).close()))
                .isInstanceOf(LayoutException.class).hasMessage(e.getMessage());
    }

    @Test
    void theLargestPointerRootCompilesAndRuns() throws Throwable {
        // 2^24 pointer words of 8 bytes: a root cell of exactly 128 MiB.
        Layout layout = Layout.parse("pointer(ijk,256).dense(ijk,8).place(f32 x)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            assertThat(runtime.plan().node(0).cellBytes()).isEqualTo(LayoutRule.MAX_CONTAINER_BYTES);
            MethodHandle set = runtime.setter("x");
            MethodHandle get = runtime.getter("x");
            set.invokeExact(2047, 2047, 2047, 1.5f);
            set.invokeExact(0, 0, 1, 2.5f);
            assertThat((float) get.invokeExact(2047, 2047, 2047)).isEqualTo(1.5f);
            assertThat((float) get.invokeExact(0, 0, 1)).isEqualTo(2.5f);
            assertThat(runtime.generic().getFloat("x", 2047, 2047, 2047)).isEqualTo(1.5f);
            assertThat(runtime.count("x")).isEqualTo(2 * 512);
        }
    }

    @Test
    void theLargestDynamicChunkCompilesAndRuns() throws Throwable {
        // One chunk of 2^25 f32 elements: exactly 128 MiB, allocated by the first append.
        Layout layout = Layout.parse("pointer(i,2).dynamic(l,33554432,33554432).place(f32 x)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            assertThat(runtime.plan().node(2).chunkBytes()).isEqualTo(LayoutRule.MAX_CONTAINER_BYTES);
            runtime.generic().setFloat("x", 3.5f, 1, 33554431);
            assertThat(runtime.generic().getFloat("x", 1, 33554431)).isEqualTo(3.5f);
            MethodHandle get = runtime.getter("x");
            assertThat((float) get.invokeExact(1, 33554431)).isEqualTo(3.5f);
            assertThat((float) get.invokeExact(1, 0)).isZero();
        }
    }
}
