package io.snode.runtime.internal.memory;

import io.snode.api.LayoutRule;

/**
 * How a {@link ListManager} cuts its "infinitely long" index space into chunks, and the O(1)
 * arithmetic that maps an index to its chunk and its place in it.
 *
 * <h2>The rule</h2>
 * <ol>
 *   <li>Element stride {@code S = roundUp(elementSize, elementAlignment)}.</li>
 *   <li>Largest chunk: {@code L = 2^m} elements, starting from {@code 2^17} (128 Ki) elements and
 *       halved until {@code L * S <= 128 MiB} (Taichi's ListManager rule); {@code m >= 0}, so an
 *       element larger than 128 MiB gets a chunk of one element.</li>
 *   <li>First chunk: {@code F = 2^f} elements, the largest power of two with {@code F * S <= 4 KiB},
 *       at least one element and at most {@code L}.</li>
 *   <li>Chunk {@code k} holds {@code F * 2^k} elements while that is below {@code L} (geometric
 *       growth: memory held stays within a factor of two of memory used), and {@code L} from then on.
 *       There are {@code G = m - f + 1} geometric chunks (the last of them already has {@code L}
 *       elements).</li>
 * </ol>
 *
 * <h2>Index to chunk, without scanning</h2>
 * Let {@code j = index + F}. In the geometric part ({@code j < L}) chunk {@code k} covers
 * {@code j} in {@code [F*2^k, F*2^(k+1))}, so {@code k = floorLog2(j) - f} (one
 * {@link Long#numberOfLeadingZeros}) and the position in the chunk is {@code j} without its top
 * bit. From {@code j >= L} on, chunks have {@code L} elements: {@code k = (j >>> m) + m - f - 1}
 * and the position is {@code j & (L - 1)}. Both formulas agree on {@code [L, 2L)}.
 *
 * <h2>Limits</h2>
 * Indices are {@code long}, from 0 to {@link #maxElements()} - 1, where
 * {@code maxElements = min(2^40, L * 2^24)}: at most {@link #MAX_CHUNKS} (16 Mi) chunks of the
 * largest size plus the 18 or fewer geometric ones, so the chunk directory always fits an array.
 *
 * <p>Instances are immutable; codegen may read {@link #firstChunkShift()},
 * {@link #largestChunkShift()} and {@link #elementStride()} and bake them in as constants.
 */
public final class ChunkGeometry {

    /** Largest number of elements in a chunk, as a power of two: 128 Ki elements. */
    public static final int LARGEST_CHUNK_ELEMENTS_SHIFT = 17;
    /**
     * A chunk is halved until it has at most this many bytes (unless it holds a single element).
     * It is the layout rules' {@link LayoutRule#MAX_CONTAINER_BYTES}: a layout's root cell,
     * pointer cells and dynamic chunks are never larger, so the node managers of a valid layout
     * never ask the pool for a chunk larger than this.
     */
    public static final long LARGEST_CHUNK_BYTES = LayoutRule.MAX_CONTAINER_BYTES;
    /** The first chunk holds as many elements as fit this many bytes (a power of two, at least one). */
    public static final long FIRST_CHUNK_BYTES = 4096;
    /** The largest chunk of a list in a region ({@link #inRegion}). */
    public static final long REGION_LARGEST_CHUNK_BYTES = 1L << 20;
    /** Most chunks of the largest size a list may have. */
    public static final int MAX_CHUNKS = 1 << 24;
    /** Most elements any list may have. */
    public static final long MAX_ELEMENTS = 1L << 40;
    /** Largest element alignment: chunks are aligned to {@link MemoryAllocator#CHUNK_ALIGNMENT}. */
    public static final long MAX_ELEMENT_ALIGNMENT = MemoryAllocator.CHUNK_ALIGNMENT;

    private final long elementSize;
    private final long elementAlignment;
    private final long stride;
    private final int f;
    private final int m;
    private final long first;
    private final long largest;
    private final int geometricChunks;
    private final long maxElements;

    private ChunkGeometry(long elementSize, long elementAlignment, long largestChunkBytes) {
        this.elementSize = elementSize;
        this.elementAlignment = elementAlignment;
        this.stride = ListChunkDescriptor.elementStride(elementSize, elementAlignment);
        int shift = LARGEST_CHUNK_ELEMENTS_SHIFT;
        while (shift > 0 && stride > (largestChunkBytes >>> shift)) {
            shift--;
        }
        this.m = shift;
        long fitting = FIRST_CHUNK_BYTES / stride;
        int firstShift = fitting <= 1 ? 0 : 63 - Long.numberOfLeadingZeros(fitting);
        this.f = Math.min(firstShift, m);
        this.first = 1L << f;
        this.largest = 1L << m;
        this.geometricChunks = m - f + 1;
        this.maxElements = Math.min(MAX_ELEMENTS, largest * MAX_CHUNKS);
    }

