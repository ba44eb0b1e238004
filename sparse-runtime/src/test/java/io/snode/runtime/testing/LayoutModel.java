package io.snode.runtime.testing;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The reference model of a layout's data for tests in every module (shipped in the
 * sparse-runtime test-jar): a HashMap from (field, coordinates) to value bits and one from
 * dynamic lists to their lengths, with Taichi's index-space semantics for deactivation.
 */
public final class LayoutModel {
    /** A value or a list: a field name or an SNode path, and coordinates. */
    public record Key(String name, List<Integer> coordinates) {
    }

    private final Layout layout;
    private final Map<Key, Long> values = new HashMap<>();
    private final Map<Key, Long> lengths = new HashMap<>();

    public LayoutModel(Layout layout) {
        this.layout = layout;
    }

    public long read(PlacedField field, int[] at) {
        return values.getOrDefault(new Key(field.name(), boxed(at)), 0L);
    }

    /** A store: the value, and a list raised to hold the element when the field is dynamic. */
    public void write(PlacedField field, int[] at, long bits) {
        values.put(new Key(field.name(), boxed(at)), bits);
        SNode node = field.snode();
        if (node.kind() == NodeKind.DYNAMIC) {
            int axis = listAxis(node);
            lengths.merge(listKey(node, at), (long) at[axis] + 1, Math::max);
        }
    }

    public long length(SNode dynamic, int[] listCoordinates) {
        return lengths.getOrDefault(new Key(dynamic.path(), boxed(withListIndex(dynamic, listCoordinates, 0))), 0L);
    }

    /** An append: the new element's index, or -1 when the list is full (nothing changes). */
    public long append(PlacedField field, int[] listCoordinates, long bits) {
        SNode list = field.snode();
        long length = length(list, listCoordinates);
        if (length == list.capacity()) {
            return -1;
        }
        write(field, withListIndex(list, listCoordinates, (int) length), bits);
        return length;
    }

    /**
     * Removes everything below the cell of {@code target} at {@code cell}; for a dynamic node
     * the whole list, which {@code cell} names by the list's coordinates (its parent's), as the
     * runtime's {@code deactivate} takes them.
     */
    public void deactivate(SNode target, int[] cell) {
        if (target.kind() == NodeKind.DYNAMIC) {
            cell = withListIndex(target, cell, 0);
        }
        for (Iterator<Key> it = values.keySet().iterator(); it.hasNext(); ) {
            Key key = it.next();
            if (under(layout.field(key.name()).snode(), key.coordinates(), target, cell)) {
                it.remove();
            }
        }
        for (Iterator<Key> it = lengths.keySet().iterator(); it.hasNext(); ) {
            Key key = it.next();
            SNode node = layout.snodes().stream().filter(n -> n.path().equals(key.name())).findFirst().orElseThrow();
            if (under(node, key.coordinates(), target, cell)) {
                it.remove();
            }
        }
    }

    /** Removes every cell of {@code target} and everything below them. */
    public void deactivateAll(SNode target) {
        values.keySet().removeIf(key -> layout.field(key.name()).snode().ancestry().contains(target));
        lengths.keySet().removeIf(key -> layout.snodes().stream().filter(n -> n.path().equals(key.name()))
                .findFirst().orElseThrow().ancestry().contains(target));
    }

    /** The bits of {@code previous + delta} in {@code type}'s arithmetic (what an atomic add stores). */
    public static long addBits(FieldType type, long previous, long delta) {
        return switch (type) {
            case I32 -> ((int) previous + (int) delta) & 0xFFFF_FFFFL;
            case I64 -> previous + delta;
            case F32 -> Float.floatToRawIntBits(Float.intBitsToFloat((int) previous) + Float.intBitsToFloat((int) delta))
                    & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits(Double.longBitsToDouble(previous) + Double.longBitsToDouble(delta));
        };
    }

    /** The boxed value that {@code bits} encode, for calls through method handles. */
    public static Object box(FieldType type, long bits) {
        return switch (type) {
            case I32 -> (int) bits;
            case I64 -> bits;
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
        };
    }

