package io.snode.codegen.interop;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.ListAppend;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Bulk#append} and {@link Bulk#appendAll} do: check every argument before the first
 * append, group the elements by list (a stable least-significant-digit radix sort of the lists'
 * coordinates, skipped when they come sorted), gather the values in that order, then append each
 * list's run with {@link ListAppend} (a chunk's worth of indices per compare-and-set) under the
 * runtime's phase lock, shared. A refusal ends the call with a {@link BulkAppendException} that
 * lists the elements appended: those before the refused one in the grouped order.
 */
final class Appends {
    /** Bits sorted per pass, at most: 4,096 buckets. */
    private static final int DIGIT_BITS = 12;
    /** Bits of an element's index in a grouped entry (a Java array's indices fit). */
    static final int INDEX_BITS = 31;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    /** The key of every entry when the lists' coordinates do not pack into the bits above the index. */
    static final long UNPACKED = 0;

    private Appends() {
    }

    static long one(SNodeRuntime runtime, String name, int[] list, Object values, FieldType type, int length) {
        PlacedField field = listField(runtime, name, type);
        // Checked and used as one copy: another thread changing the caller's array cannot slip past the check.
        int[] at = Objects.requireNonNull(list, "list").clone();
        checkList(field, at, "the list");
        MemorySegment segment = Bulk.heap(values);
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            ListAppend append = new ListAppend(runtime.generic().internalTree(), field);
            long done = append.append(at, segment, 0, length);
            if (done < length) {
                int[] appended = new int[(int) done];
                Arrays.setAll(appended, n -> n);
                throw refused(field, appended, (int) done, at, length, append.refusal());
            }
            return done;
        }
    }

    static long all(SNodeRuntime runtime, String name, int[][] lists, Object valuesArray, FieldType type, int length) {
        PlacedField field = listField(runtime, name, type);
        // Checked and used as one copy (the outer array and each axis): the grouping reads each
        // coordinate twice, so another thread changing the caller's arrays during the call could
        // otherwise send an element to another list, or twice to one.
        lists = Objects.requireNonNull(lists, "lists").clone();
        SNode parent = field.snode().parent();
        int[] shape = parent.indexShape();
        List<Axis> axes = parent.indexAxes();
        if (lists.length != shape.length) {
            throw new IllegalArgumentException("the lists of field " + name + " are cells of " + parent.path()
                    + ", which takes " + shape.length + " coordinates " + axes + "; got " + lists.length + " arrays");
        }
        for (int c = 0; c < shape.length; c++) {
            int[] axis = Objects.requireNonNull(lists[c], "lists[" + c + "]").clone();
            lists[c] = axis;
            if (axis.length != length) {
                throw new IllegalArgumentException("lists[" + c + "] has " + axis.length + " coordinates; the values have "
                        + length);
            }
            int n = CoordinateChecks.firstOutside(axis, length, shape[c]);
            if (n >= 0) {
                throw GeneratedCalls.outside("field " + name + ", the list of element " + n, axes.get(c).letter(),
                        axis[n], shape[c]);
            }
        }
        long[] grouped = group(lists, shape, length);
        MemorySegment values = gather(Bulk.heap(valuesArray), type.byteSize(), grouped);
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            ListAppend append = new ListAppend(runtime.generic().internalTree(), field);
            int[] list = new int[shape.length];
            int start = 0;
            while (start < length) {
                int first = index(grouped[start]);
                for (int c = 0; c < list.length; c++) {
                    list[c] = lists[c][first];
                }
                long key = grouped[start] >>> INDEX_BITS;
                int end = start + 1;
                while (end < length && grouped[end] >>> INDEX_BITS == key
                        && (key != UNPACKED || sameList(lists, first, index(grouped[end])))) {
                    end++;
                }
                long done = append.append(list, values, start, end);
                if (done < end - start) {
                    int stop = start + (int) done;
                    int[] appended = new int[stop];
                    Arrays.setAll(appended, n -> index(grouped[n]));
                    Arrays.sort(appended);
                    throw refused(field, appended, index(grouped[stop]), list, length, append.refusal());
                }
                start = end;
            }
            return length;
        }
    }

    private static PlacedField listField(SNodeRuntime runtime, String name, FieldType type) {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(name, "field");
        if (runtime.isClosed()) {
            throw new IllegalStateException("this SNodeRuntime is closed; bulk appends need an open one");
        }
        PlacedField field = runtime.layout().field(name);
        if (field.snode().kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("field=" + name + " lies in " + field.snode().description()
                    + ": bulk appends serve fields of dynamic SNodes (list elements)");
        }
        Bulk.checkType(field, type);
        return field;
    }

    private static void checkList(PlacedField field, int[] list, String what) {
        SNode parent = field.snode().parent();
        int[] shape = parent.indexShape();
        List<Axis> axes = parent.indexAxes();
        if (list.length != shape.length) {
            throw new IllegalArgumentException("the lists of field " + field.name() + " are cells of " + parent.path()
                    + ", which takes " + shape.length + " coordinates " + axes + "; got " + list.length);
        }
        for (int c = 0; c < shape.length; c++) {
            if (list[c] < 0 || list[c] >= shape[c]) {
                throw GeneratedCalls.outside("field " + field.name() + ", " + what, axes.get(c).letter(), list[c],
                        shape[c]);
            }
        }
    }

    private static BulkAppendException refused(PlacedField field, int[] appended, int refused, int[] list, int length,
                                               Throwable cause) {
        return new BulkAppendException("appended " + appended.length + " of " + length + " elements of field "
                + field.name() + "; element " + refused + " (list " + Arrays.toString(list) + ") was refused: "
                + cause.getMessage(), appended, refused, cause);
    }

    private static boolean sameList(int[][] lists, int a, int b) {
        for (int[] axis : lists) {
            if (axis[a] != axis[b]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The elements in the order of their lists' coordinates (first axis most significant),
     * elements of one list in the order given, each as {@code key << INDEX_BITS | index}: the key
     * packs the list's coordinates (mixed radix over the parent's index shape) where they fit in
     * the bits above the index, and is {@link #UNPACKED} for every element where they do not
     * (then runs of one list are found by comparing coordinates). A stable least-significant-digit
     * radix sort, {@link #DIGIT_BITS} bits per pass, over the packed keys, or over each coordinate
     * from the last axis's low bits up when they do not pack; none when the lists come in order.
     */
    static long[] group(int[][] lists, int[] shape, int length) {
        int keyBits = 0;
        for (int extent : shape) {
            keyBits += bits(extent);
        }
        long[] grouped = new long[length];
        if (keyBits <= 63 - INDEX_BITS) {
            boolean sorted = true;
            long previous = -1;
            for (int n = 0; n < length; n++) {
                long key = 0;
                for (int c = 0; c < shape.length; c++) {
                    key = (key << bits(shape[c])) | lists[c][n];
                }
                grouped[n] = key << INDEX_BITS | n;
                sorted &= key >= previous;
                previous = key;
            }
            if (!sorted) {
                grouped = radixSort(grouped, INDEX_BITS, keyBits);
            }
            return grouped;
        }
        int[] order = new int[length];
        Arrays.setAll(order, n -> n);
        if (!inOrder(lists, length)) {
            int[] scratch = new int[length];
            for (int c = shape.length - 1; c >= 0; c--) {
                int[] axis = lists[c];
                for (int shift = 0; shift < bits(shape[c]); shift += DIGIT_BITS) {
                    int mask = (1 << Math.min(DIGIT_BITS, bits(shape[c]) - shift)) - 1;
                    int[] starts = new int[mask + 2];
                    for (int n = 0; n < length; n++) {
                        starts[((axis[n] >>> shift) & mask) + 1]++;
                    }
                    for (int d = 0; d <= mask; d++) {
                        starts[d + 1] += starts[d];
                    }
                    for (int n = 0; n < length; n++) {
                        int element = order[n];
                        scratch[starts[(axis[element] >>> shift) & mask]++] = element;
                    }
                    int[] swap = order;
                    order = scratch;
                    scratch = swap;
                }
            }
        }
        for (int n = 0; n < length; n++) {
            grouped[n] = UNPACKED << INDEX_BITS | order[n];
        }
        return grouped;
    }

    /** The element index of a grouped entry. */
    private static int index(long entry) {
        return (int) (entry & INDEX_MASK);
    }

    /** Bits a coordinate below {@code extent} needs (at least 1). */
    private static int bits(int extent) {
        return Math.max(1, 32 - Integer.numberOfLeadingZeros(extent - 1));
    }

    /** Sorts {@code values} by bits {@code [from, from + bits)}, stably, {@link #DIGIT_BITS} bits per pass. */
    private static long[] radixSort(long[] values, int from, int bits) {
        long[] scratch = new long[values.length];
        int passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
        int digitBits = (bits + passes - 1) / passes;
        for (int shift = from; shift < from + bits; shift += digitBits) {
            int mask = (1 << Math.min(digitBits, from + bits - shift)) - 1;
            int[] starts = new int[mask + 2];
            for (long value : values) {
                starts[(int) ((value >>> shift) & mask) + 1]++;
            }
            for (int d = 0; d <= mask; d++) {
                starts[d + 1] += starts[d];
            }
            for (long value : values) {
                scratch[starts[(int) ((value >>> shift) & mask)]++] = value;
            }
            long[] swap = values;
            values = scratch;
            scratch = swap;
        }
        return values;
    }

    /** Whether the elements' lists already come in coordinate order. */
    private static boolean inOrder(int[][] lists, int length) {
        for (int n = 1; n < length; n++) {
            for (int[] axis : lists) {
                if (axis[n - 1] != axis[n]) {
                    if (axis[n - 1] > axis[n]) {
                        return false;
                    }
                    break;
                }
            }
        }
        return true;
    }

    /**
     * The elements of {@code values} ({@code bytes} each, 4 or 8: the bits of any field type) in
     * the order of the grouped entries, in a new heap segment.
     */
    private static MemorySegment gather(MemorySegment values, long bytes, long[] grouped) {
        int length = grouped.length;
        if (bytes == Integer.BYTES) {
            int[] out = new int[length];
            for (int n = 0; n < length; n++) {
                out[n] = values.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index(grouped[n]));
            }
            return MemorySegment.ofArray(out);
        }
        long[] out = new long[length];
        for (int n = 0; n < length; n++) {
            out[n] = values.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, index(grouped[n]));
        }
        return MemorySegment.ofArray(out);
    }
}
