package io.snode.codegen.internal.vdb;

/**
 * The value types of the grids this codec reads and writes: OpenVDB's {@code FloatGrid} and
 * {@code DoubleGrid}, whose trees are the default 5-4-3 configuration. {@link #treeTypeName()} is
 * the grid type name a file's grid descriptor holds.
 */
public enum VdbValueType {
    /** 32-bit IEEE 754 values, tree type {@code Tree_float_5_4_3}. */
    FLOAT("Tree_float_5_4_3", Float.BYTES),
    /** 64-bit IEEE 754 values, tree type {@code Tree_double_5_4_3}. */
    DOUBLE("Tree_double_5_4_3", Double.BYTES);

    private final String treeTypeName;
    private final int bytes;

    VdbValueType(String treeTypeName, int bytes) {
        this.treeTypeName = treeTypeName;
        this.bytes = bytes;
    }

    /** The grid type name in a grid descriptor, e.g. {@code "Tree_float_5_4_3"}. */
    public String treeTypeName() {
        return treeTypeName;
    }

    /** Bytes per value in the file. */
    public int bytes() {
        return bytes;
    }

    /** The type whose {@link #treeTypeName()} is {@code name}, or null. */
    public static VdbValueType ofTreeTypeName(String name) {
        for (VdbValueType t : values()) {
            if (t.treeTypeName.equals(name)) {
                return t;
            }
        }
        return null;
    }

    /**
     * A float as a double, every bit kept: Java's widening keeps every value but may set a
     * signalling NaN's quiet bit (x86's conversion does), so a NaN is moved bit by bit (its
     * payload in the double's top fraction bits); {@link #narrow} takes it back exactly. Values
     * of FLOAT grids travel as doubles between the file and the leaves through these two.
     */
    static double widen(float value) {
        if (value == value) {
            return value;
        }
        int bits = Float.floatToRawIntBits(value);
        long sign = (long) (bits >>> 31) << 63;
        long fraction = (long) (bits & 0x7F_FFFF) << 29;
        return Double.longBitsToDouble(sign | 0x7FF0_0000_0000_0000L | fraction);
    }

    /** {@link #widen}'s inverse for every float; other doubles narrow as a cast does (a NaN keeps its top fraction bits, at least one set). */
    static float narrow(double value) {
        if (value == value) {
            return (float) value;
        }
        long bits = Double.doubleToRawLongBits(value);
        int sign = (int) (bits >>> 63) << 31;
        int fraction = (int) (bits >>> 29) & 0x7F_FFFF;
        return Float.intBitsToFloat(sign | 0x7F80_0000 | (fraction == 0 ? 0x40_0000 : fraction));
    }
}
