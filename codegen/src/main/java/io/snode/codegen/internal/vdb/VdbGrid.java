package io.snode.codegen.internal.vdb;

import java.util.List;
import java.util.Objects;

/**
 * One grid of a {@code .vdb} file: its name, value type, class ({@code "level set"},
 * {@code "fog volume"}, or null for unknown), a uniform-scale-and-translate transform (voxel size
 * and the world position of voxel (0,0,0)), the background value, the leaves and the tiles.
 * Immutable apart from the contents of its {@link VdbLeaves}.
 */
public final class VdbGrid {
    private final String name;
    private final VdbValueType type;
    private final String gridClass;
    private final double voxelSize;
    private final double[] translation;
    private final double background;
    private final VdbLeaves leaves;
    private final List<VdbTile> tiles;

    public VdbGrid(String name, VdbValueType type, String gridClass, double voxelSize,
            double[] translation, double background, VdbLeaves leaves, List<VdbTile> tiles) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.gridClass = gridClass;
        if (!(voxelSize > 0) || Double.isInfinite(voxelSize)) {
            throw new IllegalArgumentException("voxelSize=" + voxelSize + " (allowed: finite and > 0)");
        }
        this.voxelSize = voxelSize;
        Objects.requireNonNull(translation, "translation");
        if (translation.length != 3) {
            throw new IllegalArgumentException("translation.length=" + translation.length + " (must be 3)");
        }
        this.translation = translation.clone();
        this.background = type == VdbValueType.FLOAT ? VdbValueType.widen(VdbValueType.narrow(background)) : background;
        this.leaves = Objects.requireNonNull(leaves, "leaves");
        if (leaves.type() != type) {
            throw new IllegalArgumentException("leaves.type()=" + leaves.type() + " differs from type=" + type);
        }
        this.tiles = List.copyOf(tiles);
    }

    public String name() {
        return name;
    }

    public VdbValueType type() {
        return type;
    }

    /** {@code "level set"}, {@code "fog volume"}, another class name, or null (unknown). */
    public String gridClass() {
        return gridClass;
    }

    public double voxelSize() {
        return voxelSize;
    }

    /** A copy of the world position of voxel (0,0,0). */
    public double[] translation() {
        return translation.clone();
    }

    /** The background; for FLOAT, already rounded to float. */
    public double background() {
        return background;
    }

    public VdbLeaves leaves() {
        return leaves;
    }

    public List<VdbTile> tiles() {
        return tiles;
    }

    /** Active voxels of the leaves plus the voxels of the active tiles. */
    public long activeVoxelCount() {
        long n = leaves.activeCount();
        for (VdbTile t : tiles) {
            if (t.active()) {
                n += t.voxelCount();
            }
        }
        return n;
    }

    /**
     * {@code {minX, minY, minZ, maxX, maxY, maxZ}}, inclusive, over the active voxels and active
     * tiles, or null when there are none.
     */
    public int[] activeBoundingBox() {
        int[] b = {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE,
            Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE};
        boolean any = false;
        long[] masks = leaves.masks();
        for (int leaf = 0, n = leaves.size(); leaf < n; leaf++) {
            int x0 = leaves.x(leaf);
            int y0 = leaves.y(leaf);
            int z0 = leaves.z(leaf);
            for (int w = 0; w < VdbFormat.LEAF_WORDS; w++) {
                long bits = masks[VdbFormat.LEAF_WORDS * leaf + w];
                while (bits != 0) {
                    int off = 64 * w + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    include(b, x0 + (off >> 6), y0 + ((off >> 3) & 7), z0 + (off & 7));
                    any = true;
                }
            }
        }
        for (VdbTile t : tiles) {
            if (t.active()) {
                include(b, t.x(), t.y(), t.z());
                include(b, t.x() + t.edge() - 1, t.y() + t.edge() - 1, t.z() + t.edge() - 1);
                any = true;
            }
        }
        return any ? b : null;
    }

    private static void include(int[] b, int x, int y, int z) {
        b[0] = Math.min(b[0], x);
        b[1] = Math.min(b[1], y);
        b[2] = Math.min(b[2], z);
        b[3] = Math.max(b[3], x);
        b[4] = Math.max(b[4], y);
        b[5] = Math.max(b[5], z);
    }

    @Override
    public String toString() {
        return "VdbGrid[" + name + ", " + type + ", class=" + gridClass + ", voxelSize=" + voxelSize
                + ", leaves=" + leaves.size() + ", tiles=" + tiles.size() + "]";
    }
}
