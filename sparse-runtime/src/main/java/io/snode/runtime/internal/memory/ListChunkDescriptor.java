package io.snode.runtime.internal.memory;

/**
 * The byte layout of one chunk of a {@link ListManager}.
 *
 * <pre>
 *   chunk k: base address aligned to CHUNK_ALIGNMENT (4096); n = chunkElements(k) elements
 *
 *   0               S               2S                        (n-1)S           nS
 *   +---------------+---------------+--------- ... -----------+----------------+
 *   |   element 0   |   element 1   |                         |  element n-1   |
 *   +---------------+---------------+--------- ... -----------+----------------+
 *   |&lt;- size -&gt;|pad|
 *
 *   S   = elementStride = roundUp(elementSize, elementAlignment); the pad bytes are never used
 *   element e of chunk k has global index chunkStart(k) + e and lives at byte ELEMENTS_OFFSET + e * S
 * </pre>
 *
 * <p>A chunk has no header: its length and position are implied by
 * {@link ChunkGeometry}. The content of an element is the owner's business (a node cell, a cell
 * index of {@link IndexListDescriptor}, ...). Fresh chunks read all-zero.
 */
public final class ListChunkDescriptor {

    /** Alignment of a chunk's base address. */
    public static final long CHUNK_ALIGNMENT = MemoryAllocator.CHUNK_ALIGNMENT;
    /** Byte offset of element 0 in a chunk (no header). */
    public static final long ELEMENTS_OFFSET = 0;

    private ListChunkDescriptor() {
    }

    /** {@code roundUp(elementSize, elementAlignment)}; the alignment is a power of two. */
    public static long elementStride(long elementSize, long elementAlignment) {
        return (elementSize + elementAlignment - 1) & -elementAlignment;
    }

    /** Byte offset in its chunk of the element at position {@code indexInChunk}. */
    public static long elementOffset(long indexInChunk, long elementStride) {
        return ELEMENTS_OFFSET + indexInChunk * elementStride;
    }
}
