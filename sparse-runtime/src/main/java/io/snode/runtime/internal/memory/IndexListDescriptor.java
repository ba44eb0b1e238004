package io.snode.runtime.internal.memory;

import java.lang.foreign.ValueLayout;

/**
 * The element of a cell-index list: the free list and the recycled list of a
 * {@link NodeManager} are {@link ListManager}s of these.
 *
 * <pre>
 *   0                4
 *   +----------------+
 *   |   cell index   |   int32, native byte order, 0 .. 2^31-1
 *   +----------------+
 * </pre>
 *
 * <p>Chunks of such a list follow {@link ListChunkDescriptor} with a stride of
 * {@link #ELEMENT_SIZE} bytes.
 */
public final class IndexListDescriptor {

    /** Byte offset of the cell index within the element. */
    public static final long CELL_INDEX_OFFSET = 0;
    /** Layout of the cell index. */
    public static final ValueLayout.OfInt CELL_INDEX_LAYOUT = ValueLayout.JAVA_INT;
    /** Bytes per element. */
    public static final long ELEMENT_SIZE = CELL_INDEX_OFFSET + CELL_INDEX_LAYOUT.byteSize();
    /** Alignment of an element. */
    public static final long ELEMENT_ALIGNMENT = CELL_INDEX_LAYOUT.byteAlignment();

    private IndexListDescriptor() {
    }
}
