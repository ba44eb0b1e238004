package io.snode.codegen.internal.vdb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.DataFormatException;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Decodes a blosc1 buffer (c-blosc's format version 2, as OpenVDB writes leaf data with
 * {@code COMPRESS_BLOSC}): the header, stored (memcpy'd) buffers, blocks split per byte of the
 * type, LZ4 blocks (lz4-java's pure-Java safe decoder) and the byte shuffle. Other compressors,
 * bit shuffle and unknown flags are refused with a message that names them.
 *
 * <pre>
 * header 16 bytes: byte version (2)  byte compressor version  byte flags  byte typesize
 *                  int32 nbytes (uncompressed)  int32 blocksize  int32 cbytes (whole buffer)
 * flags: 0x01 byte shuffle, 0x02 stored (header + nbytes raw bytes), 0x04 bit shuffle,
 *        0x08 reserved, 0x10 blocks not split, bits 5-7 compressor (0 blosclz, 1 lz4/lz4hc,
 *        2 snappy, 3 zlib, 4 zstd)
 * then int32 bstarts[nblocks] (offsets from the buffer start); a block is nsplits x
 * (int32 csize, csize bytes), stored raw when csize equals the split's size
 * </pre>
 */
final class Blosc {
    static final int HEADER = 16;
    private static final int FORMAT_VERSION = 2;
    private static final int DOSHUFFLE = 0x1;
    private static final int MEMCPYED = 0x2;
    private static final int DOBITSHUFFLE = 0x4;
    private static final int RESERVED = 0x8;
    private static final int DONT_SPLIT = 0x10;
    private static final int LZ4 = 1;
    private static final String[] COMPRESSORS = {"blosclz", "lz4", "snappy", "zlib", "zstd"};
    private static final int MAX_SPLITS = 16;
    private static final int MIN_BUFFERSIZE = 128;
    static final String SUPPORTED = "supported: blosc with lz4 or stored blocks, zip, none";

    private static final LZ4SafeDecompressor LZ4_DECODER = LZ4Factory.safeInstance().safeDecompressor();

    private byte[] tmp = new byte[0];

    /** Decodes the {@code srcLen}-byte blosc buffer {@code src} into exactly {@code dstLen} bytes of {@code dst}. */
    void decode(byte[] src, int srcLen, byte[] dst, int dstLen) throws DataFormatException {
        if (srcLen < HEADER) {
            throw new DataFormatException("blosc buffer of " + srcLen + " bytes is shorter than its header");
        }
        ByteBuffer h = ByteBuffer.wrap(src, 0, srcLen).order(ByteOrder.LITTLE_ENDIAN);
        int version = src[0] & 0xff;
        int flags = src[2] & 0xff;
        int typesize = src[3] & 0xff;
        int nbytes = h.getInt(4);
        int blocksize = h.getInt(8);
        int cbytes = h.getInt(12);
        if (nbytes != dstLen) {
            throw new DataFormatException("blosc buffer holds " + nbytes + " bytes, expected " + dstLen);
        }
        if (cbytes > srcLen || cbytes < HEADER) {
            throw new DataFormatException("blosc buffer says it is " + cbytes + " bytes long, the block has "
                    + srcLen);
        }
        if (nbytes == 0) {
            return;
        }
        if (version != FORMAT_VERSION) {
            throw new DataFormatException("blosc format version " + version + " is not supported (supported: "
                    + FORMAT_VERSION + ")");
        }
        if ((flags & RESERVED) != 0) {
            throw new DataFormatException("blosc flags 0x" + Integer.toHexString(flags)
                    + " use the reserved bit 0x08, not supported (" + SUPPORTED + ")");
        }
        if ((flags & MEMCPYED) != 0) {
            if (cbytes != nbytes + HEADER) {
                throw new DataFormatException("stored blosc buffer of " + cbytes + " bytes for " + nbytes
                        + " bytes of data");
            }
            System.arraycopy(src, HEADER, dst, 0, nbytes);
            return;
        }
        int compressor = flags >>> 5;
        if (compressor != LZ4) {
            String name = compressor < COMPRESSORS.length ? COMPRESSORS[compressor] : "code " + compressor;
            throw new DataFormatException("compression blosc with compressor " + name + " is not supported ("
                    + SUPPORTED + ")");
        }
        if (blocksize <= 0 || typesize == 0) {
            throw new DataFormatException("blosc header has blocksize " + blocksize + ", typesize " + typesize);
        }
        if ((flags & DOBITSHUFFLE) != 0 && blocksize >= typesize) {
            throw new DataFormatException("blosc bit shuffle is not supported (" + SUPPORTED
                    + ", with byte shuffle or none)");
        }
        boolean shuffle = (flags & DOSHUFFLE) != 0 && typesize > 1;
        int nblocks = (int) ((nbytes + (long) blocksize - 1) / blocksize);
        if (HEADER + 4L * nblocks > cbytes) {
            throw new DataFormatException("blosc buffer too short for its " + nblocks + " block offsets");
        }
        if (shuffle && tmp.length < blocksize) {
            tmp = new byte[blocksize];
        }
        for (int j = 0; j < nblocks; j++) {
            int start = j * blocksize;
            boolean leftover = j == nblocks - 1 && nbytes % blocksize != 0;
            int bsize = leftover ? nbytes - start : blocksize;
            int bstart = h.getInt(HEADER + 4 * j);
            byte[] out = shuffle ? tmp : dst;
            int outOff = shuffle ? 0 : start;
            decodeBlock(h, src, cbytes, bstart, flags, typesize, bsize, leftover, out, outOff);
            if (shuffle) {
                unshuffle(typesize, bsize, tmp, dst, start);
            }
        }
    }

    private static void decodeBlock(ByteBuffer h, byte[] src, int cbytes, int at, int flags, int typesize,
            int bsize, boolean leftover, byte[] out, int outOff) throws DataFormatException {
        boolean split = (flags & DONT_SPLIT) == 0 && typesize <= MAX_SPLITS
                && bsize / typesize >= MIN_BUFFERSIZE && !leftover;
        int nsplits = split ? typesize : 1;
        int neblock = bsize / nsplits;
        for (int s = 0; s < nsplits; s++) {
            if (at < HEADER || at > cbytes - 4) {
                throw new DataFormatException("blosc block offset " + at + " outside the buffer of " + cbytes
                        + " bytes");
            }
            int csize = h.getInt(at);
            at += 4;
            if (csize < 0 || csize > cbytes - at) {
                throw new DataFormatException("blosc block of " + csize + " bytes at offset " + at
                        + " overruns the buffer of " + cbytes + " bytes");
            }
            if (csize == neblock) {
                System.arraycopy(src, at, out, outOff, neblock);
            } else {
                int n;
                try {
                    n = LZ4_DECODER.decompress(src, at, csize, out, outOff, neblock);
                } catch (LZ4Exception e) {
                    throw new DataFormatException("damaged LZ4 block in blosc buffer at offset " + at + ": "
                            + e.getMessage());
                }
                if (n != neblock) {
                    throw new DataFormatException("LZ4 block in blosc buffer gave " + n + " bytes, expected "
                            + neblock);
                }
            }
            at += csize;
            outOff += neblock;
        }
    }

    /** Reverses blosc's byte shuffle: byte j of element i was stored at {@code j * elements + i}. */
    private static void unshuffle(int typesize, int bsize, byte[] src, byte[] dst, int dstOff) {
        int elements = bsize / typesize;
        for (int j = 0; j < typesize; j++) {
            int from = j * elements;
            for (int i = 0; i < elements; i++) {
                dst[dstOff + i * typesize + j] = src[from + i];
            }
        }
        int rest = bsize - elements * typesize;
        System.arraycopy(src, bsize - rest, dst, dstOff + bsize - rest, rest);
    }
}
