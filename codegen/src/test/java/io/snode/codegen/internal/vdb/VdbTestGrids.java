package io.snode.codegen.internal.vdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/** Grids for the codec's tests: the WORKLOADS.md shell, random grids, and a cell-for-cell comparison. */
final class VdbTestGrids {
    static final int SHELL_N = 8_048_580;
    static final double SHELL_SUM = 33845.922322932631;
    static final int[] SHELL_BBOX = {623, 623, 623, 1425, 1425, 1425};
    private static final int C = 1024;
    private static final int LO = 398 * 398;
    private static final int HI = 402 * 402;

    private VdbTestGrids() {
    }

    /** Visits the shell's voxels in (i, j, k) order. */
    interface ShellVisitor {
        void voxel(int i, int j, int k, float value);
    }

    /** The shell: centre (1024,1024,1024), 398^2 <= d^2 < 402^2, value (float)(sqrt(d^2) - 400). */
    static void forEachShellVoxel(ShellVisitor v) {
        for (int di = -402; di <= 402; di++) {
            for (int dj = -402; dj <= 402; dj++) {
                int hi = HI - di * di - dj * dj;
                if (hi <= 0) {
                    continue;
                }
                int lo = LO - di * di - dj * dj;
                int kmax = (int) Math.sqrt(hi);
                while (kmax * kmax >= hi) {
                    kmax--;
                }
                int kmin = 0;
                if (lo > 0) {
                    kmin = (int) Math.sqrt(lo);
                    while (kmin * kmin < lo) {
                        kmin++;
                    }
                    while (kmin > 0 && (kmin - 1) * (kmin - 1) >= lo) {
                        kmin--;
                    }
                }
                if (kmin > kmax) {
                    continue;
                }
                for (int dk = -kmax; dk <= kmax; dk++) {
                    if (Math.abs(dk) < kmin) {
                        dk = kmin - 1;
                        continue;
                    }
                    int d2 = di * di + dj * dj + dk * dk;
                    v.voxel(C + di, C + dj, C + dk, (float) (Math.sqrt((double) d2) - 400.0));
                }
            }
        }
    }

    /** The shell as grid "phi": FloatGrid, background 0, class "level set", voxel size 1. */
    static VdbGrid shellGrid() {
        VdbLeaves leaves = new VdbLeaves(VdbValueType.FLOAT, 57_000);
        Map<Long, Integer> index = new HashMap<>();
        forEachShellVoxel((i, j, k, value) -> {
            int leaf = index.computeIfAbsent(key(i, j, k), x -> leaves.add(i & ~7, j & ~7, k & ~7));
            leaves.set(leaf, offset(i, j, k), value, true);
        });
        return new VdbGrid("phi", VdbValueType.FLOAT, "level set", 1.0, new double[3], 0.0, leaves, List.of());
    }

    static long key(int x, int y, int z) {
        return ((long) (x >> 3) & 0x1FFFFF) << 42 | ((long) (y >> 3) & 0x1FFFFF) << 21 | ((long) (z >> 3) & 0x1FFFFF);
    }

    static int offset(int x, int y, int z) {
        return (x & 7) << 6 | (y & 7) << 3 | (z & 7);
    }

    /** Leaf index by origin key. */
    static Map<Long, Integer> leafIndex(VdbLeaves leaves) {
        Map<Long, Integer> index = new HashMap<>();
        for (int leaf = 0; leaf < leaves.size(); leaf++) {
            index.put(key(leaves.x(leaf), leaves.y(leaf), leaves.z(leaf)), leaf);
        }
        return index;
    }

    /** Asserts that {@code grid} holds exactly the shell; returns the sum of its values in (i,j,k) order. */
    static double assertShell(VdbGrid grid) {
        assertThat(grid.type()).isEqualTo(VdbValueType.FLOAT);
        assertThat(grid.background()).isEqualTo(0.0);
        VdbLeaves leaves = grid.leaves();
        assertThat(leaves.activeCount()).isEqualTo(SHELL_N);
        assertThat(grid.activeVoxelCount()).isEqualTo(SHELL_N);
        Map<Long, Integer> index = leafIndex(leaves);
        double[] sum = {0};
        long[] missing = {0};
        forEachShellVoxel((i, j, k, value) -> {
            Integer leaf = index.get(key(i, j, k));
            if (leaf == null || !leaves.active(leaf, offset(i, j, k))) {
                missing[0]++;
                return;
            }
            float got = (float) leaves.value(leaf, offset(i, j, k));
            if (Float.floatToRawIntBits(got) != Float.floatToRawIntBits(value)) {
                missing[0]++;
            }
            sum[0] += got;
        });
        assertThat(missing[0]).as("shell voxels missing or with another value").isZero();
        assertThat(grid.activeBoundingBox()).containsExactly(SHELL_BBOX);
        return sum[0];
    }

    /** Value and active state of voxel (x, y, z) from leaves, then tiles, then the background. */
    static Object[] probe(VdbGrid grid, Map<Long, Integer> index, int x, int y, int z) {
        Integer leaf = index.get(key(x, y, z));
        if (leaf != null) {
            return new Object[] {grid.leaves().value(leaf, offset(x, y, z)), grid.leaves().active(leaf, offset(x, y, z))};
        }
        for (VdbTile t : grid.tiles()) {
            if (x >= t.x() && x < t.x() + t.edge() && y >= t.y() && y < t.y() + t.edge() && z >= t.z()
                    && z < t.z() + t.edge()) {
                return new Object[] {t.value(), t.active()};
            }
        }
        return new Object[] {grid.background(), false};
    }

