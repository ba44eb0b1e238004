package io.snode.codegen.internal.vdb;

import java.io.IOException;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A node's data block, the bytes of its stored values, in each of OpenVDB's compressions
 * ({@code io::writeData} / {@code io::readData}): raw for NONE; for ZIP an int64 {@code n}, then
 * {@code n} bytes of a zlib stream when {@code n > 0}, or {@code -n} raw bytes when deflating did
 * not make the data smaller (and for empty data); for BLOSC the same size word and a blosc1 buffer
 * ({@link Blosc}). One instance per reader or writer: it keeps its scratch buffers, its
 * {@link Deflater} and {@link Inflater}; call {@link #close()} to free them.
 */
final class DataBlocks implements AutoCloseable {
    private byte[] packed = new byte[8192];
    private Deflater deflater;
    private Inflater inflater;
    private final Blosc blosc = new Blosc();

    /** Writes {@code data[0, len)} as a data block of {@code flags}. */
    void write(VdbOutput out, byte[] data, int len, int flags) throws IOException {
        if ((flags & VdbFormat.COMPRESS_ZIP) == 0) {
            out.putBytes(data, 0, len);
            return;
        }
        if (deflater == null) {
            deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
        }
        deflater.reset();
        deflater.setInput(data, 0, len);
        deflater.finish();
        int n = 0;
        while (!deflater.finished() && n < len) {
            if (n == packed.length) {
                packed = java.util.Arrays.copyOf(packed, 2 * packed.length);
            }
            n += deflater.deflate(packed, n, Math.min(packed.length, len) - n);
        }
        if (deflater.finished() && n < len) {
            out.putLong(n);
            out.putBytes(packed, 0, n);
        } else {
            out.putLong(-(long) len);
            out.putBytes(data, 0, len);
        }
    }

    /** Reads a data block of {@code flags} holding exactly {@code len} bytes into {@code dst}. */
    void read(VdbInput in, byte[] dst, int len, int flags) throws IOException {
        boolean bloscBlock = (flags & VdbFormat.COMPRESS_BLOSC) != 0;
        if (!bloscBlock && (flags & VdbFormat.COMPRESS_ZIP) == 0) {
            in.readFully(dst, 0, len);
            return;
        }
        long at = in.position();
        long n = in.readLong();
        if (n <= 0) {
            if (-n != len) {
                throw in.fail("uncompressed block of " + -n + " bytes at offset " + at + ", expected " + len
                        + " bytes: damaged file");
            }
            in.readFully(dst, 0, len);
            return;
        }
        if (n > in.size() - in.position() || n > Integer.MAX_VALUE - 16) {
            throw in.fail("compressed block of " + n + " bytes at offset " + at + " does not fit in the file ("
                    + in.size() + " bytes): truncated or damaged file");
        }
        int size = (int) n;
        if (packed.length < size) {
            packed = new byte[Math.max(size, 2 * packed.length)];
        }
        in.readFully(packed, 0, size);
        try {
            if (bloscBlock) {
                blosc.decode(packed, size, dst, len);
            } else {
                inflate(size, dst, len);
            }
        } catch (DataFormatException e) {
            String what = e.getMessage();
            if (what != null && what.contains("not supported")) {
                throw in.fail(what + " (block at offset " + at + ")", e);
            }
            throw in.fail("damaged " + (bloscBlock ? "blosc" : "zip") + " block at offset " + at + ": " + what, e);
        }
    }

    private void inflate(int size, byte[] dst, int len) throws DataFormatException {
        if (inflater == null) {
            inflater = new Inflater();
        }
        inflater.reset();
        inflater.setInput(packed, 0, size);
        int n = 0;
        while (n < len && !inflater.finished()) {
            int got = inflater.inflate(dst, n, len - n);
            if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                break;
            }
            n += got;
        }
        if (n != len || !inflater.finished()) {
            throw new DataFormatException("inflated " + n + " bytes" + (inflater.finished() ? "" : " (stream not finished)")
                    + ", expected " + len);
        }
    }

    @Override
    public void close() {
        if (deflater != null) {
            deflater.end();
        }
        if (inflater != null) {
            inflater.end();
        }
    }
}
