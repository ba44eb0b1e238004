package io.snode.codegen.internal.vdb;

import static io.snode.codegen.internal.vdb.VdbFormat.LEAF_EDGE;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads one grid's 5-4-3 tree: the topology ({@code RootNode/InternalNode/LeafNode::readTopology}:
 * the root's background and tile/child table, each internal node's masks and values, each leaf's
 * value mask) and then the leaf buffers ({@code readBuffers}), which come in the order of the
 * root's children sorted by origin, as OpenVDB's root map visits them. Tiles are returned when
 * active or when their value differs from the background (the others are the background itself).
 */
final class TreeReader {
    private final VdbInput in;
    private final VdbValueType type;
    private final int flags;
    private final NodeValues values;
    private final List<VdbTile> tiles = new ArrayList<>();
    private VdbLeaves leaves;
    private double background;
    /** Per root child: origin x, y, z, first leaf, leaf count. */
    private int[] children = new int[0];

    TreeReader(VdbInput in, VdbValueType type, int flags, NodeValues values) {
        this.in = in;
        this.type = type;
        this.flags = flags;
        this.values = values;
    }

    double background() {
        return background;
    }

    VdbLeaves leaves() {
        return leaves;
    }

    List<VdbTile> tiles() {
        return tiles;
    }

    void readTopology() throws IOException {
        long at = in.position();
        int bufferCount = in.readInt();
        if (bufferCount != 1) {
            throw in.fail("tree buffer count " + bufferCount + " at offset " + at
                    + " is not supported (supported: 1)");
        }
        background = in.readValue(type);
        long tileCount = Integer.toUnsignedLong(in.readInt());
        long childCount = Integer.toUnsignedLong(in.readInt());
        long tileBytes = 13L + type.bytes();
        long minChildBytes = 12L + 2 * UPPER_WORDS * 8L + 1;
        if (tileCount * tileBytes + childCount * minChildBytes > in.size() - in.position()) {
            throw in.fail("root node with " + tileCount + " tiles and " + childCount + " children at offset " + at
                    + " does not fit in the file: truncated or damaged file");
        }
        leaves = new VdbLeaves(type, 64);
        for (long i = 0; i < tileCount; i++) {
            int x = in.readInt();
            int y = in.readInt();
            int z = in.readInt();
            checkOrigin(x, y, z, UPPER_EDGE, "root tile");
            double v = in.readValue(type);
            boolean active = in.readByte() != 0;
            addTile(x, y, z, UPPER_EDGE, v, active);
        }
        children = new int[5 * (int) childCount];
        double[] scratch = new double[UPPER_SIZE];
        long[] upperChild = new long[UPPER_WORDS];
        long[] upperValue = new long[UPPER_WORDS];
        long[] lowerChild = new long[LOWER_WORDS];
        long[] lowerValue = new long[LOWER_WORDS];
        for (int c = 0; c < childCount; c++) {
            int x = in.readInt();
            int y = in.readInt();
            int z = in.readInt();
            checkOrigin(x, y, z, UPPER_EDGE, "root child");
            int first = leaves.size();
            readNode(x, y, z, UPPER_LOG2, LOWER_LOG2 + LEAF_LOG2, upperChild, upperValue, scratch);
            for (int w = 0; w < UPPER_WORDS; w++) {
                for (long bits = upperChild[w]; bits != 0; bits &= bits - 1) {
                    int off = 64 * w + Long.numberOfTrailingZeros(bits);
                    int lx = x + (off >> 10) * LOWER_EDGE;
                    int ly = y + ((off >> 5) & 31) * LOWER_EDGE;
                    int lz = z + (off & 31) * LOWER_EDGE;
                    readNode(lx, ly, lz, LOWER_LOG2, LEAF_LOG2, lowerChild, lowerValue, scratch);
                    for (int v = 0; v < LOWER_WORDS; v++) {
                        for (long lb = lowerChild[v]; lb != 0; lb &= lb - 1) {
                            int lo = 64 * v + Long.numberOfTrailingZeros(lb);
                            int leaf = leaves.add(lx + (lo >> 8) * LEAF_EDGE, ly + ((lo >> 4) & 15) * LEAF_EDGE,
                                    lz + (lo & 15) * LEAF_EDGE);
                            in.readLongs(leaves.masks(), LEAF_WORDS * leaf, LEAF_WORDS);
                        }
                    }
                }
            }
            children[5 * c] = x;
            children[5 * c + 1] = y;
            children[5 * c + 2] = z;
            children[5 * c + 3] = first;
            children[5 * c + 4] = leaves.size() - first;
        }
    }

    private void checkOrigin(int x, int y, int z, int edge, String what) throws IOException {
        if (((x | y | z) & (edge - 1)) != 0) {
            throw in.fail(what + " origin (" + x + "," + y + "," + z + ") at offset " + (in.position() - 12)
                    + " is not a multiple of " + edge + ": damaged file");
        }
    }

    /** An internal node's masks and values; its tiles go to {@link #tiles}. */
    private void readNode(int x, int y, int z, int log2, int childShift, long[] childMask, long[] valueMask,
            double[] scratch) throws IOException {
        int n = 1 << 3 * log2;
        int words = n >>> 6;
        in.readLongs(childMask, 0, words);
        in.readLongs(valueMask, 0, words);
        values.read(in, flags, background, scratch, n, valueMask, 0);
        int edge = 1 << childShift;
        for (int w = 0; w < words; w++) {
            long child = childMask[w];
            long on = valueMask[w] & ~child;
            for (int b = 0, off = 64 * w; b < 64; b++, off++) {
                long bit = 1L << b;
                if ((child & bit) == 0 && ((on & bit) != 0 || scratch[off] != background)) {
                    int tx = x + (off >> 2 * log2) * edge;
                    int ty = y + ((off >> log2) & ((1 << log2) - 1)) * edge;
                    int tz = z + (off & ((1 << log2) - 1)) * edge;
                    addTile(tx, ty, tz, edge, scratch[off], (on & bit) != 0);
                }
            }
        }
    }

    private void addTile(int x, int y, int z, int edge, double value, boolean active) {
        if (active || value != background) {
            tiles.add(new VdbTile(x, y, z, edge, value, active));
        }
    }

    /** Reads the leaf buffers, root children in origin order. */
    void readBuffers() throws IOException {
        int count = children.length / 5;
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            for (int k = 0; k < 3; k++) {
                int c = Integer.compare(children[5 * a + k], children[5 * b + k]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        double[] scratch = new double[LEAF_SIZE];
        long[] masks = leaves.masks();
        float[] floats = type == VdbValueType.FLOAT ? leaves.floatValues() : null;
        double[] doubles = floats == null ? leaves.doubleValues() : null;
        for (int c : order) {
            int first = children[5 * c + 3];
            for (int leaf = first, end = first + children[5 * c + 4]; leaf < end; leaf++) {
                in.skip(LEAF_WORDS * 8L);
                values.read(in, flags, background, scratch, LEAF_SIZE, masks, LEAF_WORDS * leaf);
                int base = LEAF_SIZE * leaf;
                if (floats != null) {
                    for (int v = 0; v < LEAF_SIZE; v++) {
                        floats[base + v] = VdbValueType.narrow(scratch[v]);
                    }
                } else {
                    System.arraycopy(scratch, 0, doubles, base, LEAF_SIZE);
                }
            }
        }
    }
}
