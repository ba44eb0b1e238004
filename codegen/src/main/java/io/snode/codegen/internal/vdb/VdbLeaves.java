package io.snode.codegen.internal.vdb;

import java.util.Arrays;
import java.util.Objects;

/**
 * Columnar, growable storage of 8^3 leaves: each leaf has an origin (multiples of 8, negative
 * allowed), a 512-bit value mask (8 words) and 512 values in OpenVDB's order
 * ({@code offset = (x&7)<<6 | (y&7)<<3 | (z&7)}). Leaf {@code L}'s values are at
 * {@code [512L, 512L+512)} of {@link #floatValues()} or {@link #doubleValues()}, its mask words
 * at {@code [8L, 8L+8)} of {@link #masks()}. Those accessors return the backing arrays, valid until
 * the next {@link #add}; their length may exceed {@code size()} leaves. Not thread-safe.
 */
public final class VdbLeaves {
    private static final int SIZE = VdbFormat.LEAF_SIZE;
    private static final int WORDS = VdbFormat.LEAF_WORDS;

    private final VdbValueType type;
    private int size;
    private int[] origins;
    private long[] masks;
    private float[] floats;
    private double[] doubles;

    public VdbLeaves(VdbValueType type) {
        this(type, 16);
    }

    /** Room for {@code capacity} leaves before the arrays grow. */
    public VdbLeaves(VdbValueType type, int capacity) {
        this.type = Objects.requireNonNull(type, "type");
        if (capacity < 0 || capacity > Integer.MAX_VALUE / SIZE) {
            throw new IllegalArgumentException("capacity=" + capacity + " (allowed: 0 to "
                    + Integer.MAX_VALUE / SIZE + ")");
        }
        origins = new int[3 * capacity];
        masks = new long[WORDS * capacity];
        if (type == VdbValueType.FLOAT) {
            floats = new float[SIZE * capacity];
        } else {
            doubles = new double[SIZE * capacity];
        }
    }

    public VdbValueType type() {
        return type;
    }

    /** Adds a leaf at {@code (x0, y0, z0)}, all inactive, values 0; returns its index. */
    public int add(int x0, int y0, int z0) {
        if (((x0 | y0 | z0) & (VdbFormat.LEAF_EDGE - 1)) != 0) {
            throw new IllegalArgumentException("leaf origin (" + x0 + "," + y0 + "," + z0
                    + ") is not a multiple of 8");
        }
        if (size == Integer.MAX_VALUE / SIZE) {
            throw new IllegalStateException("VdbLeaves holds its maximum of " + size + " leaves");
        }
        if (size == origins.length / 3) {
            grow();
        }
        int leaf = size++;
        origins[3 * leaf] = x0;
        origins[3 * leaf + 1] = y0;
        origins[3 * leaf + 2] = z0;
        return leaf;
    }

    private void grow() {
        int capacity = (int) Math.min((long) Integer.MAX_VALUE / SIZE, Math.max(16L, 2L * size));
        origins = Arrays.copyOf(origins, 3 * capacity);
        masks = Arrays.copyOf(masks, WORDS * capacity);
        if (floats != null) {
            floats = Arrays.copyOf(floats, SIZE * capacity);
        } else {
            doubles = Arrays.copyOf(doubles, SIZE * capacity);
        }
    }

    public int size() {
        return size;
    }

    public int x(int leaf) {
        return origins[3 * check(leaf)];
    }

    public int y(int leaf) {
        return origins[3 * check(leaf) + 1];
    }

    public int z(int leaf) {
        return origins[3 * check(leaf) + 2];
    }

    /** Sets voxel {@code offset} of {@code leaf}; a FLOAT leaf stores {@link VdbValueType#narrow}{@code (value)}. */
    public void set(int leaf, int offset, double value, boolean active) {
        int i = index(leaf, offset);
        if (floats != null) {
            floats[i] = VdbValueType.narrow(value);
        } else {
            doubles[i] = value;
        }
        long bit = 1L << offset;
        int w = WORDS * leaf + (offset >>> 6);
        masks[w] = active ? masks[w] | bit : masks[w] & ~bit;
    }

    public double value(int leaf, int offset) {
        int i = index(leaf, offset);
        return floats != null ? VdbValueType.widen(floats[i]) : doubles[i];
    }

    public boolean active(int leaf, int offset) {
        index(leaf, offset);
        return (masks[WORDS * leaf + (offset >>> 6)] & (1L << offset)) != 0;
    }

    /** Mask word {@code word} (0..7) of {@code leaf}: bit b is offset {@code 64*word + b}. */
    public long maskWord(int leaf, int word) {
        check(leaf);
        Objects.checkIndex(word, WORDS);
        return masks[WORDS * leaf + word];
    }

    /** Sets mask word {@code word} (0..7) of {@code leaf}. */
    public void setMaskWord(int leaf, int word, long bits) {
        check(leaf);
        Objects.checkIndex(word, WORDS);
        masks[WORDS * leaf + word] = bits;
    }

    /** Active voxels of {@code leaf}. */
    public int activeCount(int leaf) {
        check(leaf);
        int n = 0;
        for (int w = WORDS * leaf, e = w + WORDS; w < e; w++) {
            n += Long.bitCount(masks[w]);
        }
        return n;
    }

    /** Active voxels of all leaves. */
    public long activeCount() {
        long n = 0;
        for (int w = 0, e = WORDS * size; w < e; w++) {
            n += Long.bitCount(masks[w]);
        }
        return n;
    }

    /** The backing values of a FLOAT store; IllegalStateException for DOUBLE. */
    public float[] floatValues() {
        if (floats == null) {
            throw new IllegalStateException("floatValues() of a " + type + " VdbLeaves; use doubleValues()");
        }
        return floats;
    }

    /** The backing values of a DOUBLE store; IllegalStateException for FLOAT. */
    public double[] doubleValues() {
        if (doubles == null) {
            throw new IllegalStateException("doubleValues() of a " + type + " VdbLeaves; use floatValues()");
        }
        return doubles;
    }

    /** The backing mask words. */
    public long[] masks() {
        return masks;
    }

    private int check(int leaf) {
        return Objects.checkIndex(leaf, size);
    }

    private int index(int leaf, int offset) {
        check(leaf);
        Objects.checkIndex(offset, SIZE);
        return SIZE * leaf + offset;
    }
}
