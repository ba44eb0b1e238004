package io.snode.codegen.interop;

import io.snode.api.FieldType;
import java.util.Objects;

/**
 * Cells of one field as parallel arrays: cell {@code n} lies at
 * {@code (coordinates(0)[n], coordinates(1)[n], ...)} in the field's index space and holds the
 * value at index {@code n} of the typed value array ({@link #floats()}, {@link #doubles()},
 * {@link #ints()} or {@link #longs()}, after the field's type). {@link Bulk#activeCells} makes one
 * from a runtime; {@link Bulk#writeCells} writes one into a runtime. The arrays are shared, not
 * copied.
 */
public final class CellArrays {
    private final FieldType type;
    private final int[][] coordinates;
    private final Object values;
    private final int size;

    private CellArrays(FieldType type, int[][] coordinates, Object values, int size) {
        Objects.requireNonNull(coordinates, "coordinates");
        if (coordinates.length == 0) {
            throw new IllegalArgumentException("coordinates: one array per axis, got none");
        }
        for (int axis = 0; axis < coordinates.length; axis++) {
            Objects.requireNonNull(coordinates[axis], "coordinates[" + axis + "]");
            if (coordinates[axis].length != size) {
                throw new IllegalArgumentException("coordinates[" + axis + "] has " + coordinates[axis].length
                        + " entries; the values have " + size);
            }
        }
        this.type = type;
        // Its own array of the axes (the axes themselves are shared, not copied): a caller that
        // replaces an axis afterwards cannot bypass the length check above.
        this.coordinates = coordinates.clone();
        this.values = values;
        this.size = size;
    }

    public static CellArrays ofFloats(int[][] coordinates, float[] values) {
        return new CellArrays(FieldType.F32, coordinates, values, Objects.requireNonNull(values, "values").length);
    }

    public static CellArrays ofDoubles(int[][] coordinates, double[] values) {
        return new CellArrays(FieldType.F64, coordinates, values, Objects.requireNonNull(values, "values").length);
    }

    public static CellArrays ofInts(int[][] coordinates, int[] values) {
        return new CellArrays(FieldType.I32, coordinates, values, Objects.requireNonNull(values, "values").length);
    }

    public static CellArrays ofLongs(int[][] coordinates, long[] values) {
        return new CellArrays(FieldType.I64, coordinates, values, Objects.requireNonNull(values, "values").length);
    }

    /** The values' type: that of the field they belong to. */
    public FieldType type() {
        return type;
    }

    public int size() {
        return size;
    }

    public int dimensions() {
        return coordinates.length;
    }

    /** Coordinate {@code axis} of every cell (the axis's position among the field's index axes). */
    public int[] coordinates(int axis) {
        return coordinates[Objects.checkIndex(axis, coordinates.length)];
    }

    int[][] coordinateArrays() {
        return coordinates;
    }

    Object values() {
        return values;
    }

    public float[] floats() {
        return (float[]) typed(FieldType.F32);
    }

    public double[] doubles() {
        return (double[]) typed(FieldType.F64);
    }

    public int[] ints() {
        return (int[]) typed(FieldType.I32);
    }

    public long[] longs() {
        return (long[]) typed(FieldType.I64);
    }

    private Object typed(FieldType wanted) {
        if (type != wanted) {
            throw new IllegalStateException("these cells hold " + type + " values, not " + wanted);
        }
        return values;
    }

    @Override
    public String toString() {
        return size + " cells of " + type + " in " + coordinates.length + " dimensions";
    }
}
