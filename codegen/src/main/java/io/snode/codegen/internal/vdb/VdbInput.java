package io.snode.codegen.internal.vdb;

import io.snode.codegen.interop.VdbFormatException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Little-endian, buffered, seekable reading of a {@code .vdb} file. Every read checks that the file
 * holds the bytes it asks for; {@link #fail} makes the {@link VdbFormatException} whose message
 * names the file, the grid being read (when set) and the offset.
 */
final class VdbInput implements Closeable {
    private static final int BUFFER_BYTES = 1 << 20;
    /** Longest string accepted (names, type names, metadata strings). */
    static final int MAX_STRING = 1 << 20;

    private final Path file;
    private final FileChannel channel;
    private final long size;
    private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** File position of {@code buf[0]}; {@code buf.limit()} bytes from there are loaded. */
    private long bufStart;
    private String grid;

    /**
     * Opens {@code file}, which must be a regular file (or a link to one): the reader seeks to the
     * grids' offsets and takes the file's size as its length, which a pipe or a device does not
     * have (a FIFO without a writer would also block the open), so those are refused unopened.
     */
    VdbInput(Path file) throws IOException {
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new VdbFormatException(file + ": not a regular file ("
                    + (Files.isDirectory(file) ? "a directory" : "a pipe, a device or a socket")
                    + "); the reader seeks to each grid's offset, so it reads only regular files: save the"
                    + " input to a file first");
        }
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        this.size = channel.size();
        buf.limit(0);
    }

    Path file() {
        return file;
    }

    long size() {
        return size;
    }

    /** Names the grid in later error messages (null: none). */
    void grid(String name) {
        this.grid = name;
    }

    long position() {
        return bufStart + buf.position();
    }

    void seek(long pos) throws VdbFormatException {
        if (pos < 0 || pos > size) {
            throw fail("offset " + pos + " is outside the file (" + size + " bytes): truncated or damaged file");
        }
        if (pos >= bufStart && pos <= bufStart + buf.limit()) {
            buf.position((int) (pos - bufStart));
        } else {
            bufStart = pos;
            buf.clear().limit(0);
        }
    }

    void skip(long n) throws VdbFormatException {
        if (n < 0) {
            throw fail("negative length " + n + " at offset " + position());
        }
        seek(checkAvailable(n));
    }

    /** The position after {@code n} more bytes, or a truncation error. */
    private long checkAvailable(long n) throws VdbFormatException {
        long pos = position();
        if (n > size - pos) {
            throw fail("truncated file: " + n + " bytes needed at offset " + pos + ", the file has "
                    + size + " bytes");
        }
        return pos + n;
    }

    private void need(int n) throws IOException {
        if (buf.remaining() >= n) {
            return;
        }
        checkAvailable(n);
        bufStart += buf.position();
        buf.compact();
        while (buf.position() < n) {
            if (channel.read(buf, bufStart + buf.position()) < 0) {
                throw fail("truncated file: unexpected end at offset " + (bufStart + buf.position()));
            }
        }
        buf.flip();
    }

    byte readByte() throws IOException {
        need(1);
        return buf.get();
    }

    int readInt() throws IOException {
        need(4);
        return buf.getInt();
    }

    long readLong() throws IOException {
        need(8);
        return buf.getLong();
    }

    double readDouble() throws IOException {
        need(8);
        return buf.getDouble();
    }

    /** A FLOAT or DOUBLE value as a double. */
    double readValue(VdbValueType type) throws IOException {
        if (type == VdbValueType.FLOAT) {
            need(4);
            return VdbValueType.widen(buf.getFloat());
        }
        return readDouble();
    }

    void readLongs(long[] dst, int off, int n) throws IOException {
        need(8 * n);
        buf.asLongBuffer().get(dst, off, n);
        buf.position(buf.position() + 8 * n);
    }

    void readFully(byte[] dst, int off, int len) throws IOException {
        checkAvailable(len);
        int fromBuffer = Math.min(len, buf.remaining());
        buf.get(dst, off, fromBuffer);
        off += fromBuffer;
        len -= fromBuffer;
        if (len == 0) {
            return;
        }
        if (len < BUFFER_BYTES / 2) {
            need(len);
            buf.get(dst, off, len);
            return;
        }
        long pos = position();
        ByteBuffer direct = ByteBuffer.wrap(dst, off, len);
        while (direct.hasRemaining()) {
            if (channel.read(direct, pos + direct.position() - off) < 0) {
                throw fail("truncated file: unexpected end at offset " + (pos + direct.position() - off));
            }
        }
        bufStart = pos + len;
        buf.clear().limit(0);
    }

    /** An int32 length and that many bytes, UTF-8. */
    String readString(String what) throws IOException {
        long at = position();
        int len = readInt();
        if (len < 0 || len > MAX_STRING) {
            throw fail("bad length " + len + " of " + what + " at offset " + at
                    + " (allowed: 0 to " + MAX_STRING + "): damaged file");
        }
        byte[] b = new byte[len];
        readFully(b, 0, len);
        return new String(b, StandardCharsets.UTF_8);
    }

    VdbFormatException fail(String what) {
        return new VdbFormatException(where() + ": " + what);
    }

    VdbFormatException fail(String what, Throwable cause) {
        return new VdbFormatException(where() + ": " + what, cause);
    }

    private String where() {
        return file + (grid != null ? ", grid '" + grid + "'" : "");
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
