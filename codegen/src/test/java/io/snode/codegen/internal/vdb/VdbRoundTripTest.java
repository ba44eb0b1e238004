package io.snode.codegen.internal.vdb;

import static io.snode.codegen.internal.vdb.VdbTestGrids.assertSameGrid;
import static io.snode.codegen.internal.vdb.VdbTestGrids.randomGrid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writer then reader, cell for cell, without OpenVDB. */
class VdbRoundTripTest {
    @TempDir
    Path dir;

    @Property(tries = 40)
    void randomGridsComeBackCellForCell(@ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int gridCount)
            throws IOException {
        Random r = new Random(seed);
        List<VdbGrid> grids = new ArrayList<>();
        for (int g = 0; g < gridCount; g++) {
            grids.add(randomGrid(r, "g" + g, r.nextBoolean() ? VdbValueType.FLOAT : VdbValueType.DOUBLE));
        }
        Path file = Files.createTempFile("roundtrip", ".vdb");
        try {
            for (VdbCompression c : VdbCompression.values()) {
                VdbWriter.write(file, grids, c);
                assertThat(VdbReader.gridNames(file)).containsExactlyElementsOf(grids.stream().map(VdbGrid::name).toList());
                for (VdbGrid want : grids) {
                    assertSameGrid(VdbReader.read(file, want.name()), want);
                }
                assertThat(VdbReader.read(file, null).name()).isEqualTo("g0");
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void everyMaskCompressionModeComesBack() throws IOException {
        double bg = 1.5;
        VdbLeaves leaves = new VdbLeaves(VdbValueType.FLOAT);
        double[][] inactive = {{bg}, {-bg}, {7}, {-bg, bg}, {bg, 7}, {7, 8}, {7, 8, 9}};
        for (int mode = 0; mode < inactive.length; mode++) {
            int leaf = leaves.add(8 * mode, -8, 16);
            for (int off = 0; off < 512; off++) {
                boolean active = off % 3 == 0;
                double[] pick = inactive[mode];
                leaves.set(leaf, off, active ? off * 0.25 : pick[off % pick.length], active);
            }
        }
        VdbGrid grid = new VdbGrid("modes", VdbValueType.FLOAT, null, 1, new double[3], bg, leaves, List.of());
        for (VdbCompression c : VdbCompression.values()) {
            Path file = dir.resolve("modes-" + c + ".vdb");
            VdbWriter.write(file, List.of(grid), c);
            assertSameGrid(VdbReader.read(file, "modes"), grid);
        }
        assertThat(Files.size(dir.resolve("modes-ZIP.vdb"))).isLessThan(Files.size(dir.resolve("modes-NONE.vdb")));
    }

    @Test
    void tilesAtEveryLevelAndNegativeCoordinatesComeBack() throws IOException {
        VdbLeaves leaves = new VdbLeaves(VdbValueType.DOUBLE);
        int leaf = leaves.add(-8, -4096, 4088);
        leaves.set(leaf, 0, -2.5, true);
        leaves.set(leaf, 511, Math.PI, true);
        List<VdbTile> tiles = List.of(
                new VdbTile(-8192, -4096, 0, 4096, 4.0, true),
                new VdbTile(-256, -4096, 3968, 128, 5.0, true),
                new VdbTile(-16, -4096, 4088, 8, 6.0, false),
                new VdbTile(8, 8, 8, 8, 7.0, true));
        VdbGrid grid = new VdbGrid("t", VdbValueType.DOUBLE, "fog volume", 0.5, new double[] {1, -2, 3}, 0.25,
                leaves, tiles);
        for (VdbCompression c : VdbCompression.values()) {
            Path file = dir.resolve("tiles-" + c + ".vdb");
            VdbWriter.write(file, List.of(grid), c);
            VdbGrid back = VdbReader.read(file, "t");
            assertSameGrid(back, grid);
            assertThat(back.activeBoundingBox()).containsExactly(-8192, -4096, 0, 15, 15, 4095);
            assertThat(back.activeVoxelCount()).isEqualTo(2 + 4096L * 4096 * 4096 + 128 * 128 * 128 + 512);
        }
    }

    @Test
    void anEmptyGridAndAGridWithOnlyInactiveLeavesComeBack() throws IOException {
        VdbGrid empty = new VdbGrid("empty", VdbValueType.FLOAT, null, 1, new double[3], 0,
                new VdbLeaves(VdbValueType.FLOAT), List.of());
        VdbLeaves inactive = new VdbLeaves(VdbValueType.DOUBLE);
        int leaf = inactive.add(0, 0, 0);
        inactive.set(leaf, 3, 9.0, false);
        VdbGrid quiet = new VdbGrid("quiet", VdbValueType.DOUBLE, null, 1, new double[3], 0, inactive, List.of());
        Path file = dir.resolve("empty.vdb");
        VdbWriter.write(file, List.of(empty, quiet), VdbCompression.ZIP);
        VdbGrid back = VdbReader.read(file, "empty");
        assertSameGrid(back, empty);
        assertThat(back.activeBoundingBox()).isNull();
        assertSameGrid(VdbReader.read(file, "quiet"), quiet);
    }

    @Test
    void theWriterRefusesDuplicateLeavesOverlappingTilesAndBadNames() {
        VdbLeaves leaves = new VdbLeaves(VdbValueType.FLOAT);
        leaves.add(8, 8, 8);
        leaves.add(8, 8, 8);
        VdbGrid twice = new VdbGrid("twice", VdbValueType.FLOAT, null, 1, new double[3], 0, leaves, List.of());
        assertThatThrownBy(() -> VdbWriter.write(dir.resolve("a.vdb"), List.of(twice), VdbCompression.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same origin (8,8,8)");
        VdbLeaves one = new VdbLeaves(VdbValueType.FLOAT);
        one.add(8, 8, 8);
        VdbGrid covered = new VdbGrid("covered", VdbValueType.FLOAT, null, 1, new double[3], 0, one,
                List.of(new VdbTile(0, 0, 0, 128, 1, true)));
        assertThatThrownBy(() -> VdbWriter.write(dir.resolve("b.vdb"), List.of(covered), VdbCompression.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
        VdbGrid g = new VdbGrid("g", VdbValueType.FLOAT, null, 1, new double[3], 0, new VdbLeaves(VdbValueType.FLOAT),
                List.of());
        assertThatThrownBy(() -> VdbWriter.write(dir.resolve("c.vdb"), List.of(g, g), VdbCompression.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> new VdbLeaves(VdbValueType.FLOAT).add(1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 8");
        assertThatThrownBy(() -> new VdbTile(4, 0, 0, 8, 0, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VdbTile(0, 0, 0, 16, 0, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("edge=16");
    }
}
