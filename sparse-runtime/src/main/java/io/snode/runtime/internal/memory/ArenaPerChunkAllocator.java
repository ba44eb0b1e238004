package io.snode.runtime.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link MemoryAllocator}: every request gets its own {@link Arena#ofShared() shared
 * arena}; {@link #free} closes that arena. With regions ({@link MemoryAllocator#regionsWherePossible()}),
 * it also reserves address space through {@link NativeRegions}.
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
    private final ConcurrentHashMap<Long, Arena> regions = new ConcurrentHashMap<>();
    private final boolean reservesRegions;
    /** Whether regions were asked for (they may be unavailable here). */
    private final boolean regionsAsked;

    /** Without regions (tests wrap this one to inject faults). */
    ArenaPerChunkAllocator() {
        this(false);
    }

    /** With {@code reservesRegions}, regions through {@link NativeRegions} where the platform has them. */
    ArenaPerChunkAllocator(boolean reservesRegions) {
        this.regionsAsked = reservesRegions;
        this.reservesRegions = reservesRegions && NativeRegions.AVAILABLE;
    }

    /** What it does, for {@code RuntimeOptions}' string: "regions where possible" or "an arena per chunk". */
    @Override
    public String toString() {
        return regionsAsked ? "regions where possible (else an arena per chunk)" : "an arena per chunk";
    }

    @Override
    public MemorySegment reserveRegion(long byteSize) {
        if (!reservesRegions) {
            return null;
        }
        NativeRegions.Mapping mapping = NativeRegions.reserve(byteSize);
        if (mapping == null) {
            return null;
        }
        regions.put(mapping.segment().address(), mapping.arena());
        return mapping.segment();
    }

    /** Huge pages for the region ({@code madvise(MADV_HUGEPAGE)}), where the kernel takes the advice. */
    @Override
    public boolean adviseHugePages(MemorySegment region) {
        return NativeRegions.adviseHugePages(region);
    }

    /** Gives back the whole pages of the range ({@code madvise}) and zeroes the bytes of the pages it shares. */
    @Override
    public void decommit(MemorySegment region, long offset, long byteSize) {
        long start = (offset + NativeRegions.PAGE - 1) & -NativeRegions.PAGE;
        long end = (offset + byteSize) & -NativeRegions.PAGE;
        if (end <= start) {
            region.asSlice(offset, byteSize).fill((byte) 0);
            return;
        }
        region.asSlice(offset, start - offset).fill((byte) 0);
        NativeRegions.decommit(region, start, end - start);
        region.asSlice(end, offset + byteSize - end).fill((byte) 0);
    }

    /** Committed pages of the range ({@link NativeRegions#residentBytes}: pagemap, or mincore where it cannot be read). */
    @Override
    public long residentBytes(MemorySegment region, long offset, long byteSize) {
        return NativeRegions.residentBytes(region, offset, byteSize);
    }

    @Override
    public void releaseRegion(MemorySegment region) {
        Arena arena = regions.remove(region.address());
        if (arena == null) {
            throw new IllegalArgumentException("region=" + region + " was not reserved by this allocator or is released");
        }
        arena.close();
    }

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
