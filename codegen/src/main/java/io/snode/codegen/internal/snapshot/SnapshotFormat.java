package io.snode.codegen.internal.snapshot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The bytes of a snapshot file, in one place. All numbers are little-endian; nothing is aligned.
 *
 * <pre>
 * file:
 *  0          8         12        16
 * +----------+---------+---------+---------------------+-----+---------------------+-------------+
 * | magic    | version | zero    | section 0: LAYOUT   | ... | section n-1         | END section |
 * +----------+---------+---------+---------------------+-----+---------------------+-------------+
 *   magic    the 8 ASCII bytes "SNODESNP"
 *   version  {@link #VERSION}; a reader refuses any other
 *
 * section (a header of {@link #SECTION_HEADER_BYTES}, then its payload):
 *  0       4        8                16            20           24
 * +-------+--------+----------------+-------------+------------+-------------------------+
 * | kind  | snode  | payload length | payload CRC | header CRC | payload (length bytes)  |
 * +-------+--------+----------------+-------------+------------+-------------------------+
 *   kind        LAYOUT, ROOT, BLOCKS, LISTS or END
 *   snode       the SNode id whose cells the payload holds (0 for LAYOUT, ROOT and END)
 *   payload CRC CRC32C of the payload; header CRC: CRC32C of the 20 bytes before it
 *
 * payloads:
 *   LAYOUT  the layout's text form, UTF-8 (Layout.toString(); Layout.parse gives it back)
 *   ROOT    the root cell's field bytes
 *   BLOCKS  records, one per container of a dense, bitmasked or pointer SNode in an active parent
 *           cell, or one per active cell of a hash SNode, back to back:
 *             int32 base[arity]         the parent cell's coordinates in the SNode's index axes
 *                                       (0 on axes the SNode adds); a hash record: the cell's own
 *             int64 mask[maskWords]     bitmasked and pointer: bit n = cell n is active
 *             byte  encoding            bitmasked only: 0 every cell follows, 1 the active ones
 *             cells                     field bytes of each cell that follows, in cell order:
 *                                       dense and bitmasked(0): every cell; bitmasked(1), pointer:
 *                                       the active cells; hash: its one cell
 *   LISTS   records, one per piece of a non-empty dynamic list (a list may take several):
 *             int32 base[arity]         the list's coordinates (its parent cell's), 0 on the list axis
 *             int64 length              the list's length
 *             int32 firstChunk, chunks  the chunks this piece holds, in order
 *             per chunk: byte present (0: a chunk without memory, reads zeros), then when present
 *             the chunk's cells below the length
 *   END     int32 sections before it, int32 SNode count, int64 records per SNode id
 * </pre>
 *
 * The field bytes of a cell ({@link NodeGeometry#fieldBytes()}) are the whole cell of an SNode
 * without children, else its fields up to the first child container (never a pointer word or
 * header). SNodes appear in id order (parents before children), each in zero or more sections.
 */
public final class SnapshotFormat {
    public static final long MAGIC = 0x504E53_45444F4E53L; // "SNODESNP" read as a little-endian long
    public static final int VERSION = 1;
    public static final int FILE_HEADER_BYTES = 16;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    /** The file header's last four bytes, zero (a reader refuses anything else). */
    public static final int RESERVED_OFFSET = 12;

    public static final int KIND_OFFSET = 0;
    public static final int SNODE_OFFSET = 4;
    public static final int LENGTH_OFFSET = 8;
    public static final int PAYLOAD_CRC_OFFSET = 16;
    public static final int HEADER_CRC_OFFSET = 20;
    public static final int SECTION_HEADER_BYTES = 24;

    public static final int LAYOUT = 1;
    public static final int ROOT = 2;
    public static final int BLOCKS = 3;
    public static final int LISTS = 4;
    public static final int END = 5;

    public static final byte ALL_CELLS = 0;
    public static final byte ACTIVE_CELLS = 1;

    /** Bytes of a list piece's fixed part after its base: length, first chunk, chunk count. */
    public static final int LIST_PIECE_BYTES = 8 + 4 + 4;

    /** The largest payload a reader accepts: a section holds at least one whole record of at most a container. */
    public static final long MAX_PAYLOAD = 1L << 30;

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SnapshotFormat() {
    }

    public static String kindName(int kind) {
        return switch (kind) {
            case LAYOUT -> "LAYOUT";
            case ROOT -> "ROOT";
            case BLOCKS -> "BLOCKS";
            case LISTS -> "LISTS";
            case END -> "END";
            default -> "unknown kind " + kind;
        };
    }

    /** CRC32C of {@code length} bytes of {@code segment} from {@code offset} (a native or heap segment). */
    static int crc(MemorySegment segment, long offset, long length) {
        CRC32C crc = new CRC32C();
        crc.update(segment.asSlice(offset, length).asByteBuffer());
        return (int) crc.getValue();
    }
}
