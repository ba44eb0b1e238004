package io.snode.codegen.internal.vdb;

import static io.snode.codegen.internal.vdb.VdbFormat.LEAF_LOG2;
import static io.snode.codegen.internal.vdb.VdbFormat.LEAF_SIZE;
import static io.snode.codegen.internal.vdb.VdbFormat.LEAF_WORDS;
import static io.snode.codegen.internal.vdb.VdbFormat.LOWER_EDGE;
import static io.snode.codegen.internal.vdb.VdbFormat.LOWER_LOG2;
import static io.snode.codegen.internal.vdb.VdbFormat.LOWER_SIZE;
import static io.snode.codegen.internal.vdb.VdbFormat.LOWER_WORDS;
import static io.snode.codegen.internal.vdb.VdbFormat.UPPER_EDGE;
import static io.snode.codegen.internal.vdb.VdbFormat.UPPER_LOG2;
import static io.snode.codegen.internal.vdb.VdbFormat.UPPER_SIZE;
import static io.snode.codegen.internal.vdb.VdbFormat.UPPER_WORDS;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds OpenVDB's 5-4-3 tree of one grid from its leaves (any order, negative origins included)
 * and tiles, and writes its topology ({@code RootNode/InternalNode/LeafNode::writeTopology}) and
 * its leaf buffers ({@code writeBuffers}). The root's children are keyed and written in the order
 * of their origins compared as (x, y, z) signed, as OpenVDB's root map orders them (the reader
 * reads the buffers in that order); an internal node's children go in offset order. Leaves with
 * no active voxel are kept (their inactive values are data too). Two leaves at one origin, two
 * tiles at one place, or a tile over a leaf or a smaller tile are an IllegalArgumentException.
 */
final class TreeWriter {
    /** Bytes OpenVDB's {@code memUsage()} counts per node, for the {@code file_mem_bytes} statistic. */
    private static final long LEAF_BYTES_BASE = 96;
    private static final long LOWER_BYTES = LOWER_SIZE * 8L + 2 * LOWER_WORDS * 8L + 12;
    private static final long UPPER_BYTES = UPPER_SIZE * 8L + 2 * UPPER_WORDS * 8L + 12;
    private static final long TREE_BYTES = 1304;

