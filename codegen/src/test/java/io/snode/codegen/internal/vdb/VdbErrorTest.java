package io.snode.codegen.internal.vdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.snode.codegen.interop.VdbFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged and unsupported files give a VdbFormatException naming the file (and grid), nothing else. */
class VdbErrorTest {
    @TempDir
    Path dir;
    private byte[] good;
    private List<VdbGrid> grids;

    @BeforeEach
    void writeAGoodFile() throws IOException {
        Random r = new Random(7);
        VdbGrid a = VdbTestGrids.randomGrid(r, "a", VdbValueType.FLOAT);
        VdbLeaves leaves = new VdbLeaves(VdbValueType.DOUBLE);
        for (int n = 0; n < 3; n++) {
            int leaf = leaves.add(-64 * n, 8 * n, 4096 * n);
            for (int off = 0; off < 512; off += 1 + n) {
                leaves.set(leaf, off, off * 0.5 - n, off % 3 != 0);
            }
        }
        VdbGrid phi = new VdbGrid("phi", VdbValueType.DOUBLE, "level set", 1, new double[3], 0.5, leaves,
                List.of(new VdbTile(0, 0, 8192, 128, 2, true)));
        grids = List.of(a, phi);
        Path file = dir.resolve("good.vdb");
        VdbWriter.write(file, grids, VdbCompression.ZIP);
        good = Files.readAllBytes(file);
    }

    private Path file(String name, byte[] bytes) throws IOException {
        Path f = dir.resolve(name);
        Files.write(f, bytes);
        return f;
    }

    private static void assertFormatError(Path f, String grid, String... parts) {
        assertThatThrownBy(() -> VdbReader.read(f, grid))
                .isInstanceOf(VdbFormatException.class)
                .hasMessageContaining(f.toString())
                .hasMessageContainingAll(parts);
    }

    @Test
    void everyTruncationIsAFormatErrorNamingTheFile() throws IOException {
        for (int len = 0; len < good.length; len += len < 300 ? 1 : 1 + len / 64) {
            Path f = file("cut.vdb", Arrays.copyOf(good, len));
            for (String grid : new String[] {"a", "phi"}) {
                try {
                    VdbReader.read(f, grid);
                    fail("read a file cut to " + len + " of " + good.length + " bytes");
                } catch (VdbFormatException e) {
                    assertThat(e.getMessage()).contains(f.toString());
                }
            }
        }
        Path f = file("cut.vdb", Arrays.copyOf(good, good.length - 1));
        assertFormatError(f, "phi", "truncated");
        for (int len : new int[] {0, 6}) {
            Path text = file("short.vdb", Arrays.copyOf("hello\n".getBytes(StandardCharsets.US_ASCII), len));
            assertFormatError(text, "phi", "not a VDB file: " + len + " bytes, shorter than its 8-byte magic number");
        }
    }

