package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test allocator over the default one: counts requests and can be armed to fail the N-th
 * {@link #allocate} call from now on (1 = the next one) with an {@link InjectedFailure}.
 */
final class FaultInjectingAllocator implements MemoryAllocator {

    /** What an armed request throws. */
    static final class InjectedFailure extends RuntimeException {
        InjectedFailure(long request) {
            super("injected failure at allocator request " + request);
        }
    }

    /** What an armed request throws after {@link #failAtRequestWithError}: what {@code Arena.allocate} throws. */
    static final class InjectedError extends OutOfMemoryError {
        InjectedError(long request) {
            super("injected failure (an Error) at allocator request " + request);
        }
    }

    private final ArenaPerChunkAllocator delegate = new ArenaPerChunkAllocator();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong failAt = new AtomicLong(-1);
    private final AtomicLong injected = new AtomicLong();
    private volatile boolean error;

    /** Makes the {@code n}-th request from now fail (n >= 1). */
    void failAtRequest(long n) {
        error = false;
        failAt.set(requests.get() + n);
    }

    /** Makes the {@code n}-th request from now fail (n >= 1) with an {@link InjectedError}. */
    void failAtRequestWithError(long n) {
        error = true;
        failAt.set(requests.get() + n);
    }

    void disarm() {
        failAt.set(-1);
    }

    /** Requests that failed because they were armed. */
    long failuresInjected() {
        return injected.get();
    }

    long requests() {
        return requests.get();
    }

    int liveSegments() {
        return delegate.liveSegments();
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        long request = requests.incrementAndGet();
        if (request == failAt.get()) {
            injected.incrementAndGet();
            if (error) {
                throw new InjectedError(request);
            }
            throw new InjectedFailure(request);
        }
        return delegate.allocate(byteSize, byteAlignment);
    }

    @Override
    public void free(MemorySegment segment) {
        delegate.free(segment);
    }
}
