package io.snode.codegen.testing;

import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An allocator fault for tests: the real chunk allocator, except that the request that brings
 * {@link #countdown} to 0 throws what {@code failure} makes (set the countdown to 1 and the next
 * request fails). The countdown starts out of reach.
 */
public final class FailingAllocator implements MemoryAllocator {
    public final AtomicInteger countdown = new AtomicInteger(Integer.MAX_VALUE);
    private final MemoryAllocator real = MemoryAllocator.arenaPerChunk();
    private final Supplier<? extends Throwable> failure;

    /** @param failure an Error or a RuntimeException to throw */
    public FailingAllocator(Supplier<? extends Throwable> failure) {
        this.failure = failure;
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        if (countdown.decrementAndGet() == 0) {
            Throwable thrown = failure.get();
            if (thrown instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) thrown;
        }
        return real.allocate(byteSize, byteAlignment);
    }

    @Override
    public void free(MemorySegment segment) {
        real.free(segment);
    }
}
