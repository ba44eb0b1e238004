package io.snode.runtime.testing;

import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.internal.memory.MemoryPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An allocator that only pretends to put regions on huge pages, for tests of what a
 * {@link MemoryPool} with huge pages counts against its cap, on any system: a region is memory
 * of an automatic arena aligned to the smaller of its size and {@link MemoryPool#HUGE_PAGE} (so
 * that it lies in as few huge pages as it can, and a region of at most a huge page in one), and it
 * takes the advice to use huge pages. Nothing is committed or given back: the chunks are only
 * counted, and a test that writes to them must not expect a freed chunk to read zero. Chunks of
 * their own come from automatic arenas too; the garbage collector frees them. A test may
 * override a method to inject a fault.
 */
public class PretendedHugePages implements MemoryAllocator {
    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        return Arena.ofAuto().allocate(byteSize, byteAlignment);
    }

    @Override
    public void free(MemorySegment segment) {
    }

    @Override
    public MemorySegment reserveRegion(long byteSize) {
        return Arena.ofAuto().allocate(byteSize, Math.min(Long.highestOneBit(byteSize), MemoryPool.HUGE_PAGE));
    }

    @Override
    public boolean adviseHugePages(MemorySegment region) {
        return true;
    }

    @Override
    public void decommit(MemorySegment region, long offset, long byteSize) {
        // Nothing to give back: see the class comment.
    }

    @Override
    public void releaseRegion(MemorySegment region) {
    }
}
