package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.vdb.VdbCompression;
import io.snode.codegen.internal.vdb.VdbGrid;
import io.snode.codegen.internal.vdb.VdbLeaves;
import io.snode.codegen.internal.vdb.VdbReader;
import io.snode.codegen.internal.vdb.VdbTile;
import io.snode.codegen.internal.vdb.VdbValueType;
import io.snode.codegen.internal.vdb.VdbWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The facade's import rules: offsets, tiles, value types and refusals that write nothing. */
class VdbTest {
    static final String LAYOUT = "pointer(ijk,16).bitmasked(ijk,8).place(f32 v)";

    /** A FloatGrid with voxels at (-3, 5, 0) = 1.5 and (10, -20, 7) = 2.5 (and an inactive one), plus {@code tiles}. */
    static Path grid(Path dir, VdbValueType type, List<VdbTile> tiles) throws IOException {
        VdbLeaves leaves = new VdbLeaves(type);
        int a = leaves.add(-8, 0, 0);
        leaves.set(a, (5 << 6) | (5 << 3), 1.5, true);
        leaves.set(a, 0, 9.0, false);
        int b = leaves.add(8, -24, 0);
        leaves.set(b, (2 << 6) | (4 << 3) | 7, 2.5, true);
        Path file = dir.resolve("grid.vdb");
        VdbWriter.write(file, List.of(new VdbGrid("density", type, "fog volume", 0.5, new double[] {1, 2, 3}, 0.0,
                leaves, tiles)), VdbCompression.ZIP);
        return file;
    }

