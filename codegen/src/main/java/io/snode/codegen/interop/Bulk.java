package io.snode.codegen.interop;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.PlacedField;
import io.snode.codegen.SNodeRuntime;
import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.BoxTransfer;
import io.snode.runtime.internal.GeneratedCalls;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Bulk copies between a field and Java arrays or memory segments: a box of the field's index
 * space to and from a row-major array (the last coordinate fastest), and the active cells as
 * parallel arrays of coordinates and values ({@link CellArrays}). They copy container by
 * container, one walk per container of the field's SNode instead of one call per cell, and serve
 * fields of dense and bitmasked SNodes; appends to the lists of dynamic SNodes, a chunk at a time.
 *
 * <pre>{@code
 * float[] box = new float[8 * 8 * 8];
 * Bulk.write(runtime, "phi", new int[] {64, 64, 64}, new int[] {72, 72, 72}, values); // activates the box
 * Bulk.read(runtime, "phi", new int[] {60, 60, 60}, new int[] {68, 68, 68}, box);    // zeros where inactive
 * CellArrays active = Bulk.activeCells(runtime, "phi");                              // every active cell
 * Bulk.writeCells(other, "phi", active);                                             // and into another runtime
 * }</pre>
 *
 * <p>A box is {@code [low, high)} per coordinate, inside the field's index space ({@code high}
 * may equal the extent); its array holds exactly its cells, in row-major order; a memory segment
 * holds them in native byte order. An array of the wrong type or length, or a box outside the
 * index space, is refused before anything is written.
 *
 * <p><b>Writes activate.</b> {@link #write} and {@link #writeCells} activate every cell they
 * write (and the path to it), as per-cell writes do: each container of the field's SNode is
 * activated through the runtime's activation protocol, the values are stored, then their mask
 * bits set with one atomic OR per mask word (so a reader that sees a bit sees its value).
 * <b>A bulk write is a batch, like a launch</b>, and never takes back what it published (other
 * threads may already read it). When the memory cap or an allocator fault refuses a container,
 * a box write leaves the containers before it written whole and active and nothing of that
 * container and those after it; a list write leaves a prefix of the list written and active and
 * nothing after it. Size the cap for the whole import, or import in pieces whose refusal you can
 * retry.
 *
 * <p><b>Lists of cells in any order.</b> {@link #writeCells} walks to a container once while its
 * cells keep coming (input sorted or grouped by container, as the sorted reference shell is).
 * A scattered list (shuffled, say) is grouped by container in scratch memory first, 16 bytes of
 * Java heap a cell for four-byte values and 24 for eight-byte ones, up to 4 Mi cells at a time,
 * and then written container by container; what it writes, and what it leaves on a failure,
 * are the same.
 *
 * <p><b>List appends.</b> {@link #append} appends an array of values to one list of a dynamic
 * SNode, {@link #appendAll} values to many lists (grouped by list first): as that many single
 * appends would, but taking a chunk's worth of indices with one compare-and-set of the list's
 * length and copying the values into the chunk in one piece. A refused element (a full list, the
 * memory cap, an allocator fault) ends the call with a {@link BulkAppendException} that lists the
 * elements appended before it; nothing is taken back.
 *
 * <p>Every call enters the runtime's phase lock shared, as a launch does, so no collection
 * overlaps it; it may run from a kernel and beside other threads' accesses. A cell that another
 * thread deactivates while a write copies into its container is that caller's race, as for
 * per-cell writes.
 */
public final class Bulk {
    private Bulk() {
    }

    // ------------------------------------------------------------------ boxes

    /** Writes {@code values} (the box's cells in row-major order) into the box, activating every cell; returns the cells written. */
    public static long write(SNodeRuntime runtime, String field, int[] low, int[] high, float[] values) {
        return box(runtime, field, low, high, FieldType.F32, values, values == null ? 0 : values.length, true);
    }

    public static long write(SNodeRuntime runtime, String field, int[] low, int[] high, double[] values) {
        return box(runtime, field, low, high, FieldType.F64, values, values == null ? 0 : values.length, true);
    }

    public static long write(SNodeRuntime runtime, String field, int[] low, int[] high, int[] values) {
        return box(runtime, field, low, high, FieldType.I32, values, values == null ? 0 : values.length, true);
    }

    public static long write(SNodeRuntime runtime, String field, int[] low, int[] high, long[] values) {
        return box(runtime, field, low, high, FieldType.I64, values, values == null ? 0 : values.length, true);
    }

    /** Writes the box from {@code values}: its cells in row-major order, native byte order, the field's element size each. */
    public static long write(SNodeRuntime runtime, String field, int[] low, int[] high, MemorySegment values) {
        return box(runtime, field, low, high, null, values, 0, true);
    }

    /** Reads the box into {@code into} (row-major); cells that are not active give zero, the ambient value. */
    public static void read(SNodeRuntime runtime, String field, int[] low, int[] high, float[] into) {
        box(runtime, field, low, high, FieldType.F32, into, into == null ? 0 : into.length, false);
    }

    public static void read(SNodeRuntime runtime, String field, int[] low, int[] high, double[] into) {
        box(runtime, field, low, high, FieldType.F64, into, into == null ? 0 : into.length, false);
    }

    public static void read(SNodeRuntime runtime, String field, int[] low, int[] high, int[] into) {
        box(runtime, field, low, high, FieldType.I32, into, into == null ? 0 : into.length, false);
    }

    public static void read(SNodeRuntime runtime, String field, int[] low, int[] high, long[] into) {
        box(runtime, field, low, high, FieldType.I64, into, into == null ? 0 : into.length, false);
    }

    /** Reads the box into {@code into}: row-major, native byte order, the field's element size each. */
    public static void read(SNodeRuntime runtime, String field, int[] low, int[] high, MemorySegment into) {
        box(runtime, field, low, high, null, into, 0, false);
    }

    private static long box(SNodeRuntime runtime, String name, int[] low, int[] high, FieldType arrayType, Object buffer,
                            int length, boolean write) {
        PlacedField field = field(runtime, name);
        Objects.requireNonNull(buffer, write ? "values" : "into");
        // Checked and used as one copy: another thread changing the caller's arrays cannot slip past the check.
        int[] lo = Objects.requireNonNull(low, "low").clone();
        int[] hi = Objects.requireNonNull(high, "high").clone();
        long volume = checkBox(field, lo, hi);
        MemorySegment segment;
        if (arrayType != null) {
            checkType(field, arrayType);
            if (length != volume) {
                throw new IllegalArgumentException("the box " + Arrays.toString(lo) + " to " + Arrays.toString(hi)
                        + " holds " + volume + " cells; the array has " + length);
            }
            segment = heap(buffer);
        } else {
            segment = (MemorySegment) buffer;
            long bytes = volume * field.type().byteSize();
            if (segment.byteSize() != bytes) {
                throw new IllegalArgumentException("the box " + Arrays.toString(lo) + " to " + Arrays.toString(hi)
                        + " holds " + volume + " cells of " + field.type() + " (" + bytes + " bytes); the segment has "
                        + segment.byteSize() + " bytes");
            }
            if (!write && segment.isReadOnly()) {
                throw new IllegalArgumentException("into: a read-only segment");
            }
            // Checked here, not met halfway: a write activates each container before it copies into it.
            if (!segment.scope().isAlive()) {
                throw new IllegalArgumentException((write ? "values" : "into") + ": the segment's arena is closed");
            }
            if (!segment.isAccessibleBy(Thread.currentThread())) {
                throw new IllegalArgumentException((write ? "values" : "into") + ": the segment is confined to another"
                        + " thread; pass one this thread may access (a shared or global arena's, or its own)");
            }
        }
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            // Again once the launch is entered (the call may have waited for a collection): an arena
            // another thread closes during the copy itself ends the call with FFM's exception, as a
            // refusal by the cap ends it (that is the caller's race).
            if (!segment.scope().isAlive()) {
                throw new IllegalArgumentException((write ? "values" : "into") + ": the segment's arena is closed");
            }
            BoxTransfer transfer = transfer(runtime, field);
            return write ? transfer.write(lo, hi, segment, 0) : transfer.read(lo, hi, segment, 0);
        }
    }

    // ------------------------------------------------------------------ cell lists

    /**
     * Every active cell of {@code field}, with its value, in the structure's order (container by
     * container). Only the cells: inactive cells and the ambient value are not listed.
     */
    public static CellArrays activeCells(SNodeRuntime runtime, String field) {
        PlacedField placed = field(runtime, field);
        int dimensions = placed.snode().indexShape().length;
        // Sized for the cells active now (the arrays still grow if other threads activate more).
        long expected = Math.min(Integer.MAX_VALUE - 8, Math.max(1024, runtime.count(field)));
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            BoxTransfer transfer = transfer(runtime, placed);
            Collected collected = new Collected(dimensions, placed.type(), (int) expected);
            transfer.forEachActive(collected);
            return collected.cells();
        }
    }

    /**
     * Writes {@code cells} into {@code field}, activating each; returns the cells written. The
     * containers of recent cells are remembered (up to 4096), so cells sorted by coordinates or
     * grouped by container (as {@link #activeCells} lists them) write fastest. A cell listed twice
     * ends with its last value. Every coordinate is checked before the first write.
     *
     * @throws java.util.ConcurrentModificationException when another thread changed a coordinate
     *         of the arrays during the call to one outside the index space (each is checked
     *         again where it is read): cells of the list before it are written, as after a
     *         refusal by the memory cap
     */
    public static long writeCells(SNodeRuntime runtime, String field, CellArrays cells) {
        PlacedField placed = field(runtime, field);
        Objects.requireNonNull(cells, "cells");
        checkType(placed, cells.type());
        int[][] coordinates = cells.coordinateArrays();
        List<Axis> axes = placed.snode().indexAxes();
        int[] shape = placed.snode().indexShape();
        if (coordinates.length != shape.length) {
            throw new IllegalArgumentException("field " + field + " takes " + shape.length + " coordinates " + axes
                    + "; the cells have " + coordinates.length);
        }
        for (int c = 0; c < shape.length; c++) {
            int[] axis = coordinates[c];
            int n = CoordinateChecks.firstOutside(axis, axis.length, shape[c]);
            if (n >= 0) {
                throw GeneratedCalls.outside("field " + field + ", cell " + n, axes.get(c).letter(), axis[n], shape[c]);
            }
        }
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            return transfer(runtime, placed).writeCells(coordinates, 0, cells.size(), heap(cells.values()), 0);
        }
    }

    public static long writeCells(SNodeRuntime runtime, String field, int[][] coordinates, float[] values) {
        return writeCells(runtime, field, CellArrays.ofFloats(coordinates, values));
    }

    public static long writeCells(SNodeRuntime runtime, String field, int[][] coordinates, double[] values) {
        return writeCells(runtime, field, CellArrays.ofDoubles(coordinates, values));
    }

    public static long writeCells(SNodeRuntime runtime, String field, int[][] coordinates, int[] values) {
        return writeCells(runtime, field, CellArrays.ofInts(coordinates, values));
    }

    public static long writeCells(SNodeRuntime runtime, String field, int[][] coordinates, long[] values) {
        return writeCells(runtime, field, CellArrays.ofLongs(coordinates, values));
    }

    // ------------------------------------------------------------------ list appends

    /**
     * Appends {@code values} to the list of {@code field}'s dynamic SNode at {@code list} (the
     * list's parent coordinates, as the runtime's {@code appendInt} takes them), in order, as that
     * many single appends would, a chunk's worth of indices at a time; returns the elements
     * appended ({@code values.length}). Other threads' appends to the same list may take indices
     * between the chunks'.
     *
     * @throws BulkAppendException when an element is refused (the list is full, the memory cap,
     *                             an allocator fault): the elements before it are appended, it and the ones after are not
     */
    public static long append(SNodeRuntime runtime, String field, int[] list, int[] values) {
        return Appends.one(runtime, field, list, Objects.requireNonNull(values, "values"), FieldType.I32, values.length);
    }

    public static long append(SNodeRuntime runtime, String field, int[] list, long[] values) {
        return Appends.one(runtime, field, list, Objects.requireNonNull(values, "values"), FieldType.I64, values.length);
    }

    public static long append(SNodeRuntime runtime, String field, int[] list, float[] values) {
        return Appends.one(runtime, field, list, Objects.requireNonNull(values, "values"), FieldType.F32, values.length);
    }

    public static long append(SNodeRuntime runtime, String field, int[] list, double[] values) {
        return Appends.one(runtime, field, list, Objects.requireNonNull(values, "values"), FieldType.F64, values.length);
    }

    /**
     * Appends {@code values[n]} to the list at {@code lists[0][n], lists[1][n], ...} for every
     * {@code n} (as OpenVDB's point index grid is built from a particle array): the elements are
     * grouped by list first (a stable radix sort of the lists' coordinates), then each list's are
     * appended as {@link #append(SNodeRuntime, String, int[], int[])} does, the lists in
     * coordinate order (the first axis most significant). So each list receives its elements in
     * the order of the arrays. Every coordinate is checked before the first append, in a copy of
     * {@code lists} the call then uses (another thread's changes to the arrays during the call do
     * not reach it). Returns the elements appended ({@code values.length}).
     *
     * @throws BulkAppendException when an element is refused: the elements before it in that
     *                             order are appended ({@link BulkAppendException#appended()} lists them), it and the ones after are not
     */
    public static long appendAll(SNodeRuntime runtime, String field, int[][] lists, int[] values) {
        return Appends.all(runtime, field, lists, Objects.requireNonNull(values, "values"), FieldType.I32, values.length);
    }

    public static long appendAll(SNodeRuntime runtime, String field, int[][] lists, long[] values) {
        return Appends.all(runtime, field, lists, Objects.requireNonNull(values, "values"), FieldType.I64, values.length);
    }

    public static long appendAll(SNodeRuntime runtime, String field, int[][] lists, float[] values) {
        return Appends.all(runtime, field, lists, Objects.requireNonNull(values, "values"), FieldType.F32, values.length);
    }

    public static long appendAll(SNodeRuntime runtime, String field, int[][] lists, double[] values) {
        return Appends.all(runtime, field, lists, Objects.requireNonNull(values, "values"), FieldType.F64, values.length);
    }

    // ------------------------------------------------------------------ shared

    static PlacedField field(SNodeRuntime runtime, String name) {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(name, "field");
        if (runtime.isClosed()) {
            throw new IllegalStateException("this SNodeRuntime is closed; bulk copies need an open one");
        }
        PlacedField field = runtime.layout().field(name);
        if (!BoxTransfer.supports(field.snode())) {
            throw new IllegalArgumentException("field=" + name + " lies in " + field.snode().description()
                    + ": bulk copies serve fields of dense and bitmasked SNodes");
        }
        return field;
    }

    static BoxTransfer transfer(SNodeRuntime runtime, PlacedField field) {
        return new BoxTransfer(runtime.generic().internalTree(), field);
    }

    static void checkType(PlacedField field, FieldType type) {
        if (field.type() != type) {
            throw new IllegalArgumentException("field " + field.name() + " is " + field.type() + "; got " + type
                    + " values (pass " + (field.type().javaType() == int.class ? "an " : "a ") + field.type().javaType()
                    + "[])");
        }
    }

    /** Checks the box against the field's index space; returns its cell count. */
    private static long checkBox(PlacedField field, int[] low, int[] high) {
        Objects.requireNonNull(low, "low");
        Objects.requireNonNull(high, "high");
        List<Axis> axes = field.snode().indexAxes();
        int[] shape = field.snode().indexShape();
        if (low.length != shape.length || high.length != shape.length) {
            throw new IllegalArgumentException("field " + field.name() + " takes corners of " + shape.length
                    + " coordinates " + axes + "; got " + low.length + " and " + high.length);
        }
        for (int n = 0; n < shape.length; n++) {
            if (low[n] < 0 || low[n] > shape[n]) {
                throw GeneratedCalls.cornerOutside("field " + field.name() + " low", axes.get(n).letter(), low[n], shape[n]);
            }
            if (high[n] < 0 || high[n] > shape[n]) {
                throw GeneratedCalls.cornerOutside("field " + field.name() + " high", axes.get(n).letter(), high[n], shape[n]);
            }
            if (low[n] > high[n]) {
                throw new IllegalArgumentException("field " + field.name() + ": low=" + low[n] + " > high=" + high[n]
                        + " on axis " + axes.get(n).letter());
            }
        }
        BigInteger cells = BigInteger.ONE;
        for (int n = 0; n < shape.length; n++) {
            cells = cells.multiply(BigInteger.valueOf(high[n] - low[n]));
        }
        if (cells.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("the box " + Arrays.toString(low) + " to " + Arrays.toString(high)
                    + " holds " + cells + " cells; one bulk copy takes at most " + Integer.MAX_VALUE
                    + " (a Java array's limit, kept for memory segments too): copy it in pieces");
        }
        return cells.longValueExact();
    }

    static MemorySegment heap(Object array) {
        return switch (array) {
            case float[] floats -> MemorySegment.ofArray(floats);
            case double[] doubles -> MemorySegment.ofArray(doubles);
            case int[] ints -> MemorySegment.ofArray(ints);
            case long[] longs -> MemorySegment.ofArray(longs);
            default -> throw new AssertionError(array.getClass());
        };
    }

    /** Collects the cells of {@link BoxTransfer#forEachActive} into growing arrays of the field's type. */
    private static final class Collected implements BoxTransfer.CellSink {
        private final FieldType type;
        private int[][] coordinates;
        private int[] ints;
        private long[] longs;
        private float[] floats;
        private double[] doubles;
        private int size;

        Collected(int dimensions, FieldType type, int capacity) {
            this.type = type;
            this.coordinates = new int[dimensions][];
            resize(capacity);
        }

        @Override
        public void cell(int[] at, MemorySegment segment, long offset) {
            if (size == coordinates[0].length) {
                int capacity = (int) Math.min(Integer.MAX_VALUE - 8, coordinates[0].length * 2L);
                if (capacity == size) {
                    throw new IllegalStateException("more than " + size + " active cells: more than a Java array holds");
                }
                resize(capacity);
            }
            for (int c = 0; c < at.length; c++) {
                coordinates[c][size] = at[c];
            }
            switch (type) {
                case F32 -> floats[size] = segment.get(ValueLayout.JAVA_FLOAT, offset);
                case F64 -> doubles[size] = segment.get(ValueLayout.JAVA_DOUBLE, offset);
                case I32 -> ints[size] = segment.get(ValueLayout.JAVA_INT, offset);
                case I64 -> longs[size] = segment.get(ValueLayout.JAVA_LONG, offset);
            }
            size++;
        }

        /** Gives every array {@code capacity} entries, keeping the first {@link #size}. */
        private void resize(int capacity) {
            for (int c = 0; c < coordinates.length; c++) {
                coordinates[c] = coordinates[c] == null ? new int[capacity] : Arrays.copyOf(coordinates[c], capacity);
            }
            switch (type) {
                case F32 -> floats = floats == null ? new float[capacity] : Arrays.copyOf(floats, capacity);
                case F64 -> doubles = doubles == null ? new double[capacity] : Arrays.copyOf(doubles, capacity);
                case I32 -> ints = ints == null ? new int[capacity] : Arrays.copyOf(ints, capacity);
                case I64 -> longs = longs == null ? new long[capacity] : Arrays.copyOf(longs, capacity);
            }
        }

        CellArrays cells() {
            if (coordinates[0].length != size) {
                resize(size);
            }
            return switch (type) {
                case F32 -> CellArrays.ofFloats(coordinates, floats);
                case F64 -> CellArrays.ofDoubles(coordinates, doubles);
                case I32 -> CellArrays.ofInts(coordinates, ints);
                case I64 -> CellArrays.ofLongs(coordinates, longs);
            };
        }
    }
}