    /** The bits of a boxed value of {@code type}. */
    public static long unbox(FieldType type, Object value) {
        return switch (type) {
            case I32 -> ((Integer) value) & 0xFFFF_FFFFL;
            case I64 -> (Long) value;
            case F32 -> Float.floatToRawIntBits((Float) value) & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits((Double) value);
        };
    }

    /** Every value the model holds. */
    public Map<Key, Long> values() {
        return Map.copyOf(values);
    }

    /**
     * Whether coordinates of {@code node} lie in the cell of {@code target} at {@code cell}; a
     * dynamic target stands for its whole list, so its own axis is ignored.
     */
    public static boolean under(SNode node, List<Integer> coordinates, SNode target, int[] cell) {
        List<SNode> chain = node.ancestry();
        int level = chain.indexOf(target);
        if (level < 0) {
            return false;
        }
        List<Axis> targetAxes = target.indexAxes();
        for (int n = 0; n < targetAxes.size(); n++) {
            Axis axis = targetAxes.get(n);
            if (target.kind() == NodeKind.DYNAMIC && axis == target.axes().get(0)) {
                continue;
            }
            long divisor = 1;
            for (int below = level + 1; below < chain.size(); below++) {
                divisor *= chain.get(below).size(axis);
            }
            if (coordinates.get(node.indexAxes().indexOf(axis)) / divisor != cell[n]) {
                return false;
            }
        }
        return true;
    }

    /** Coordinates in {@code node}'s index space, biased towards a few small values so operations collide. */
    public static int[] coordinates(SNode node, Random random) {
        int[] shape = node.indexShape();
        int[] at = new int[shape.length];
        for (int n = 0; n < shape.length; n++) {
            at[n] = random.nextInt(4) == 0 ? random.nextInt(shape[n]) : random.nextInt(Math.min(shape[n], 3));
        }
        return at;
    }

    /**
     * Coordinates that name a cell of {@code node} for {@code deactivate}: {@code node}'s own
     * index space, or for a dynamic node its list's (its parent's), biased as {@link #coordinates}.
     */
    public static int[] deactivationCoordinates(SNode node, Random random) {
        return coordinates(node.kind() == NodeKind.DYNAMIC ? node.parent() : node, random);
    }

    /** Random bits of a value of {@code type}; floating-point values are finite (no NaN payloads). */
    public static long randomBits(FieldType type, Random random) {
        return switch (type) {
            case I32 -> random.nextInt() & 0xFFFF_FFFFL;
            case I64 -> random.nextLong();
            case F32 -> Float.floatToRawIntBits((random.nextFloat() - 0.5f) * 1e6f) & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits((random.nextDouble() - 0.5) * 1e12);
        };
    }

    /** The position of a dynamic node's own axis among its coordinates. */
    public static int listAxis(SNode dynamic) {
        return dynamic.indexAxes().indexOf(dynamic.axes().get(0));
    }

    /** The coordinates of the list's parent with {@code index} inserted on the list axis. */
    public static int[] withListIndex(SNode dynamic, int[] listCoordinates, int index) {
        int position = listAxis(dynamic);
        int[] at = new int[listCoordinates.length + 1];
        System.arraycopy(listCoordinates, 0, at, 0, position);
        at[position] = index;
        System.arraycopy(listCoordinates, position, at, position + 1, listCoordinates.length - position);
        return at;
    }

    /** The coordinates of the list's parent: {@code at} without the list axis. */
    public static int[] listCoordinates(SNode dynamic, int[] at) {
        int position = listAxis(dynamic);
        int[] list = new int[at.length - 1];
        System.arraycopy(at, 0, list, 0, position);
        System.arraycopy(at, position + 1, list, position, at.length - position - 1);
        return list;
    }

    private static Key listKey(SNode dynamic, int[] at) {
        int[] list = at.clone();
        list[listAxis(dynamic)] = 0;
        return new Key(dynamic.path(), boxed(list));
    }

    private static List<Integer> boxed(int[] values) {
        List<Integer> list = new ArrayList<>(values.length);
        for (int value : values) {
            list.add(value);
        }
        return List.copyOf(list);
    }
}