    /**
     * The option and result records compare, hash and print their arrays by content, and an
     * import's result hands out copies (audit g4: DEFAULTS was unequal to DEFAULTS.gridName(null),
     * two equal offsets gave different hash codes, toString printed [I@..., and writing into
     * Imported.offset() changed the record).
     */
    @Test
    void optionsAndResultsAreValuesByContent(@TempDir Path directory) throws IOException {
        assertThat(Vdb.ExportOptions.DEFAULTS.gridName(null)).isEqualTo(Vdb.ExportOptions.DEFAULTS)
                .hasSameHashCodeAs(Vdb.ExportOptions.DEFAULTS);
        assertThat(Vdb.ExportOptions.DEFAULTS.toString()).contains("origin=[0.0, 0.0, 0.0]");
        assertThat(Vdb.ImportOptions.DEFAULTS.offset(1, 2, 3)).isEqualTo(Vdb.ImportOptions.DEFAULTS.offset(1, 2, 3))
                .hasSameHashCodeAs(Vdb.ImportOptions.DEFAULTS.offset(1, 2, 3))
                .isNotEqualTo(Vdb.ImportOptions.DEFAULTS.offset(1, 2, 4));
        assertThat(Vdb.ImportOptions.DEFAULTS.offset(1, 2, 3).toString()).contains("offset=[1, 2, 3]");
        Path file = directory.resolve("values.vdb");
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,8).dense(ijk,8).place(f32 v)"))) {
            rt.generic().setFloat("v", 2f, 9, 10, 11);
            Vdb.export(rt, "v", file, Vdb.ExportOptions.DEFAULTS);
        }
        try (SNodeRuntime a = SNodeRuntime.compile(Layout.parse("pointer(ijk,8).dense(ijk,8).place(f32 v)"));
             SNodeRuntime b = SNodeRuntime.compile(Layout.parse("pointer(ijk,8).dense(ijk,8).place(f32 v)"))) {
            Vdb.Imported first = Vdb.importGrid(file, a, "v", Vdb.ImportOptions.DEFAULTS);
            Vdb.Imported second = Vdb.importGrid(file, b, "v", Vdb.ImportOptions.DEFAULTS);
            assertThat(first).isEqualTo(second).hasSameHashCodeAs(second);
            int[] offset = first.offset();
            offset[0] = 99;
            first.fileBoxLow()[0] = 99;
            assertThat(first).isEqualTo(second);
            assertThat(first.toString()).doesNotContain("99");
        }
    }

    @Test
    void negativeCoordinatesAreMovedByMinusTheMinimumPerAxis(@TempDir Path dir) throws IOException {
        Path file = grid(dir, VdbValueType.FLOAT, List.of());
        assertThat(Vdb.gridNames(file)).containsExactly("density");
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(LAYOUT))) {
            Vdb.Imported imported = Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS);
            assertThat(imported.offset()).containsExactly(3, 20, 0);
            assertThat(imported.fileBoxLow()).containsExactly(-3, -20, 0);
            assertThat(imported.fileBoxHigh()).containsExactly(10, 5, 7);
            assertThat(imported.cells()).isEqualTo(2);
            assertThat(rt.generic().getFloat("v", 0, 25, 0)).isEqualTo(1.5f);
            assertThat(rt.generic().getFloat("v", 13, 0, 7)).isEqualTo(2.5f);
            assertThat(rt.count("v")).as("the inactive voxel is not imported").isEqualTo(2);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(LAYOUT))) {
            Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS.offset(100, 100, 100).gridName("density"));
            assertThat(rt.generic().getFloat("v", 97, 105, 100)).isEqualTo(1.5f);
        }
    }

    /**
     * Leaves whose coordinates reach 2^24 and beyond stay apart in an export: (8,0,0) and
     * (0,2^24,0), and voxels of three leaves at 2^27. Until 12-06 the export found a voxel's leaf
     * by a key of 21 bits per axis, so those leaves shared one and the file lost voxels.
     */
    @Test
    void leavesFarOutStayApartInAnExport(@TempDir Path dir) throws IOException {
        String text = "hash(ijk,2097151).pointer(ijk,16).bitmasked(ijk,8).place(f32 x)";
        int far = 1 << 27;
        int[][] voxels = {{8, 0, 0}, {0, 1 << 24, 0}, {far, far, far}, {far + 8, far, far}, {far, far + 7, far + 9}};
        Path file = dir.resolve("far.vdb");
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(text))) {
            for (int v = 0; v < voxels.length; v++) {
                rt.generic().setFloat("x", v + 1, voxels[v][0], voxels[v][1], voxels[v][2]);
            }
            assertThat(Vdb.export(rt, "x", file, Vdb.ExportOptions.DEFAULTS)).isEqualTo(voxels.length);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(text))) {
            Vdb.importGrid(file, rt, "x", Vdb.ImportOptions.DEFAULTS);
            for (int v = 0; v < voxels.length; v++) {
                assertThat(rt.generic().getFloat("x", voxels[v][0], voxels[v][1], voxels[v][2])).as("voxel %d", v)
                        .isEqualTo(v + 1);
            }
            assertThat(rt.count("x")).isEqualTo(voxels.length);
        }
    }

    /**
     * An f32 field's values keep their bits through export and import, signalling NaNs too
     * (they passed through {@code double}, which set their quiet bit, until 12-06), whatever the
     * compression and with inactive voxels beside them in the leaf.
     */
    /**
     * An export while another thread activates cells (which no rule forbids: an export reads as
     * a launch does): the file is a valid grid that holds every cell active before the export
     * with its value, and of the cells activated meanwhile some, each with its value or zero (a
     * write caught between its activation and its store), nothing else.
     */
    @Test
    void anExportBesideActivationsIsAValidGridOfTheCellsBeforeItAndSomeActivatedMeanwhile(@TempDir Path dir)
            throws Exception {
        Layout layout = Layout.parse(LAYOUT);
        int before = 4096;
        int limit = 1 << 21; // the index space's cells (128^3)
        Path file = dir.resolve("racing.vdb");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout); SNodeRuntime copy = SNodeRuntime.compile(layout)) {
            for (int n = 0; n < before; n++) {
                rt.generic().setFloat("v", n + 1, n & 127, (n >>> 7) & 127, n >>> 14);
            }
            AtomicBoolean exporting = new AtomicBoolean(true);
            CountDownLatch started = new CountDownLatch(1);
            Future<Integer> activations = writer.submit(() -> {
                int n = before;
                do {
                    rt.generic().setFloat("v", n + 1, n & 127, (n >>> 7) & 127, n >>> 14);
                    n++;
                    started.countDown();
                } while (exporting.get() && n < limit);
                return n;
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            long exported;
            try {
                exported = Vdb.export(rt, "v", file, Vdb.ExportOptions.DEFAULTS);
            } finally {
                exporting.set(false);
            }
            int activated = activations.get(30, TimeUnit.SECONDS);
            Vdb.importGrid(file, copy, "v", Vdb.ImportOptions.DEFAULTS.offset(0, 0, 0));
            assertThat(copy.count("v")).isEqualTo(exported).isBetween((long) before, (long) activated);
            long meanwhile = 0;
            for (int n = 0; n < activated; n++) {
                int i = n & 127;
                int j = (n >>> 7) & 127;
                int k = n >>> 14;
                float value = copy.generic().getFloat("v", i, j, k);
                if (n < before) {
                    assertThat(value).as("cell %d, active before the export", n).isEqualTo(n + 1f);
                } else if (copy.generic().isActive(layout.field("v").snode(), i, j, k)) {
                    assertThat(value).as("cell %d, activated during the export", n).isIn(n + 1f, 0f);
                    meanwhile++;
                }
            }
            assertThat(before + meanwhile).as("the cells of the file").isEqualTo(exported);
            System.out.printf("an export beside activations: %d cells before it, %d of %d activated meanwhile%n",
                    before, meanwhile, activated - before);
        } finally {
            writer.shutdownNow();
            assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void floatValuesKeepTheirBitsSignallingNaNsToo(@TempDir Path dir) throws IOException {
        Layout layout = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 c)");
        int[] bits = {0x7f800001, 0x7fa00000, 0xff800001, 0x7fbfffff, 0x7fc12345, 0x80000000, 0x00000001, 0x7f7fffff,
                0xff800000};
        for (Vdb.Compression compression : Vdb.Compression.values()) {
            Path file = dir.resolve(compression + ".vdb");
            try (SNodeRuntime rt = SNodeRuntime.compile(layout); SNodeRuntime other = SNodeRuntime.compile(layout)) {
                for (int n = 0; n < bits.length; n++) {
                    rt.generic().setFloat("c", Float.intBitsToFloat(bits[n]), 2 * n, 1, 0);
                }
                Vdb.export(rt, "c", file, Vdb.ExportOptions.DEFAULTS.compression(compression));
                Vdb.importGrid(file, other, "c", Vdb.ImportOptions.DEFAULTS);
                for (int n = 0; n < bits.length; n++) {
                    assertThat(Integer.toHexString(Float.floatToRawIntBits(other.generic().getFloat("c", 2 * n, 1, 0))))
                            .as("%s: value %d", compression, n).isEqualTo(Integer.toHexString(bits[n]));
                }
            }
        }
    }

    @Test
    void aGridThatDoesNotFitIsRefusedWithItsBoxAndNothingWritten(@TempDir Path dir) throws IOException {
        Path file = grid(dir, VdbValueType.FLOAT, List.of());
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(LAYOUT))) {
            assertThatThrownBy(() -> Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS.offset(0, 0, 0)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("grid.vdb", "'density'", "[-3, -20, 0] to [10, 5, 7]", "[128, 128, 128]",
                            "nothing was written");
            assertThatThrownBy(() -> Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS.offset(120, 120, 120)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("do not fit");
            assertThat(rt.count("v")).isZero();
            assertThat(rt.memoryStats().bytesCommitted()).isEqualTo(emptyCommitted());
        }
    }

    /**
     * An import that the memory cap refuses halfway leaves what {@link Bulk#writeCells} leaves: the
     * grid's active voxels before the refused one, in the file's order (leaf by leaf), written and
     * active, and nothing after them, so that a block of a layout whose blocks span several leaves
     * of the file may be written in part. Caps from the empty runtime's memory upwards, over a grid
     * of 120 random leaves whose 16^3 blocks (8 leaves of the file each) are filled in pieces.
     */
    @Test
    void anImportTheCapRefusesLeavesTheVoxelsBeforeTheRefusedOneInFileOrder(@TempDir Path dir) throws IOException {
        java.util.Random random = new java.util.Random(17);
        VdbLeaves written = new VdbLeaves(VdbValueType.FLOAT);
        java.util.Set<Long> origins = new java.util.HashSet<>();
        while (written.size() < 120) {
            int x = 8 * random.nextInt(8);
            int y = 8 * random.nextInt(8);
            int z = 8 * random.nextInt(8);
            if (!origins.add(((long) x << 40) | ((long) y << 20) | z)) {
                continue;
            }
            int leaf = written.add(x, y, z);
            double density = random.nextDouble();
            for (int voxel = 0; voxel < 512; voxel++) {
                if (random.nextDouble() < density) {
                    written.set(leaf, voxel, 1 + random.nextInt(1000), true);
                }
            }
        }
        Path file = dir.resolve("leaves.vdb");
        VdbWriter.write(file, List.of(new VdbGrid("density", VdbValueType.FLOAT, "fog volume", 1.0, new double[3], 0.0,
                written, List.of())), VdbCompression.NONE);
        // The file's order: its leaves as the reader gives them, each voxel by voxel.
        VdbLeaves leaves = VdbReader.read(file, null).leaves();
        List<int[]> order = new java.util.ArrayList<>();
        for (int leaf = 0; leaf < leaves.size(); leaf++) {
            for (int voxel = 0; voxel < 512; voxel++) {
                if (leaves.active(leaf, voxel)) {
                    order.add(new int[] {leaves.x(leaf) + (voxel >> 6), leaves.y(leaf) + ((voxel >> 3) & 7),
                            leaves.z(leaf) + (voxel & 7), (int) leaves.value(leaf, voxel)});
                }
            }
        }
        Layout layout = Layout.parse("pointer(ijk,16).bitmasked(ijk,16).place(f32 v)");
        long empty;
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            empty = rt.memoryStats().pool().bytesReserved();
        }
        int refused = 0;
        int blocksInPart = 0;
        for (long cap = empty; ; cap += 16 << 10) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout, io.snode.runtime.RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
                try {
                    Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS.offset(0, 0, 0));
                } catch (io.snode.api.MemoryCapExceededException e) {
                    refused++;
                }
                long count = rt.count("v");
                for (int n = 0; n < order.size(); n++) {
                    int[] voxel = order.get(n);
                    if (n < count) {
                        assertThat(rt.generic().getFloat("v", voxel[0], voxel[1], voxel[2])).as("cap %d, voxel %d", cap, n)
                                .isEqualTo(voxel[3]);
                    } else {
                        assertThat(rt.generic().isActive(layout.field("v").snode(), voxel[0], voxel[1], voxel[2]))
                                .as("cap %d, voxel %d of %d written", cap, n, count).isFalse();
                    }
                }
                for (int n = (int) count; n < order.size(); n++) {
                    int[] voxel = order.get(n);
                    if (rt.generic().isActive(layout.field("v").snode().parent(), voxel[0] / 16, voxel[1] / 16,
                            voxel[2] / 16)) {
                        blocksInPart++; // a voxel after the refused one whose block was activated before it
                        break;
                    }
                }
                if (count == order.size()) {
                    break;
                }
            }
        }
        assertThat(refused).as("caps refused").isGreaterThan(3);
        assertThat(blocksInPart).as("imports that left a block in part").isPositive();
    }

    private static long emptyCommitted() {
        try (SNodeRuntime empty = SNodeRuntime.compile(Layout.parse(LAYOUT))) {
            return empty.memoryStats().bytesCommitted();
        }
    }

    @Test
    void activeTilesBecomeActiveCellsOrAreRefusedByOption(@TempDir Path dir) throws IOException {
        Path file = grid(dir, VdbValueType.FLOAT, List.of(new VdbTile(0, 0, 128, 128, 0.25, true),
                new VdbTile(128, 128, 128, 128, 7.0, false)));
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,64).bitmasked(ijk,8).place(f32 v)"))) {
            assertThatThrownBy(() -> Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS.expandTiles(false)))
                    .isInstanceOf(VdbFormatException.class).hasMessageContaining("1 active tiles (2097152 voxels)");
            assertThat(rt.count("v")).isZero();
            Vdb.Imported imported = Vdb.importGrid(file, rt, "v", Vdb.ImportOptions.DEFAULTS);
            assertThat(imported.tileCells()).isEqualTo(128L * 128 * 128);
            assertThat(imported.cells()).isEqualTo(128L * 128 * 128 + 2);
            assertThat(rt.count("v")).isEqualTo(128L * 128 * 128 + 2);
            assertThat(rt.generic().getFloat("v", 3 + 127, 20 + 127, 255)).isEqualTo(0.25f);
            assertThat(rt.generic().getFloat("v", 3 + 128, 20 + 128, 128)).as("inactive tile").isZero();
        }
    }

    @Test
    void valueTypesWidenButNeverNarrowAndOtherFieldsAreRefused(@TempDir Path dir) throws IOException {
        Path doubles = grid(dir, VdbValueType.DOUBLE, List.of());
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(LAYOUT));
             SNodeRuntime wide = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).dense(ijk,8).place(f64 v)"));
             SNodeRuntime flat = SNodeRuntime.compile(Layout.parse("pointer(ij,16).dense(ij,8).place(f32 v)"));
             SNodeRuntime ints = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).dense(ijk,8).place(i32 v)"))) {
            assertThatThrownBy(() -> Vdb.importGrid(doubles, rt, "v", Vdb.ImportOptions.DEFAULTS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DoubleGrid", "f64");
            Vdb.importGrid(doubles, wide, "v", Vdb.ImportOptions.DEFAULTS);
            assertThat(wide.generic().getDouble("v", 0, 25, 0)).isEqualTo(1.5);
            assertThatThrownBy(() -> Vdb.export(flat, "v", dir.resolve("x.vdb"), Vdb.ExportOptions.DEFAULTS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3-D");
            assertThatThrownBy(() -> Vdb.export(ints, "v", dir.resolve("x.vdb"), Vdb.ExportOptions.DEFAULTS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("i32");
        }
    }

    @Test
    void exportWritesTheMetadataOpenVdbToolsRead(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("meta.vdb");
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,4).dense(ijk,[3,5,6]).place(f64 v)"))) {
            rt.generic().setDouble("v", 4.0, 7, 9, 11);
            long voxels = Vdb.export(rt, "v", file, Vdb.ExportOptions.DEFAULTS.gridName("rho").nonZeroOnly(true)
                    .gridClass(Vdb.GridClass.FOG_VOLUME).transform(0.1, 1, 2, 3).compression(Vdb.Compression.ZIP));
            assertThat(voxels).isEqualTo(1);
        }
        VdbGrid grid = VdbReader.read(file, "rho");
        assertThat(grid.type()).isEqualTo(VdbValueType.DOUBLE);
        assertThat(grid.gridClass()).isEqualTo("fog volume");
        assertThat(grid.voxelSize()).isEqualTo(0.1);
        assertThat(grid.translation()).containsExactly(1, 2, 3);
        assertThat(grid.activeBoundingBox()).containsExactly(7, 9, 11, 7, 9, 11);
    }
}
