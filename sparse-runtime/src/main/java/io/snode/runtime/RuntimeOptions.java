package io.snode.runtime;

import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.internal.memory.MemoryPool;
import java.util.Objects;

/**
 * How a runtime gets its memory and reclaims it.
 *
 * @param memoryCapBytes most bytes the runtime may reserve; beyond it an activation fails with
 *                       {@link io.snode.api.MemoryCapExceededException} and changes nothing
 * @param allocator      where every off-heap request goes; tests replace it to inject failures
 * @param collector      what {@link SparseRuntime#collect()} runs
 */
public record RuntimeOptions(long memoryCapBytes, MemoryAllocator allocator, Collector collector) {
    /** Cap: {@link MemoryPool#defaultCapBytes()}; one shared arena per chunk; serial collection. */
    public static final RuntimeOptions DEFAULT =
            new RuntimeOptions(MemoryPool.defaultCapBytes(), MemoryAllocator.arenaPerChunk(), Collector.SERIAL);

    public RuntimeOptions {
        if (memoryCapBytes <= 0) {
            throw new IllegalArgumentException("memoryCapBytes=" + memoryCapBytes + " must be positive");
        }
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(collector, "collector");
    }

    public RuntimeOptions withMemoryCap(long bytes) {
        return new RuntimeOptions(bytes, allocator, collector);
    }

    public RuntimeOptions withAllocator(MemoryAllocator allocator) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector);
    }

    public RuntimeOptions withCollector(Collector collector) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector);
    }
}
