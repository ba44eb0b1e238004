package io.snode.runtime;

/**
 * The header of one dynamic list: the container of a dynamic SNode inside its parent's cell.
 * Elements live in chunks of {@code chunkSize} elements allocated from the SNode's node
 * manager. The first {@link #INLINE_CHUNKS} chunk references sit in the header; later chunks
 * are found through a two-level directory, so finding element {@code i} costs the same at any
 * length and a short list costs no directory at all.
 *
 * <pre>
 *  0        8        16               16 + 8 * INLINE_CHUNKS
 * +--------+--------+--------+--------+-----------+
 * | length |  lock  | chunk0 | chunk1 | directory |
 * +--------+--------+--------+--------+-----------+
 *   length     elements appended (atomic, never above the capacity)
 *   lock       0 free, 1 held while reserved chunk or directory blocks are published,
 *              2 retired: the cell holding the header was released (collection zeroes it)
 *   chunkN     0 absent, else chunk cell index + 1 in the element chunk manager
 *   directory  0 absent, else directory block index + 1 in the directory manager; the block
 *              holds references to leaf blocks, each holding chunk references (same encoding)
 * </pre>
 */
public final class DynamicHeader {
    public static final int LENGTH_OFFSET = 0;
    public static final int LOCK_OFFSET = 8;
    /** The lock word's value in a header whose cell was released: no chunk may be published. */
    public static final long LOCK_RETIRED = 2;
    public static final int INLINE_CHUNKS = 2;
    public static final int INLINE_OFFSET = 16;
    public static final int DIRECTORY_OFFSET = INLINE_OFFSET + 8 * INLINE_CHUNKS;
    public static final int BYTES = DIRECTORY_OFFSET + 8;

    private DynamicHeader() {
    }

    /** Byte offset of inline chunk reference {@code n} in the header. */
    public static int inlineChunkOffset(int n) {
        return INLINE_OFFSET + 8 * n;
    }
}
