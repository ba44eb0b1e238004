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
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads the sections of a snapshot file one after the other, each into one reused buffer (the
 * section's header at offset 0, its payload from {@link SnapshotFormat#SECTION_HEADER_BYTES}),
 * checking each before it is handed over: the file header (magic, version, its zero bytes),
 * every section header's CRC32C, that its payload lies inside the file, the payload's CRC32C,
 * and that the END section comes last. Every failure is a {@link SnapshotException} naming the
 * file, the section (number, kind, SNode, byte offset) and what was wrong.
 *
 * <p>The file is read, not mapped: a mapped file that another thread or process truncates while
 * it is read faults the reading thread (and a CRC32C intrinsic that meets the fault ends the
 * JVM), where a read only returns fewer bytes, which is refused as a truncated file, and bytes
 * that changed meanwhile fail their section's checksum. The buffer grows to the largest section
 * (the writer's take about 8 MiB, more where one block is larger; each larger buffer is a new
 * one of the arena, which keeps the old until the load ends); offsets into it ({@link #payload}, a record's
 * {@code at}) name file bytes through {@link #fileOffset} in messages. Not thread-safe.
 */
final class SectionReader {
    /** The buffer's first size; it doubles as a larger section needs. */
    private static final long FIRST_BUFFER = 1 << 20;

    private final Path file;
    private final FileChannel channel;
    private final Arena arena;
    /** The file's size when it was opened: a file that grows meanwhile is read to there. */
    private final long size;
    private MemorySegment memory;
    /** File offset of the next section. */
    private long position;
    /** File offset of the section read last. */
    private long sectionStart;
    private int index;
    /** Number of the section being read or read last. */
    private int current;
    /** The section read last: its kind, SNode id, payload offset in {@link #memory()} and length. */
    int kind;
    int snode;
    long payload;
    long length;
    private String layoutText;

    /** Reads {@code channel}'s file header and its LAYOUT section, with buffers from {@code arena}. */
    SectionReader(Path file, FileChannel channel, Arena arena) throws IOException {
        this.file = file;
        this.channel = channel;
        this.arena = arena;
        this.size = channel.size();
        this.memory = arena.allocate(FIRST_BUFFER);
        if (size < SnapshotFormat.FILE_HEADER_BYTES) {
            throw fail("truncated at byte " + size + ": the file header takes " + SnapshotFormat.FILE_HEADER_BYTES
                    + " bytes");
        }
        read(0, 0, SnapshotFormat.FILE_HEADER_BYTES);
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

    /** The file's size when it was opened. */
    long size() {
        return size;
    }

    Path file() {
        return file;
    }

    /** The buffer holding the section read last (it may be another after {@link #next()}). */
    MemorySegment memory() {
        return memory;
    }

    /** The offset in the file of byte {@code offset} of {@link #memory()}. */
    long fileOffset(long offset) {
        return sectionStart + offset;
    }

    /** A copy of {@code bytes} bytes of the section read last from {@code offset}, which outlives the buffer's next fill. */
    MemorySegment copy(long offset, long bytes) {
        MemorySegment copy = arena.allocate(Math.max(1, bytes));
        MemorySegment.copy(memory, offset, copy, 0, bytes);
        return copy;
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
        sectionStart = start;
        payload = SECTION_HEADER_BYTES;
        if (size - start < SECTION_HEADER_BYTES) {
            throw fail("truncated at byte " + size + ": section " + index + " at byte " + start + " needs a header of "
                    + SECTION_HEADER_BYTES + " bytes" + (size == start ? " (the END section is missing)" : ""));
        }
        read(start, 0, SECTION_HEADER_BYTES);
        int headerCrc = memory.get(INT, HEADER_CRC_OFFSET);
        int actualHeaderCrc = SnapshotFormat.crc(memory, 0, HEADER_CRC_OFFSET);
        if (headerCrc != actualHeaderCrc) {
            throw fail("section " + index + " at byte " + start + ": header checksum 0x" + Integer.toHexString(headerCrc)
                    + " expected, 0x" + Integer.toHexString(actualHeaderCrc) + " found (corrupted header)");
        }
        kind = memory.get(INT, KIND_OFFSET);
        snode = memory.get(INT, SNODE_OFFSET);
        length = memory.get(LONG, LENGTH_OFFSET);
        if (kind < SnapshotFormat.LAYOUT || kind > SnapshotFormat.END) {
            throw fail(where() + ": unknown section kind " + kind);
        }
        if (length < 0 || length > SnapshotFormat.MAX_PAYLOAD) {
            throw fail(where() + ": payload length " + length + " outside 0.." + SnapshotFormat.MAX_PAYLOAD);
        }
        long payloadStart = start + SECTION_HEADER_BYTES;
        if (length > size - payloadStart) {
            throw fail("truncated at byte " + size + ": " + where() + " holds " + length + " payload bytes from byte "
                    + payloadStart + ", to byte " + (payloadStart + length));
        }
        if (SECTION_HEADER_BYTES + length > memory.byteSize()) {
            MemorySegment larger = arena.allocate(Math.max(SECTION_HEADER_BYTES + length, 2 * memory.byteSize()));
            MemorySegment.copy(memory, 0, larger, 0, SECTION_HEADER_BYTES);
            memory = larger;
        }
        read(payloadStart, SECTION_HEADER_BYTES, length);
        int payloadCrc = memory.get(INT, PAYLOAD_CRC_OFFSET);
        int actualPayloadCrc = SnapshotFormat.crc(memory, payload, length);
        if (payloadCrc != actualPayloadCrc) {
            throw fail(where() + ": payload checksum 0x" + Integer.toHexString(payloadCrc) + " expected, 0x"
                    + Integer.toHexString(actualPayloadCrc) + " found (corrupted payload of " + length + " bytes)");
        }
        position = payloadStart + length;
        index++;
        if (kind == SnapshotFormat.END && position != size) {
            throw fail(where() + " ends at byte " + position + " but the file goes on to byte " + size
                    + " (trailing bytes)");
        }
        return true;
    }

    /**
     * Reads {@code bytes} bytes of the file from {@code from} into {@link #memory()} at
     * {@code offset}; a file that ends before (it shrank since it was opened) is refused as
     * truncated, and a read that fails is a SnapshotException with its cause.
     */
    private void read(long from, long offset, long bytes) throws SnapshotException {
        long done = 0;
        try {
            while (done < bytes) {
                int n = channel.read(memory.asSlice(offset + done, bytes - done).asByteBuffer(), from + done);
                if (n < 0) {
                    throw fail("truncated at byte " + (from + done) + " while it was read (the file was " + size
                            + " bytes when it was opened): it changed meanwhile");
                }
                done += n;
            }
        } catch (SnapshotException e) {
            throw e;
        } catch (IOException e) {
            throw new SnapshotException(file, "reading " + bytes + " bytes at byte " + from + " failed: " + e, e);
        }
    }

    /** The section read last, for messages: {@code section 3 (BLOCKS of snode 2) at byte 160}. */
    String where() {
        return "section " + current + " ("
                + SnapshotFormat.kindName(kind) + (kind == SnapshotFormat.BLOCKS || kind == SnapshotFormat.LISTS
                ? " of snode " + snode : "") + ") at byte " + sectionStart;
    }

    SnapshotException fail(String what) {
        return new SnapshotException(file, what);
    }
}
