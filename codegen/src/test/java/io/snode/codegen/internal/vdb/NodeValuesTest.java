package io.snode.codegen.internal.vdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.codegen.interop.VdbFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mask-compression mode the writer picks for each inactive pattern, and the data blocks' framing. */
class NodeValuesTest {
    @TempDir
    Path dir;

    private static final double BG = 2.0;

    /** Writes a leaf whose inactive voxels cycle through {@code inactive}; returns the file's bytes. */
    private byte[] writeLeaf(int flags, double... inactive) throws IOException {
        long[] mask = new long[8];
        double[] src = new double[512];
        for (int i = 0; i < 512; i++) {
            if (i % 4 == 0) {
                mask[i >>> 6] |= 1L << i;
                src[i] = i;
            } else {
                src[i] = inactive[i % inactive.length];
            }
        }
        Path f = dir.resolve("leaf.bin");
        try (VdbOutput out = new VdbOutput(f); DataBlocks blocks = new DataBlocks()) {
            new NodeValues(VdbValueType.FLOAT, blocks).write(out, flags, BG, src, 512, mask, 0, null, 0);
        }
        try (VdbInput in = new VdbInput(f); DataBlocks blocks = new DataBlocks()) {
            double[] back = new double[512];
            new NodeValues(VdbValueType.FLOAT, blocks).read(in, flags, BG, back, 512, mask, 0);
            assertThat(back).containsExactly(src);
            assertThat(in.position()).isEqualTo(Files.size(f));
        }
        return Files.readAllBytes(f);
    }

    @Test
    void theWriterPicksOpenVdbsModeForEachInactivePattern() throws IOException {
        int mask = VdbFormat.COMPRESS_ACTIVE_MASK;
        assertThat(writeLeaf(mask, BG)[0]).isEqualTo((byte) VdbFormat.NO_MASK_OR_INACTIVE_VALS);
        assertThat(writeLeaf(mask, -BG)[0]).isEqualTo((byte) VdbFormat.NO_MASK_AND_MINUS_BG);
        assertThat(writeLeaf(mask, 7)[0]).isEqualTo((byte) VdbFormat.NO_MASK_AND_ONE_INACTIVE_VAL);
        assertThat(writeLeaf(mask, -BG, BG)[0]).isEqualTo((byte) VdbFormat.MASK_AND_NO_INACTIVE_VALS);
        assertThat(writeLeaf(mask, BG, -BG)[0]).isEqualTo((byte) VdbFormat.MASK_AND_NO_INACTIVE_VALS);
        assertThat(writeLeaf(mask, BG, 7)[0]).isEqualTo((byte) VdbFormat.MASK_AND_ONE_INACTIVE_VAL);
        assertThat(writeLeaf(mask, 7, BG)[0]).isEqualTo((byte) VdbFormat.MASK_AND_ONE_INACTIVE_VAL);
        assertThat(writeLeaf(mask, 7, 8)[0]).isEqualTo((byte) VdbFormat.MASK_AND_TWO_INACTIVE_VALS);
        assertThat(writeLeaf(mask, 7, 8, 9)[0]).isEqualTo((byte) VdbFormat.NO_MASK_AND_ALL_VALS);
        // one inactive value: mode byte, the value, then the 128 active floats
        byte[] one = writeLeaf(mask, 7);
        assertThat(one).hasSize(1 + 4 + 128 * 4);
        assertThat(ByteBuffer.wrap(one, 1, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat()).isEqualTo(7f);
        // two: both values and a 64-byte selection mask
        assertThat(writeLeaf(mask, 7, 8)).hasSize(1 + 8 + 64 + 128 * 4);
        // without active-mask compression every value is stored whatever the pattern
        byte[] none = writeLeaf(VdbFormat.COMPRESS_NONE, BG);
        assertThat(none[0]).isEqualTo((byte) VdbFormat.NO_MASK_AND_ALL_VALS);
        assertThat(none).hasSize(1 + 512 * 4);
    }

    @Test
    void zipBlocksAreSizedDeflatedOrNegatedRaw() throws IOException {
        int zip = VdbFormat.COMPRESS_ZIP | VdbFormat.COMPRESS_ACTIVE_MASK;
        byte[] b = writeLeaf(zip, BG);
        long size = ByteBuffer.wrap(b, 1, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertThat(size).isPositive().isEqualTo(b.length - 9);
        assertThat(b[9]).isEqualTo((byte) 0x78); // zlib header
    }

    @Test
    void aBlockLargerThanTheFileIsAFormatErrorBeforeAnyAllocation() throws IOException {
        Path f = dir.resolve("huge.bin");
        Files.write(f, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(1L << 30).array());
        try (VdbInput in = new VdbInput(f); DataBlocks blocks = new DataBlocks()) {
            in.grid("g");
            assertThatThrownBy(() -> blocks.read(in, new byte[2048], 2048, VdbFormat.COMPRESS_ZIP))
                    .isInstanceOf(VdbFormatException.class)
                    .hasMessageContaining(f.toString()).hasMessageContaining("grid 'g'")
                    .hasMessageContaining("does not fit");
        }
    }

    @Test
    void anUnsupportedBloscCompressorIsAFormatErrorNamingFileGridAndCompressor() throws IOException {
        byte[] data = BloscTest.floats(512, 1);
        byte[] enc = BloscTest.encode(data, 4, data.length, true, true, 4);
        Path f = dir.resolve("zstd.bin");
        ByteBuffer b = ByteBuffer.allocate(8 + enc.length).order(ByteOrder.LITTLE_ENDIAN).putLong(enc.length).put(enc);
        Files.write(f, b.array());
        try (VdbInput in = new VdbInput(f); DataBlocks blocks = new DataBlocks()) {
            in.grid("phi");
            assertThatThrownBy(() -> blocks.read(in, new byte[data.length], data.length, VdbFormat.COMPRESS_BLOSC))
                    .isInstanceOf(VdbFormatException.class)
                    .hasMessageStartingWith(f + ", grid 'phi': compression blosc with compressor zstd is not supported"
                            + " (supported: blosc with lz4 or stored blocks, zip, none)");
        }
    }
}
