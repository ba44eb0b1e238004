package io.snode.codegen.internal.vdb;

/**
 * A tile: one value for a whole cube of voxels in place of a child node. {@code (x, y, z)} is the
 * cube's minimum corner, a multiple of {@code edge}. In the 5-4-3 tree {@code edge} is 8 (a tile in
 * a 16^3 internal node, in place of a leaf), 128 (a tile in the 32^3 internal node, in place of a
 * 16^3 node) or 4096 (a tile in the root's table, in place of a 32^3 node).
 */
public record VdbTile(int x, int y, int z, int edge, double value, boolean active) {
    public VdbTile {
        if (edge != VdbFormat.LEAF_EDGE && edge != VdbFormat.LOWER_EDGE && edge != VdbFormat.UPPER_EDGE) {
            throw new IllegalArgumentException("edge=" + edge + " (allowed: 8, 128, 4096)");
        }
        if (((x | y | z) & (edge - 1)) != 0) {
            throw new IllegalArgumentException("tile origin (" + x + "," + y + "," + z
                    + ") is not a multiple of edge=" + edge);
        }
    }

    /** Voxels the tile covers: {@code edge^3}. */
    public long voxelCount() {
        return (long) edge * edge * edge;
    }
}