    /**
     * A random grid: leaves at random origins in [-span, span) (negative included), each with a
     * random active fraction and an inactive pattern chosen to exercise every mask-compression
     * mode, and random tiles at the three levels in places the leaves do not use.
     */
    static VdbGrid randomGrid(Random r, String name, VdbValueType type) {
        double bg = switch (r.nextInt(3)) {
            case 0 -> 0.0;
            case 1 -> 0.5;
            default -> -3.25;
        };
        VdbLeaves leaves = new VdbLeaves(type, 4);
        Set<Long> used = new HashSet<>();
        int span = 1 << (5 + r.nextInt(10));
        int count = r.nextInt(60);
        for (int n = 0; n < count; n++) {
            int x = (r.nextInt(2 * span) - span) & ~7;
            int y = (r.nextInt(2 * span) - span) & ~7;
            int z = (r.nextInt(2 * span) - span) & ~7;
            if (!used.add(key(x, y, z))) {
                continue;
            }
            int leaf = leaves.add(x, y, z);
            double activeFraction = r.nextInt(4) == 0 ? r.nextInt(2) : r.nextDouble();
            int mode = r.nextInt(7);
            double a = r.nextGaussian() * 10;
            double b = r.nextGaussian() * 10;
            for (int off = 0; off < 512; off++) {
                boolean active = r.nextDouble() < activeFraction;
                double v;
                if (active) {
                    v = r.nextGaussian() * 100;
                } else {
                    v = switch (mode) {
                        case 0 -> bg;
                        case 1 -> bg == 0 ? a : -bg;
                        case 2 -> a;
                        case 3 -> r.nextBoolean() ? bg : (bg == 0 ? a : -bg);
                        case 4 -> r.nextBoolean() ? bg : a;
                        case 5 -> r.nextBoolean() ? a : b;
                        default -> r.nextGaussian();
                    };
                }
                leaves.set(leaf, off, v, active);
            }
        }
        List<VdbTile> tiles = new ArrayList<>();
        int tileCount = r.nextInt(4);
        for (int n = 0; n < tileCount; n++) {
            int edge = new int[] {8, 128, 4096}[r.nextInt(3)];
            // tiles far from the leaves: x beyond 2^20 at its own root slot per tile
            int x = (1 << 20) + n * 4096 * 2 + (edge == 4096 ? 0 : r.nextInt(32) * edge);
            int y = -(r.nextInt(4) * 4096);
            int z = (r.nextInt(8) * 4096) & -edge;
            boolean active = r.nextBoolean();
            double v = active && r.nextBoolean() ? bg : r.nextGaussian();
            v = type == VdbValueType.FLOAT ? (float) v : v;
            tiles.add(new VdbTile(x, y, z, edge, v, active));
        }
        double voxel = r.nextBoolean() ? 1.0 : 0.05 + r.nextDouble();
        double[] t = r.nextBoolean() ? new double[3] : new double[] {r.nextGaussian(), r.nextGaussian(), -1.5};
        String cls = new String[] {null, "level set", "fog volume"}[r.nextInt(3)];
        return new VdbGrid(name, type, cls, voxel, t, bg, leaves, tiles);
    }

    /** Cell for cell: the same leaves (any order), masks, values (bit for bit), tiles, metadata. */
    static void assertSameGrid(VdbGrid got, VdbGrid want) {
        assertThat(got.name()).isEqualTo(want.name());
        assertThat(got.type()).isEqualTo(want.type());
        assertThat(got.gridClass()).isEqualTo(want.gridClass());
        assertThat(got.voxelSize()).isEqualTo(want.voxelSize());
        assertThat(got.translation()).containsExactly(want.translation());
        assertThat(got.background()).isEqualTo(want.background());
        VdbLeaves g = got.leaves();
        VdbLeaves w = want.leaves();
        assertThat(g.size()).isEqualTo(w.size());
        Map<Long, Integer> index = leafIndex(g);
        for (int leaf = 0; leaf < w.size(); leaf++) {
            Integer other = index.get(key(w.x(leaf), w.y(leaf), w.z(leaf)));
            assertThat(other).as("leaf at (%d,%d,%d)", w.x(leaf), w.y(leaf), w.z(leaf)).isNotNull();
            for (int word = 0; word < 8; word++) {
                assertThat(g.maskWord(other, word)).isEqualTo(w.maskWord(leaf, word));
            }
            for (int off = 0; off < 512; off++) {
                long bitsGot = Double.doubleToRawLongBits(g.value(other, off));
                long bitsWant = Double.doubleToRawLongBits(w.value(leaf, off));
                if (bitsGot != bitsWant) {
                    assertThat(g.value(other, off)).as("leaf (%d,%d,%d) offset %d active %b", w.x(leaf), w.y(leaf),
                            w.z(leaf), off, w.active(leaf, off)).isEqualTo(w.value(leaf, off));
                }
            }
        }
        List<VdbTile> expectedTiles = want.tiles().stream()
                .filter(t -> t.active() || t.value() != want.background()).toList();
        assertThat(got.tiles()).containsExactlyInAnyOrderElementsOf(expectedTiles);
        assertThat(got.activeBoundingBox()).isEqualTo(want.activeBoundingBox());
        assertThat(got.activeVoxelCount()).isEqualTo(want.activeVoxelCount());
    }
}
