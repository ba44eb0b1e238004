package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.runtime.internal.memory.MemoryAllocator;
import org.junit.jupiter.api.Test;

/** Each {@code with} method changes its own option only; the collector stays the runtime's default until chosen. */
class RuntimeOptionsTest {

    @Test
    void theDefaultCollectorIsAMarkerThatOnlyAnExplicitChoiceReplaces() {
        assertThat(RuntimeOptions.DEFAULT.usesDefaultCollector()).isTrue();
        RuntimeOptions capped = RuntimeOptions.DEFAULT.withMemoryCap(1 << 20);
        assertThat(capped.memoryCapBytes()).isEqualTo(1 << 20);
        assertThat(capped.usesDefaultCollector()).isTrue();
        assertThat(capped.collector()).isSameAs(RuntimeOptions.DEFAULT.collector());
        assertThat(capped.withAllocator(MemoryAllocator.arenaPerChunk()).usesDefaultCollector()).isTrue();
        RuntimeOptions serial = capped.withCollector(Collector.SERIAL);
        assertThat(serial.usesDefaultCollector()).isFalse();
        assertThat(serial.collector()).isSameAs(Collector.SERIAL);
        assertThat(serial.withMemoryCap(1 << 21).collector()).isSameAs(Collector.SERIAL);
    }

    /** The allocator printed as ArenaPerChunkAllocator@hash until 12-07. */
    @Test
    void theOptionsNameTheirAllocator() {
        assertThat(RuntimeOptions.DEFAULT.toString()).contains("allocator=regions where possible (else an arena per chunk)");
        assertThat(RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk()).toString())
                .contains("allocator=an arena per chunk").doesNotContain("@");
    }

    @Test
    void pageReleaseAndHugePagesAreOffByDefaultAndKeptByTheOtherWithMethods() {
        assertThat(RuntimeOptions.DEFAULT.hugePages()).isFalse();
        assertThat(RuntimeOptions.DEFAULT.releasesFreePages()).isFalse();
        RuntimeOptions both = RuntimeOptions.DEFAULT.withHugePages(true).withFreePageRelease(true);
        assertThat(both.hugePages()).isTrue();
        assertThat(both.releasesFreePages()).isTrue();
        for (RuntimeOptions changed : new RuntimeOptions[] {both.withMemoryCap(1 << 20),
                both.withAllocator(MemoryAllocator.arenaPerChunk()), both.withCollector(Collector.SERIAL)}) {
            assertThat(changed.hugePages()).isTrue();
            assertThat(changed.releasesFreePages()).isTrue();
        }
        assertThat(both.withHugePages(false).hugePages()).isFalse();
        assertThat(both.withHugePages(false).releasesFreePages()).isTrue();
        assertThat(new RuntimeOptions(1 << 20, MemoryAllocator.arenaPerChunk(), Collector.SERIAL, true).hugePages())
                .as("the four-argument form keeps base pages").isFalse();
    }

    @Test
    void aSparseRuntimeCollectsWithTheDefaultCollector() {
        try (SparseRuntime rt = SparseRuntime.create(io.snode.api.Layout.parse("pointer(i,4).place(f32 x)"),
                RuntimeOptions.DEFAULT.withMemoryCap(1 << 24))) {
            rt.setFloat("x", 1f, 2);
            rt.deactivate(rt.layout().snode(1), 2);
            assertThat(rt.memoryStats().of(rt.layout().snode(1)).cells().cellsRecycled()).isEqualTo(1);
            rt.collect();
            assertThat(rt.memoryStats().of(rt.layout().snode(1)).cells().cellsRecycled()).isZero();
        }
    }
}
