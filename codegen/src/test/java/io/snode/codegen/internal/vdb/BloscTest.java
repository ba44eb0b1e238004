package io.snode.codegen.internal.vdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.zip.DataFormatException;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;

/**
 * The blosc1 decoder against buffers this test encodes itself the way c-blosc does (header,
 * block offsets, per-byte splits, LZ4 or stored splits, byte shuffle, stored buffers).
 */
class BloscTest {
    private static final LZ4Compressor LZ4 = LZ4Factory.safeInstance().fastCompressor();

    /** c-blosc's layout: compressor code in bits 5-7, 0x10 when blocks are not split. */
    static byte[] encode(byte[] data, int typesize, int blocksize, boolean shuffle, boolean split, int compressor) {
        if (blocksize > typesize) {
            blocksize = blocksize / typesize * typesize; // c-blosc: "a multiple of the typesize"
        }
        int nbytes = data.length;
        int nblocks = (nbytes + blocksize - 1) / blocksize;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int[] starts = new int[nblocks];
        int headerAndStarts = 16 + 4 * nblocks;
        for (int j = 0; j < nblocks; j++) {
            starts[j] = headerAndStarts + body.size();
            int start = j * blocksize;
            int bsize = Math.min(blocksize, nbytes - start);
            boolean leftover = bsize < blocksize;
            byte[] block = new byte[bsize];
            if (shuffle && typesize > 1) {
                int elements = bsize / typesize;
                for (int i = 0; i < elements; i++) {
                    for (int b = 0; b < typesize; b++) {
                        block[b * elements + i] = data[start + i * typesize + b];
                    }
                }
                System.arraycopy(data, start + elements * typesize, block, elements * typesize, bsize - elements * typesize);
            } else {
                System.arraycopy(data, start, block, 0, bsize);
            }
            int nsplits = split && typesize <= 16 && bsize / typesize >= 128 && !leftover ? typesize : 1;
            int neblock = bsize / nsplits;
            for (int s = 0; s < nsplits; s++) {
                byte[] c = new byte[LZ4.maxCompressedLength(neblock)];
                int clen = LZ4.compress(block, s * neblock, neblock, c, 0, c.length);
                boolean raw = clen >= neblock;
                writeInt(body, raw ? neblock : clen);
                body.write(raw ? block : c, raw ? s * neblock : 0, raw ? neblock : clen);
            }
        }
        int flags = (shuffle ? 1 : 0) | (split ? 0 : 0x10) | compressor << 5;
        ByteBuffer out = ByteBuffer.allocate(headerAndStarts + body.size()).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte) 2).put((byte) 1).put((byte) flags).put((byte) typesize);
        out.putInt(nbytes).putInt(blocksize).putInt(out.capacity());
        for (int s : starts) {
            out.putInt(s);
        }
        out.put(body.toByteArray());
        return out.array();
    }

    static byte[] stored(byte[] data, int typesize) {
        ByteBuffer out = ByteBuffer.allocate(16 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte) 2).put((byte) 1).put((byte) 0x2).put((byte) typesize);
        out.putInt(data.length).putInt(data.length).putInt(out.capacity()).put(data);
        return out.array();
    }

    private static void writeInt(ByteArrayOutputStream o, int v) {
        o.write(v);
        o.write(v >>> 8);
        o.write(v >>> 16);
        o.write(v >>> 24);
    }

    /** Floats of a smooth field (compressible) followed by noise (not), n values. */
    static byte[] floats(int n, long seed) {
        Random r = new Random(seed);
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(i < n / 2 ? (float) Math.sin(i * 0.01) : r.nextFloat());
        }
        return b.array();
    }

    @Test
    void lz4BlocksWithShuffleSplitsAndALeftoverBlockDecode() throws DataFormatException {
        Blosc blosc = new Blosc();
        for (int typesize : new int[] {1, 4, 8}) {
            for (boolean shuffle : new boolean[] {true, false}) {
                for (boolean split : new boolean[] {true, false}) {
                    for (int bytes : new int[] {0, 4, 36, 2048, 4096 + 44, 20_000}) {
                        byte[] data = floats(bytes / 4, bytes + typesize);
                        for (int blocksize : new int[] {bytes, 1024}) {
                            if (blocksize == 0) {
                                continue;
                            }
                            byte[] enc = encode(data, typesize, blocksize, shuffle, split, 1);
                            byte[] dst = new byte[data.length];
                            blosc.decode(enc, enc.length, dst, dst.length);
                            assertThat(dst).as("typesize %d shuffle %b split %b bytes %d blocksize %d", typesize,
                                    shuffle, split, bytes, blocksize).isEqualTo(data);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aStoredBufferDecodes() throws DataFormatException {
        byte[] data = floats(100, 3);
        byte[] dst = new byte[data.length];
        byte[] enc = stored(data, 4);
        new Blosc().decode(enc, enc.length, dst, dst.length);
        assertThat(dst).isEqualTo(data);
    }

    @Test
    void otherCompressorsBitShuffleAndDamageAreRefusedByName() {
        byte[] data = floats(512, 5);
        byte[] dst = new byte[data.length];
        Blosc blosc = new Blosc();
        String[] names = {"blosclz", "lz4", "snappy", "zlib", "zstd"};
        for (int code : new int[] {0, 2, 3, 4, 5}) {
            byte[] enc = encode(data, 4, data.length, true, true, code);
            assertThatThrownBy(() -> blosc.decode(enc, enc.length, dst, dst.length))
                    .isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("compressor " + (code < names.length ? names[code] : "code " + code)
                            + " is not supported (supported: blosc with lz4 or stored blocks, zip, none)");
        }
        byte[] bits = encode(data, 4, data.length, false, true, 1);
        bits[2] |= 0x4;
        assertThatThrownBy(() -> blosc.decode(bits, bits.length, dst, dst.length))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("bit shuffle");
        byte[] good = encode(data, 4, data.length, true, true, 1);
        assertThatThrownBy(() -> blosc.decode(good, good.length - 1, dst, dst.length))
                .isInstanceOf(DataFormatException.class);
        assertThatThrownBy(() -> blosc.decode(good, good.length, new byte[dst.length + 4], dst.length + 4))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("expected " + (dst.length + 4));
        byte[] damaged = good.clone();
        for (int i = 40; i < damaged.length; i += 7) {
            damaged[i] ^= 0x5a;
        }
        assertThatThrownBy(() -> blosc.decode(damaged, damaged.length, dst, dst.length))
                .isInstanceOf(DataFormatException.class);
        byte[] version = good.clone();
        version[0] = 3;
        assertThatThrownBy(() -> blosc.decode(version, version.length, dst, dst.length))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("blosc format version 3");
    }
}
