package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link MemoryAllocator} that passes every call to another one: extend it and override the
 * calls to watch or to fail (fault injection in tests and in the soak), so that the others,
 * regions and huge pages included, behave as the wrapped allocator's.
 */
public abstract class ForwardingAllocator implements MemoryAllocator {
    private final MemoryAllocator delegate;

    protected ForwardingAllocator(MemoryAllocator delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The allocator every call goes to. */
    protected final MemoryAllocator delegate() {
        return delegate;
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        return delegate.allocate(byteSize, byteAlignment);
    }

    @Override
    public void free(MemorySegment segment) {
        delegate.free(segment);
    }

    @Override
    public boolean commitsOnAllocate() {
        return delegate.commitsOnAllocate();
    }

    @Override
    public MemorySegment reserveRegion(long byteSize) {
        return delegate.reserveRegion(byteSize);
    }

    @Override
    public void commit(MemorySegment region, long offset, long byteSize) {
        delegate.commit(region, offset, byteSize);
    }

    @Override
    public void decommit(MemorySegment region, long offset, long byteSize) {
        delegate.decommit(region, offset, byteSize);
    }

    @Override
    public long residentBytes(MemorySegment region, long offset, long byteSize) {
        return delegate.residentBytes(region, offset, byteSize);
    }

    @Override
    public boolean adviseHugePages(MemorySegment region) {
        return delegate.adviseHugePages(region);
    }

    @Override
    public void releaseRegion(MemorySegment region) {
        delegate.releaseRegion(region);
    }
}
