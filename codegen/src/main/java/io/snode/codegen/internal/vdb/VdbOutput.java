package io.snode.codegen.internal.vdb;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Little-endian, buffered writing of a {@code .vdb} file, with {@link #patchLong} to fill in a grid
 * descriptor's offsets once the grid has been written.
 */
final class VdbOutput implements Closeable {
    private static final int BUFFER_BYTES = 1 << 20;

    private final FileChannel channel;
    private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private long flushed;

    VdbOutput(Path file) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    long position() {
        return flushed + buf.position();
    }

    private void room(int n) throws IOException {
        if (buf.remaining() < n) {
            flush();
        }
    }

    void flush() throws IOException {
        buf.flip();
        while (buf.hasRemaining()) {
            flushed += channel.write(buf, flushed);
        }
        buf.clear();
    }

    void putByte(int b) throws IOException {
        room(1);
        buf.put((byte) b);
    }

    void putInt(int v) throws IOException {
        room(4);
        buf.putInt(v);
    }

    void putLong(long v) throws IOException {
        room(8);
        buf.putLong(v);
    }

    void putDouble(double v) throws IOException {
        room(8);
        buf.putDouble(v);
    }

    void putValue(VdbValueType type, double v) throws IOException {
        if (type == VdbValueType.FLOAT) {
            room(4);
            buf.putFloat(VdbValueType.narrow(v));
        } else {
            putDouble(v);
        }
    }

    void putLongs(long[] src, int off, int n) throws IOException {
        room(8 * n);
        buf.asLongBuffer().put(src, off, n);
        buf.position(buf.position() + 8 * n);
    }

    void putBytes(byte[] src, int off, int len) throws IOException {
        if (len > BUFFER_BYTES / 2) {
            flush();
            ByteBuffer direct = ByteBuffer.wrap(src, off, len);
            while (direct.hasRemaining()) {
                flushed += channel.write(direct, flushed);
            }
            return;
        }
        room(len);
        buf.put(src, off, len);
    }

    /** Raw ASCII/UTF-8 bytes without a length. */
    void putRaw(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putBytes(b, 0, b.length);
    }

    /** An int32 length and the UTF-8 bytes. */
    void putString(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putInt(b.length);
        putBytes(b, 0, b.length);
    }

    /** Overwrites the 8 bytes at {@code pos}, already written. */
    void patchLong(long pos, long v) throws IOException {
        flush();
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).flip();
        while (b.hasRemaining()) {
            channel.write(b, pos + b.position());
        }
    }

    @Override
    public void close() throws IOException {
        try {
            flush();
        } finally {
            channel.close();
        }
    }
}
