package io.snode.codegen.internal.snapshot;

import static io.snode.codegen.internal.snapshot.SnapshotFormat.HEADER_CRC_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.INT;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.KIND_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.LENGTH_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.LONG;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.PAYLOAD_CRC_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.SECTION_HEADER_BYTES;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.SNODE_OFFSET;

import io.snode.codegen.interop.SnapshotException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads the sections of a snapshot file copied into memory, one after the other, checking each
 * before it is handed over: the file header (magic, version, its zero bytes), every section header's CRC32C,
 * that its payload lies inside the file, the payload's CRC32C, and that the END section comes
 * last. Every failure is a {@link SnapshotException} naming the file, the section (number, kind,
 * SNode, byte offset) and what was wrong.
 */
final class SectionReader {
    private final Path file;
    private final MemorySegment memory;
    private final long size;
    private long position;
    private int index;
    /** Number of the section being read or read last. */
    private int current;
    /** The section read last: its kind, SNode id, payload offset and length. */
    int kind;
    int snode;
    long payload;
    long length;
    private String layoutText;

    SectionReader(Path file, MemorySegment memory) throws SnapshotException {
        this.file = file;
        this.memory = memory;
        this.size = memory.byteSize();
        if (size < SnapshotFormat.FILE_HEADER_BYTES) {
            throw fail("truncated at byte " + size + ": the file header takes " + SnapshotFormat.FILE_HEADER_BYTES
                    + " bytes");
        }
        long magic = memory.get(LONG, SnapshotFormat.MAGIC_OFFSET);
        if (magic != SnapshotFormat.MAGIC) {
            throw fail("not a snapshot: the file starts with 0x" + Long.toHexString(Long.reverseBytes(magic))
                    + ", a snapshot with the bytes of \"SNODESNP\"");
        }
        int version = memory.get(INT, SnapshotFormat.VERSION_OFFSET);
        if (version != SnapshotFormat.VERSION) {
            throw fail("format version " + version + "; this library reads version " + SnapshotFormat.VERSION);
        }
        int reserved = memory.get(INT, SnapshotFormat.RESERVED_OFFSET);
        if (reserved != 0) {
            throw fail("the file header's bytes 12 to 15 hold " + reserved + "; a snapshot has zero there");
        }
        position = SnapshotFormat.FILE_HEADER_BYTES;
        if (!next() || kind != SnapshotFormat.LAYOUT) {
            throw fail("section 0 at byte " + SnapshotFormat.FILE_HEADER_BYTES + " is " + SnapshotFormat.kindName(kind)
                    + "; a snapshot starts with its LAYOUT section");
        }
        byte[] bytes = new byte[(int) length];
        MemorySegment.copy(memory, java.lang.foreign.ValueLayout.JAVA_BYTE, payload, bytes, 0, bytes.length);
        layoutText = new String(bytes, StandardCharsets.UTF_8);
    }

    String layoutText() {
        return layoutText;
    }

    Path file() {
        return file;
    }

    MemorySegment memory() {
        return memory;
    }

    /** Number of the section read last (0: the layout). */
    int index() {
        return current;
    }

    /**
     * Reads and checks the next section.
     *
     * @return false after the END section (nothing may follow it)
     */
    boolean next() throws SnapshotException {
        if (index > 0 && kind == SnapshotFormat.END) {
            return false;
        }
        long start = position;
        current = index;
        payload = start + SECTION_HEADER_BYTES;
        if (size - start < SECTION_HEADER_BYTES) {
            throw fail("truncated at byte " + size + ": section " + index + " at byte " + start + " needs a header of "
                    + SECTION_HEADER_BYTES + " bytes" + (size == start ? " (the END section is missing)" : ""));
        }
        int headerCrc = memory.get(INT, start + HEADER_CRC_OFFSET);
        int actualHeaderCrc = SnapshotFormat.crc(memory, start, HEADER_CRC_OFFSET);
        if (headerCrc != actualHeaderCrc) {
            throw fail("section " + index + " at byte " + start + ": header checksum 0x" + Integer.toHexString(headerCrc)
                    + " expected, 0x" + Integer.toHexString(actualHeaderCrc) + " found (corrupted header)");
        }
        kind = memory.get(INT, start + KIND_OFFSET);
        snode = memory.get(INT, start + SNODE_OFFSET);
        length = memory.get(LONG, start + LENGTH_OFFSET);
        if (kind < SnapshotFormat.LAYOUT || kind > SnapshotFormat.END) {
            throw fail(where() + ": unknown section kind " + kind);
        }
        if (length < 0 || length > SnapshotFormat.MAX_PAYLOAD) {
            throw fail(where() + ": payload length " + length + " outside 0.." + SnapshotFormat.MAX_PAYLOAD);
        }
        if (length > size - payload) {
            throw fail("truncated at byte " + size + ": " + where() + " holds " + length + " payload bytes from byte "
                    + payload + ", to byte " + (payload + length));
        }
        int payloadCrc = memory.get(INT, start + PAYLOAD_CRC_OFFSET);
        int actualPayloadCrc = SnapshotFormat.crc(memory, payload, length);
        if (payloadCrc != actualPayloadCrc) {
            throw fail(where() + ": payload checksum 0x" + Integer.toHexString(payloadCrc) + " expected, 0x"
                    + Integer.toHexString(actualPayloadCrc) + " found (corrupted payload of " + length + " bytes)");
        }
        position = payload + length;
        index++;
        if (kind == SnapshotFormat.END && position != size) {
            throw fail(where() + " ends at byte " + position + " but the file goes on to byte " + size
                    + " (trailing bytes)");
        }
        return true;
    }

    /** The section read last, for messages: {@code section 3 (BLOCKS of snode 2) at byte 160}. */
    String where() {
        return "section " + current + " ("
                + SnapshotFormat.kindName(kind) + (kind == SnapshotFormat.BLOCKS || kind == SnapshotFormat.LISTS
                ? " of snode " + snode : "") + ") at byte " + (payload - SECTION_HEADER_BYTES);
    }

    SnapshotException fail(String what) {
        return new SnapshotException(file, what);
    }
}
