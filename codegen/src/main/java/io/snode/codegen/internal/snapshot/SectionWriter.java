package io.snode.codegen.internal.snapshot;

import static io.snode.codegen.internal.snapshot.SnapshotFormat.HEADER_CRC_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.KIND_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.LENGTH_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.PAYLOAD_CRC_OFFSET;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.SECTION_HEADER_BYTES;
import static io.snode.codegen.internal.snapshot.SnapshotFormat.SNODE_OFFSET;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * Writes sections ({@link SnapshotFormat}) through one large direct buffer: a section's payload
 * is built in the buffer, its header (length, CRC32C of the payload, CRC32C of the header) is
 * filled in when it ends, and the buffer goes to the channel in one write when the next record
 * does not fit. A section therefore never spans two buffer fills: an SNode with more records
 * than a buffer holds takes several sections. Not thread-safe.
 */
final class SectionWriter {
    static final int DEFAULT_BUFFER = 8 << 20;

    private final FileChannel channel;
    private ByteBuffer buffer;
    private MemorySegment memory;
    /** Where the open section's header starts, or -1 when none is open. */
    private int sectionStart = -1;
    private int kind;
    private int snode;
    private int sections;
    private long bytesWritten;

    SectionWriter(FileChannel channel, int bufferBytes) {
        this.channel = channel;
        allocate(bufferBytes);
    }

    private void allocate(int bytes) {
        buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
        memory = MemorySegment.ofBuffer(buffer);
    }

    /** The buffer's memory: payload bytes go at {@link #position()} after {@link #reserve}. */
    MemorySegment memory() {
        return memory;
    }

    ByteBuffer buffer() {
        return buffer;
    }

    int position() {
        return buffer.position();
    }

    /** Sections ended so far. */
    int sections() {
        return sections;
    }

    /** Writes the file header (magic, version) at the start of the buffer. */
    void fileHeader() {
        buffer.putLong(SnapshotFormat.MAGIC);
        buffer.putInt(SnapshotFormat.VERSION);
        buffer.putInt(0);
    }

    /** Opens a section of {@code kind} for the cells of {@code snode}. */
    void begin(int kind, int snode) throws IOException {
        if (sectionStart >= 0) {
            throw new AssertionError("a section is open");
        }
        if (buffer.remaining() < SECTION_HEADER_BYTES + 64) {
            flush();
        }
        this.kind = kind;
        this.snode = snode;
        sectionStart = buffer.position();
        buffer.position(sectionStart + SECTION_HEADER_BYTES);
    }

    /**
     * Makes room for {@code bytes} more payload bytes in the open section: when they do not fit,
     * the section ends, the buffer is written, and a new section of the same kind and SNode
     * opens (in a larger buffer if one record needs it).
     */
    void reserve(long bytes) throws IOException {
        if (bytes <= buffer.remaining()) {
            return;
        }
        int reopenKind = kind;
        int reopenSnode = snode;
        if (sectionEmpty()) {
            buffer.position(sectionStart); // drop the header reserved for nothing
            sectionStart = -1;
        } else {
            end();
        }
        flush();
        long needed = bytes + SECTION_HEADER_BYTES;
        if (needed > buffer.capacity()) {
            if (needed > SnapshotFormat.MAX_PAYLOAD) {
                throw new IllegalStateException("a record of " + bytes + " bytes is larger than a section may be ("
                        + SnapshotFormat.MAX_PAYLOAD + ")");
            }
            allocate((int) Math.max(needed, 2L * buffer.capacity()));
        }
        begin(reopenKind, reopenSnode);
    }

    /** Whether the open section holds no payload yet. */
    boolean sectionEmpty() {
        return buffer.position() == sectionStart + SECTION_HEADER_BYTES;
    }

    /** Bytes that still fit in the open section without a flush. */
    int room() {
        return buffer.remaining();
    }

    /** Ends the open section: fills in its header. An empty section is dropped. */
    void end() {
        if (sectionStart < 0) {
            throw new AssertionError("no section is open");
        }
        int payloadStart = sectionStart + SECTION_HEADER_BYTES;
        int length = buffer.position() - payloadStart;
        if (length == 0 && kind != SnapshotFormat.END && kind != SnapshotFormat.LAYOUT) {
            buffer.position(sectionStart);
            sectionStart = -1;
            return;
        }
        buffer.putInt(sectionStart + KIND_OFFSET, kind);
        buffer.putInt(sectionStart + SNODE_OFFSET, snode);
        buffer.putLong(sectionStart + LENGTH_OFFSET, length);
        buffer.putInt(sectionStart + PAYLOAD_CRC_OFFSET, SnapshotFormat.crc(memory, payloadStart, length));
        buffer.putInt(sectionStart + HEADER_CRC_OFFSET, SnapshotFormat.crc(memory, sectionStart, HEADER_CRC_OFFSET));
        sectionStart = -1;
        sections++;
    }

    /** Writes what the buffer holds to the channel. No section may be open. */
    void flush() throws IOException {
        if (sectionStart >= 0) {
            throw new AssertionError("flush inside an open section");
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
            bytesWritten += channel.write(buffer);
        }
        buffer.clear();
    }

    long bytesWritten() {
        return bytesWritten;
    }
}
