package io.snode.runtime.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link MemoryAllocator}: every request gets its own {@link Arena#ofShared() shared
 * arena}; {@link #free} closes that arena.
 *
 * <p>Promises: the segment is zeroed and committed ({@link Arena#allocate} zeroes it); it is
 * accessible from every thread; after {@link #free} every access through it, from any thread,
 * throws {@link IllegalStateException} (closing a shared arena performs a handshake with all
 * threads, which costs tens of microseconds, acceptable per chunk). Freeing a segment this
 * allocator did not hand out, or one already freed, throws {@link IllegalArgumentException}.
 *
 * <p>The arenas are found again by the segment's base address, which is unique among live
 * segments.
 */
final class ArenaPerChunkAllocator implements MemoryAllocator {

    private final ConcurrentHashMap<Long, Arena> arenas = new ConcurrentHashMap<>();

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize=" + byteSize + " (must be positive)");
        }
        if (byteAlignment <= 0 || Long.bitCount(byteAlignment) != 1) {
            throw new IllegalArgumentException("byteAlignment=" + byteAlignment + " (must be a power of two)");
        }
        Arena arena = Arena.ofShared();
        MemorySegment segment;
        try {
            segment = arena.allocate(byteSize, byteAlignment);
        } catch (Throwable t) {
            arena.close();
            throw t;
        }
        arenas.put(segment.address(), arena);
        return segment;
    }

    @Override
    public void free(MemorySegment segment) {
        Arena arena = arenas.remove(segment.address());
        if (arena == null) {
            throw new IllegalArgumentException("segment=" + segment
                    + " was not allocated by this allocator or is already freed");
        }
        arena.close();
    }

    /** Number of segments allocated and not freed yet. */
    int liveSegments() {
        return arenas.size();
    }
}