    /**
     * The geometry for elements of {@code elementSize} bytes aligned to {@code elementAlignment}.
     *
     * @param elementSize      positive
     * @param elementAlignment a power of two, at most {@link #MAX_ELEMENT_ALIGNMENT}
     */
    public static ChunkGeometry of(long elementSize, long elementAlignment) {
        if (elementSize <= 0) {
            throw new IllegalArgumentException("elementSize=" + elementSize + " (must be positive)");
        }
        if (elementAlignment <= 0 || Long.bitCount(elementAlignment) != 1
                || elementAlignment > MAX_ELEMENT_ALIGNMENT) {
            throw new IllegalArgumentException("elementAlignment=" + elementAlignment
                    + " (must be a power of two from 1 to " + MAX_ELEMENT_ALIGNMENT + ")");
        }
        if (elementSize > Long.MAX_VALUE / 4 - elementAlignment) {
            throw new IllegalArgumentException("elementSize=" + elementSize + " (too large)");
        }
        return new ChunkGeometry(elementSize, elementAlignment, LARGEST_CHUNK_BYTES);
    }

    /**
     * The geometry of a list inside a reserved region: as {@link #of}, but chunks stop doubling
     * at {@link #REGION_LARGEST_CHUNK_BYTES}. The chunks lie one after the other in the region, so
     * element {@code i} is at byte {@code i * stride} whatever their sizes; they are only the unit
     * in which the cap counts memory and pages are given back, and a smaller largest chunk keeps
     * the memory counted close to the memory used.
     */
    public static ChunkGeometry inRegion(long elementSize, long elementAlignment) {
        ChunkGeometry checked = of(elementSize, elementAlignment);
        return new ChunkGeometry(checked.elementSize, checked.elementAlignment, REGION_LARGEST_CHUNK_BYTES);
    }

    public long elementSize() {
        return elementSize;
    }

    public long elementAlignment() {
        return elementAlignment;
    }

    /** Bytes from one element to the next: the size rounded up to the alignment. */
    public long elementStride() {
        return stride;
    }

    /** {@code f}: the first chunk has {@code 2^f} elements. */
    public int firstChunkShift() {
        return f;
    }

    /** {@code m}: the largest chunk has {@code 2^m} elements. */
    public int largestChunkShift() {
        return m;
    }

    public long firstChunkElements() {
        return first;
    }

    public long largestChunkElements() {
        return largest;
    }

    /** Bytes of the largest chunk. */
    public long largestChunkBytes() {
        return largest * stride;
    }

    /** Number of chunks that grow geometrically before all chunks have the largest size. */
    public int geometricChunks() {
        return geometricChunks;
    }

    /** Indices run from 0 to this value minus one. */
    public long maxElements() {
        return maxElements;
    }

    /** The chunk that holds {@code index}; {@code index} must be in {@code [0, maxElements)}. */
    public int chunkIndex(long index) {
        long j = index + first;
        if (j < largest) {
            return (63 - Long.numberOfLeadingZeros(j)) - f;
        }
        return (int) ((j >>> m) + (m - f - 1));
    }

    /** The position of {@code index} within its chunk, in elements. */
    public long indexInChunk(long index) {
        long j = index + first;
        if (j < largest) {
            return j ^ Long.highestOneBit(j);
        }
        return j & (largest - 1);
    }

    /** The byte offset of {@code index} within its chunk. */
    public long byteOffsetInChunk(long index) {
        return ListChunkDescriptor.elementOffset(indexInChunk(index), stride);
    }

    /** The first index that chunk {@code k} holds; also the number of elements chunks {@code 0..k-1} hold. */
    public long chunkStart(int k) {
        if (k < geometricChunks) {
            return (first << k) - first;
        }
        return (largest << 1) - first + (long) (k - geometricChunks) * largest;
    }

    /** Elements in chunk {@code k}. */
    public long chunkElements(int k) {
        return k < geometricChunks ? first << k : largest;
    }

    /** Bytes of chunk {@code k}. */
    public long chunkBytes(int k) {
        return chunkElements(k) * stride;
    }

    /** How many chunks (from chunk 0) are needed to hold indices {@code [0, elements)}. */
    public int chunksFor(long elements) {
        return elements <= 0 ? 0 : chunkIndex(elements - 1) + 1;
    }

    /** Bytes of chunks {@code 0..chunkCount-1}. */
    public long bytesOfChunks(int chunkCount) {
        return chunkStart(chunkCount) * stride;
    }

    @Override
    public String toString() {
        return "ChunkGeometry[elementSize=" + elementSize + ", elementAlignment=" + elementAlignment
                + ", stride=" + stride + ", firstChunkElements=" + first
                + ", largestChunkElements=" + largest + "]";
    }
}
