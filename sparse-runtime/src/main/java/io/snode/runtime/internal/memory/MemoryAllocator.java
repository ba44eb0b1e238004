package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * The single door through which every off-heap request of the runtime passes.
 *
 * <p>{@link MemoryPool} is the only caller. Tests replace the allocator to inject a failure at
 * any request (the N-th call to {@link #allocate} throws), which is how the runtime proves that
 * a failed request leaves every structure and counter as it was.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li>{@link #allocate} returns a segment of at least {@code byteSize} bytes whose address is a
 *       multiple of {@code byteAlignment}, and <b>every byte of it reads zero</b> (node managers
 *       hand out fresh cells without clearing them). It either returns such a segment or throws;
 *       a throw must leave nothing allocated.</li>
 *   <li>{@link #free} releases a segment that {@link #allocate} returned and that was not freed
 *       yet. After it returns, any access through that segment (or a slice of it) must throw
 *       {@link IllegalStateException}, never touch freed memory: implementations free through
 *       {@link java.lang.foreign.Arena#close()} or an equivalent liveness-checked scope.</li>
 *   <li>Both methods may be called from any thread, concurrently.</li>
 * </ul>
 */
public interface MemoryAllocator {

    /** The alignment every runtime request uses: one page. */
    long CHUNK_ALIGNMENT = 4096;

    /**
     * Allocates a zeroed segment.
     *
     * @param byteSize      bytes wanted, positive
     * @param byteAlignment power of two
     * @return a zeroed segment of at least {@code byteSize} bytes
     */
    MemorySegment allocate(long byteSize, long byteAlignment);

    /** Frees a segment that {@link #allocate} returned; accesses through it throw afterwards. */
    void free(MemorySegment segment);

    /**
     * Whether the memory of a segment is committed (backed by physical pages) as soon as
     * {@link #allocate} returns. True for the default allocator, whose
     * {@link java.lang.foreign.Arena#allocate} zeroes, and so touches, every page at once. An
     * allocator that reserves address space and lets pages commit on first touch returns false;
     * the pool then does not count its chunks as committed.
     */
    default boolean commitsOnAllocate() {
        return true;
    }

    /**
     * Reserves a <em>region</em>: {@code byteSize} bytes (a multiple of {@link #CHUNK_ALIGNMENT})
     * of address space whose pages commit on first touch and read zero, for one node manager's
     * cells; null (the default) where this allocator reserves none, and the pool then allocates
     * that manager's chunks one by one. The pool hands out parts of a region as chunks only after
     * the cap accepted them ({@link #commit}), so no page the cap has not counted is touched.
     */
    default MemorySegment reserveRegion(long byteSize) {
        return null;
    }

    /**
     * Called when the pool hands out {@code [offset, offset + byteSize)} of {@code region} as a
     * chunk, after the cap accepted it; a throw refuses the chunk with nothing changed (tests inject
     * faults here). Those bytes read zero: fresh, or given back by {@link #decommit}.
     */
    default void commit(MemorySegment region, long offset, long byteSize) {
    }

    /**
     * Gives the whole pages inside {@code [offset, offset + byteSize)} of {@code region} back to
     * the system when the pool frees that chunk; afterwards every byte of the range reads zero
     * (pages shared with a neighbouring chunk are zeroed instead of given back).
     */
    default void decommit(MemorySegment region, long offset, long byteSize) {
        region.asSlice(offset, byteSize).fill((byte) 0);
    }

    /**
     * Bytes of {@code [offset, offset + byteSize)} of {@code region} backed by physical pages now,
     * in whole pages (a page shared with the range's neighbours counts when it is resident). The
     * default says all of them: an allocator without regions commits on allocation.
     */
    default long residentBytes(MemorySegment region, long offset, long byteSize) {
        return byteSize;
    }

    /**
     * Asks that the pages of {@code region} (a region {@link #reserveRegion} returned, none of it
     * touched yet) be backed by huge pages where the system has them (on Linux:
     * {@code madvise(MADV_HUGEPAGE)}, 2 MiB on x86-64). Returns whether the advice was taken; the
     * default takes none. Once taken, the first touch of a byte may commit the whole huge page
     * around it, so the pool counts, against the cap, every huge page its chunks reach into
     * ({@link MemoryPool#HUGE_PAGE}).
     */
    default boolean adviseHugePages(MemorySegment region) {
        return false;
    }

    /** Releases a region {@link #reserveRegion} returned; accesses through it throw afterwards. */
    default void releaseRegion(MemorySegment region) {
        throw new IllegalArgumentException("region=" + region + " was not reserved by " + this);
    }

    /**
     * One {@link java.lang.foreign.Arena#ofShared() shared arena} per request, so that each chunk
     * can be freed on its own and an access to a freed chunk throws
     * {@link IllegalStateException}; no regions.
     */
    static MemoryAllocator arenaPerChunk() {
        return new ArenaPerChunkAllocator(false);
    }

    /**
     * The runtime's default: chunks as {@link #arenaPerChunk()}, and regions of address space
     * reserved with {@code mmap} ({@code NativeRegions}) where the platform has it (Linux on
     * x86-64 and AArch64); where it has not, or the kernel refuses a mapping, the node managers
     * fall back to chunks.
     */
    static MemoryAllocator regionsWherePossible() {
        return new ArenaPerChunkAllocator(true);
    }
}
