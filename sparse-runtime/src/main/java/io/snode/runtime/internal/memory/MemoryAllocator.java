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
     * The default allocator: one {@link java.lang.foreign.Arena#ofShared() shared arena} per
     * request, so that each chunk can be freed on its own and an access to a freed chunk throws
     * {@link IllegalStateException}.
     */
    static MemoryAllocator arenaPerChunk() {
        return new ArenaPerChunkAllocator();
    }
}