    @Test
    void aBadMagicNumberOrVersionIsAFormatError() throws IOException {
        byte[] b = good.clone();
        b[1] = 'X';
        assertFormatError(file("magic.vdb", b), null, "not a VDB file", "magic");
        assertThatThrownBy(() -> VdbReader.gridNames(dir.resolve("magic.vdb"))).isInstanceOf(VdbFormatException.class)
                .hasMessageContaining("magic.vdb");
        for (int version : new int[] {221, 300}) {
            byte[] v = good.clone();
            ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).putInt(8, version);
            assertFormatError(file("version.vdb", v), null, "file format version " + version, "supported: 222");
        }
        assertFormatError(file("empty.vdb", new byte[0]), null, "not a VDB file: 0 bytes");
    }

    @Test
    void aMissingGridIsAFormatErrorListingTheGrids() throws IOException {
        assertFormatError(file("good.vdb", good), "psi", "no grid named 'psi'", "a, phi");
    }

    @Test
    void anotherGridTypeOrHalfFloatStorageIsAFormatErrorNamingIt() throws IOException {
        byte[] b = good.clone();
        int at = indexOf(b, "Tree_double_5_4_3");
        System.arraycopy("Tree_vec3d_5_4_3_".getBytes(StandardCharsets.US_ASCII), 0, b, at, 17);
        Path f = file("vec.vdb", b);
        assertFormatError(f, "phi", "grid 'phi'", "grid type Tree_vec3d_5_4_3_", "not supported");
        assertThat(VdbReader.read(f, "a").name()).isEqualTo("a");

        byte[] h = good.clone();
        int meta = indexOf(h, "is_saved_as_half_float", indexOf(h, "Tree_double_5_4_3"));
        int value = meta + "is_saved_as_half_float".length() + 4 + "bool".length() + 4;
        assertThat(h[value]).isZero();
        h[value] = 1;
        assertFormatError(file("half.vdb", h), "phi", "grid 'phi'", "half-float");
    }

    @Test
    void randomDamageIsAFormatErrorOrAReadNeverAnotherException() throws IOException {
        Random r = new Random(11);
        int errors = 0;
        for (int round = 0; round < 300; round++) {
            byte[] b = good.clone();
            for (int n = 1 + r.nextInt(4); n > 0; n--) {
                int at = r.nextInt(b.length);
                b[at] = (byte) (r.nextBoolean() ? r.nextInt() : b[at] ^ (1 << r.nextInt(8)));
            }
            Path f = file("damaged.vdb", b);
            for (String grid : new String[] {"a", "phi"}) {
                try {
                    VdbReader.read(f, grid);
                } catch (VdbFormatException e) {
                    assertThat(e.getMessage()).contains(f.toString());
                    errors++;
                } catch (IllegalArgumentException e) {
                    // a damaged value the grid's constructor refuses (voxel size): named as such
                    assertThat(e.getMessage()).containsAnyOf("voxelSize", "edge=", "multiple of");
                    fail("damage surfaced as " + e + " instead of a VdbFormatException");
                }
            }
        }
        assertThat(errors).isPositive();
    }

    private static int indexOf(byte[] b, String s) {
        return indexOf(b, s, 0);
    }

    private static int indexOf(byte[] b, String s, int from) {
        byte[] p = s.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = from; i <= b.length - p.length; i++) {
            for (int j = 0; j < p.length; j++) {
                if (b[i + j] != p[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError(s + " not in the file");
    }

    /**
     * A write that fails halfway (here the second grid cannot be read once the first is written;
     * a full disk fails the same way) leaves the file that was there as it was, and no other file
     * behind; a write that works replaces it.
     */
    @Test
    void aWriteThatFailsHalfwayLeavesThePreviousFileAsItWas() throws IOException {
        Path file = dir.resolve("good.vdb");
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        List<VdbGrid> failing = new java.util.AbstractList<>() {
            @Override
            public VdbGrid get(int index) {
                // every grid is read once before the file is opened; the second read of the second grid fails
                if (index == 1 && reads.incrementAndGet() > 2) {
                    throw new IllegalStateException("injected failure after the first grid");
                }
                return grids.get(index);
            }

            @Override
            public int size() {
                return grids.size();
            }
        };
        assertThatThrownBy(() -> VdbWriter.write(file, failing, VdbCompression.NONE))
                .hasMessage("injected failure after the first grid");
        assertThat(Arrays.equals(Files.readAllBytes(file), good)).as("the previous file is as it was").isTrue();
        try (var listed = Files.list(dir)) {
            assertThat(listed.map(p -> p.getFileName().toString())).containsExactly("good.vdb");
        }
        VdbWriter.write(file, List.of(grids.get(0)), VdbCompression.NONE);
        assertThat(VdbReader.gridNames(file)).containsExactly("a");
        try (var listed = Files.list(dir)) {
            assertThat(listed.map(p -> p.getFileName().toString())).containsExactly("good.vdb");
        }
    }

    /**
     * A symbolic link is followed: the file it names (or will name: a link to a missing file)
     * is written, with the temporary file beside it, and the link stays a link.
     */
    @Test
    void aSymbolicLinkIsFollowedAndStaysALink() throws IOException {
        Path real = Files.createDirectory(dir.resolve("real"));
        Files.writeString(real.resolve("target.vdb"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.vdb"), Path.of("real", "target.vdb"));
        Path chain = Files.createSymbolicLink(dir.resolve("chain.vdb"), Path.of("link.vdb"));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.vdb"), real.resolve("new.vdb"));
        VdbWriter.write(chain, List.of(grids.get(0)), VdbCompression.NONE);
        VdbWriter.write(dangling, List.of(grids.get(1)), VdbCompression.NONE);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readSymbolicLink(chain)).isEqualTo(Path.of("link.vdb"));
        assertThat(Files.readSymbolicLink(dangling)).isEqualTo(real.resolve("new.vdb"));
        assertThat(VdbReader.gridNames(real.resolve("target.vdb"))).containsExactly("a");
        assertThat(VdbReader.gridNames(real.resolve("new.vdb"))).containsExactly("phi");
        try (var listed = Files.list(real)) {
            assertThat(listed.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("target.vdb", "new.vdb");
        }
        try (var listed = Files.list(dir)) {
            assertThat(listed.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("good.vdb", "real", "link.vdb", "chain.vdb", "dangling.vdb");
        }
        Path loop = Files.createSymbolicLink(dir.resolve("loop.vdb"), Path.of("loop.vdb"));
        assertThatThrownBy(() -> VdbWriter.write(loop, grids, VdbCompression.NONE))
                .isInstanceOf(java.nio.file.FileSystemException.class).hasMessageContaining("symbolic links");
    }

    /** A target that exists and is not a regular file (a directory, a FIFO) is refused, and nothing is written. */
    @Test
    void aTargetThatIsNotARegularFileIsRefusedBeforeAnythingIsWritten() throws IOException, InterruptedException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path toEmpty = Files.createSymbolicLink(dir.resolve("to-empty"), empty);
        List<Path> targets = new java.util.ArrayList<>(List.of(empty, toEmpty));
        Path fifo = dir.resolve("fifo");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
            targets.add(fifo);
        }
        for (Path target : targets) {
            assertThatThrownBy(() -> VdbWriter.write(target, grids, VdbCompression.NONE)).as(target.toString())
                    .isInstanceOf(java.nio.file.FileSystemException.class)
                    .hasMessageContainingAll(target.toString(), "not a regular file");
        }
        assertThat(Files.isDirectory(empty, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(Files.isSymbolicLink(toEmpty)).isTrue();
        if (targets.contains(fifo)) {
            assertThat(Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class).isOther())
                    .as("still a FIFO").isTrue();
        }
        try (var listed = Files.list(dir)) {
            assertThat(listed.map(p -> p.getFileName().toString())).as("no temporary file")
                    .allSatisfy(name -> assertThat(name).doesNotEndWith(".tmp"));
        }
        try (var listed = Files.list(empty)) {
            assertThat(listed).isEmpty();
        }
    }

    /**
     * The reader seeks to each grid's offset, so it reads only regular files: a device, a FIFO (a
     * shell's {@code <(...)}) or a directory is refused as such, without opening it (a FIFO
     * without a writer would block the open).
     */
    @Test
    void anInputThatIsNotARegularFileIsRefusedAsSuch() throws IOException, InterruptedException {
        List<Path> inputs = new java.util.ArrayList<>(List.of(dir));
        if (Files.exists(Path.of("/dev/null"))) {
            inputs.add(Path.of("/dev/null"));
        }
        Path fifo = dir.resolve("fifo");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
            inputs.add(fifo);
        }
        for (Path input : inputs) {
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
                assertThatThrownBy(() -> VdbReader.read(input, null)).as(input.toString())
                        .isInstanceOf(VdbFormatException.class)
                        .hasMessageContainingAll(input.toString(), "not a regular file");
                assertThatThrownBy(() -> VdbReader.gridNames(input)).isInstanceOf(VdbFormatException.class)
                        .hasMessageContaining("not a regular file");
            });
        }
    }
}
