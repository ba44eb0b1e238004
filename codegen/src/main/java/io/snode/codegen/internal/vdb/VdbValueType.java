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
}