    private record Key(int x, int y, int z) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Integer.compare(x, o.x);
            if (c == 0) {
                c = Integer.compare(y, o.y);
            }
            return c != 0 ? c : Integer.compare(z, o.z);
        }
    }

    private static final class Lower {
        final int x;
        final int y;
        final int z;
        final long[] childMask = new long[LOWER_WORDS];
        final Map<Integer, VdbTile> tiles = new HashMap<>();
        int[] leaves = new int[8];
        int leafCount;

        Lower(int x, int y, int z) {
            this.x = x;
            this.y = y;
            this.z = z;
        }
    }

    private static final class Upper {
        final Key origin;
        final TreeMap<Integer, Lower> lowers = new TreeMap<>();
        final Map<Integer, VdbTile> tiles = new HashMap<>();

        Upper(Key origin) {
            this.origin = origin;
        }
    }

    private final VdbGrid grid;
    private final VdbLeaves leaves;
    private final double background;
    private final TreeMap<Key, Upper> uppers = new TreeMap<>();
    private final TreeMap<Key, VdbTile> rootTiles = new TreeMap<>();
    private int lowerCount;

    TreeWriter(VdbGrid grid) {
        this.grid = grid;
        this.leaves = grid.leaves();
        this.background = grid.background();
        placeLeaves();
        for (VdbTile t : grid.tiles()) {
            placeTile(t);
        }
    }

    private static Key rootKey(int x, int y, int z) {
        return new Key(x & -UPPER_EDGE, y & -UPPER_EDGE, z & -UPPER_EDGE);
    }

    private void placeLeaves() {
        TreeMap<Key, long[]> groups = new TreeMap<>();
        Map<Key, Integer> sizes = new HashMap<>();
        for (int leaf = 0, n = leaves.size(); leaf < n; leaf++) {
            int x = leaves.x(leaf);
            int y = leaves.y(leaf);
            int z = leaves.z(leaf);
            Key k = rootKey(x, y, z);
            long within = (long) VdbFormat.offset(x, y, z, UPPER_LOG2, LOWER_LOG2 + LEAF_LOG2) << 12
                    | VdbFormat.offset(x, y, z, LOWER_LOG2, LEAF_LOG2);
            int size = sizes.getOrDefault(k, 0);
            long[] g = groups.get(k);
            if (g == null || g.length == size) {
                g = g == null ? new long[16] : Arrays.copyOf(g, 2 * g.length);
                groups.put(k, g);
            }
            g[size] = within << 32 | leaf;
            sizes.put(k, size + 1);
        }
        for (Map.Entry<Key, long[]> e : groups.entrySet()) {
            long[] g = e.getValue();
            int size = sizes.get(e.getKey());
            Arrays.sort(g, 0, size);
            Upper u = new Upper(e.getKey());
            uppers.put(u.origin, u);
            for (int i = 0; i < size; i++) {
                long within = g[i] >>> 32;
                int leaf = (int) g[i];
                if (i > 0 && within == g[i - 1] >>> 32) {
                    int other = (int) g[i - 1];
                    throw new IllegalArgumentException("grid '" + grid.name() + "': leaves " + other + " and " + leaf
                            + " have the same origin (" + leaves.x(leaf) + "," + leaves.y(leaf) + ","
                            + leaves.z(leaf) + ")");
                }
                Lower l = lower(u, (int) (within >>> 12), leaves.x(leaf), leaves.y(leaf), leaves.z(leaf));
                int off = (int) (within & 4095);
                l.childMask[off >>> 6] |= 1L << off;
                if (l.leafCount == l.leaves.length) {
                    l.leaves = Arrays.copyOf(l.leaves, 2 * l.leaves.length);
                }
                l.leaves[l.leafCount++] = leaf;
            }
        }
    }

    private Lower lower(Upper u, int upperOffset, int x, int y, int z) {
        Lower l = u.lowers.get(upperOffset);
        if (l == null) {
            l = new Lower(x & -LOWER_EDGE, y & -LOWER_EDGE, z & -LOWER_EDGE);
            u.lowers.put(upperOffset, l);
            lowerCount++;
        }
        return l;
    }

    private void placeTile(VdbTile t) {
        Key k = rootKey(t.x(), t.y(), t.z());
        if (t.edge() == UPPER_EDGE) {
            if (uppers.containsKey(k) || rootTiles.containsKey(k)) {
                throw conflict(t);
            }
            rootTiles.put(k, t);
            return;
        }
        if (rootTiles.containsKey(k)) {
            throw conflict(t);
        }
        Upper u = uppers.computeIfAbsent(k, Upper::new);
        int uo = VdbFormat.offset(t.x(), t.y(), t.z(), UPPER_LOG2, LOWER_LOG2 + LEAF_LOG2);
        if (t.edge() == LOWER_EDGE) {
            if (u.lowers.containsKey(uo) || u.tiles.putIfAbsent(uo, t) != null) {
                throw conflict(t);
            }
            return;
        }
        if (u.tiles.containsKey(uo)) {
            throw conflict(t);
        }
        Lower l = lower(u, uo, t.x(), t.y(), t.z());
        int lo = VdbFormat.offset(t.x(), t.y(), t.z(), LOWER_LOG2, LEAF_LOG2);
        if ((l.childMask[lo >>> 6] & 1L << lo) != 0 || l.tiles.putIfAbsent(lo, t) != null) {
            throw conflict(t);
        }
    }

    private IllegalArgumentException conflict(VdbTile t) {
        return new IllegalArgumentException("grid '" + grid.name() + "': tile " + t
                + " overlaps another tile or a leaf (each place holds one tile, one leaf or finer nodes)");
    }

    /** OpenVDB's {@code memUsage()} of this tree, as its {@code file_mem_bytes} statistic holds it. */
    long memBytes() {
        long leafBytes = LEAF_BYTES_BASE + (long) LEAF_SIZE * grid.type().bytes();
        long tree = TREE_BYTES + (grid.type() == VdbValueType.DOUBLE ? 8 : 0);
        return tree + uppers.size() * UPPER_BYTES + lowerCount * LOWER_BYTES + leaves.size() * leafBytes;
    }

    /** Writes the buffer count and the root's topology. */
    void writeTopology(VdbOutput out, NodeValues values, int flags) throws IOException {
        VdbValueType type = grid.type();
        out.putInt(1);
        out.putValue(type, background);
        out.putInt(rootTiles.size());
        out.putInt(uppers.size());
        for (VdbTile t : rootTiles.values()) {
            out.putInt(t.x());
            out.putInt(t.y());
            out.putInt(t.z());
            out.putValue(type, t.value());
            out.putByte(t.active() ? 1 : 0);
        }
        double[] scratch = new double[UPPER_SIZE];
        long[] childMask = new long[UPPER_WORDS];
        long[] valueMask = new long[UPPER_WORDS];
        for (Upper u : uppers.values()) {
            out.putInt(u.origin.x());
            out.putInt(u.origin.y());
            out.putInt(u.origin.z());
            Arrays.fill(childMask, 0);
            for (int off : u.lowers.keySet()) {
                childMask[off >>> 6] |= 1L << off;
            }
            writeNode(out, values, flags, u.tiles, childMask, valueMask, scratch, UPPER_SIZE);
            long[] lowerValueMask = new long[LOWER_WORDS];
            for (Lower l : u.lowers.values()) {
                writeNode(out, values, flags, l.tiles, l.childMask, lowerValueMask, scratch, LOWER_SIZE);
                long[] masks = leaves.masks();
                for (int i = 0; i < l.leafCount; i++) {
                    out.putLongs(masks, LEAF_WORDS * l.leaves[i], LEAF_WORDS);
                }
            }
        }
    }

    private void writeNode(VdbOutput out, NodeValues values, int flags, Map<Integer, VdbTile> tiles,
            long[] childMask, long[] valueMask, double[] scratch, int n) throws IOException {
        Arrays.fill(valueMask, 0);
        Arrays.fill(scratch, 0, n, background);
        for (Map.Entry<Integer, VdbTile> e : tiles.entrySet()) {
            int off = e.getKey();
            scratch[off] = e.getValue().value();
            if (e.getValue().active()) {
                valueMask[off >>> 6] |= 1L << off;
            }
        }
        int words = n >>> 6;
        for (int w = 0; w < words; w++) {
            long c = childMask[w];
            while (c != 0) {
                scratch[64 * w + Long.numberOfTrailingZeros(c)] = 0;
                c &= c - 1;
            }
        }
        out.putLongs(childMask, 0, words);
        out.putLongs(valueMask, 0, words);
        values.write(out, flags, background, scratch, n, valueMask, 0, childMask, 0);
    }

    /** Writes every leaf's buffer: its value mask again, then its values. */
    void writeBuffers(VdbOutput out, NodeValues values, int flags) throws IOException {
        long[] masks = leaves.masks();
        float[] floats = grid.type() == VdbValueType.FLOAT ? leaves.floatValues() : null;
        double[] doubles = floats == null ? leaves.doubleValues() : null;
        double[] scratch = new double[LEAF_SIZE];
        for (Upper u : uppers.values()) {
            for (Lower l : u.lowers.values()) {
                for (int i = 0; i < l.leafCount; i++) {
                    int leaf = l.leaves[i];
                    out.putLongs(masks, LEAF_WORDS * leaf, LEAF_WORDS);
                    int base = LEAF_SIZE * leaf;
                    if (floats != null) {
                        for (int v = 0; v < LEAF_SIZE; v++) {
                            scratch[v] = VdbValueType.widen(floats[base + v]);
                        }
                    } else {
                        System.arraycopy(doubles, base, scratch, 0, LEAF_SIZE);
                    }
                    values.write(out, flags, background, scratch, LEAF_SIZE, masks, LEAF_WORDS * leaf, null, 0);
                }
            }
        }
    }
}
