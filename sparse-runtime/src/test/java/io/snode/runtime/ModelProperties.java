package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of write, add, read, deactivate, append and collect on random layouts agree
 * with a model: a HashMap from (field, coordinates) to value bits, and one from lists to lengths.
 */
class ModelProperties {

    record Key(String name, List<Integer> coordinates) {
    }

    @Property(tries = 300)
    void genericPathAgreesWithAHashMapModel(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        Map<Key, Long> values = new HashMap<>();
        Map<Key, Long> lengths = new HashMap<>();
        List<PlacedField> fields = layout.fields();
        List<SNode> sparse = layout.snodes().stream().filter(n -> n.kind().isSparse()).toList();
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int op = 0; op < 80; op++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] at = coordinates(field.snode(), random);
                Key key = new Key(field.name(), boxed(at));
                int choice = random.nextInt(10);
                if (choice < 3) {
                    long bits = randomBits(field.type(), random);
                    rt.writeBits(field, bits, at);
                    values.put(key, bits);
                    raiseLength(field.snode(), at, lengths);
                } else if (choice < 4 && field.type() == FieldType.I64) {
                    long delta = random.nextInt(100);
                    long previous = rt.addBits(field, delta, at);
                    assertThat(previous).isEqualTo(values.getOrDefault(key, 0L));
                    values.put(key, previous + delta);
                    raiseLength(field.snode(), at, lengths);
                } else if (choice < 6) {
                    assertThat(rt.readBits(field, at)).as("%s at %s", field.name(), Arrays.toString(at))
                            .isEqualTo(values.getOrDefault(key, 0L));
                } else if (choice < 8 && !sparse.isEmpty()) {
                    SNode node = sparse.get(random.nextInt(sparse.size()));
                    int[] cell = coordinates(node, random);
                    rt.deactivate(node, cell);
                    forget(layout, node, cell, values, lengths);
                } else if (choice < 9 && field.snode().kind() == NodeKind.DYNAMIC) {
                    SNode list = field.snode();
                    int axis = list.indexAxes().indexOf(list.axes().get(0));
                    at[axis] = 0;
                    Key listKey = new Key(list.path(), boxed(at));
                    long length = lengths.getOrDefault(listKey, 0L);
                    int[] listCoordinates = remove(at, axis);
                    long bits = randomBits(field.type(), random);
                    if (length == list.capacity()) {
                        org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> rt.appendBits(field, bits, listCoordinates))
                                .isInstanceOf(DynamicListFullException.class);
                    } else {
                        assertThat(rt.appendBits(field, bits, listCoordinates)).isEqualTo(length);
                        at[axis] = (int) length;
                        values.put(new Key(field.name(), boxed(at)), bits);
                        lengths.put(listKey, length + 1);
                    }
                    assertThat(rt.length(list, listCoordinates)).isEqualTo(lengths.getOrDefault(listKey, 0L));
                } else {
                    rt.collect();
                }
            }
            for (Map.Entry<Key, Long> entry : values.entrySet()) {
                int[] at = entry.getKey().coordinates().stream().mapToInt(Integer::intValue).toArray();
                assertThat(rt.readBits(layout.field(entry.getKey().name()), at)).isEqualTo(entry.getValue());
            }
        }
    }

    private static void raiseLength(SNode node, int[] at, Map<Key, Long> lengths) {
        if (node.kind() != NodeKind.DYNAMIC) {
            return;
        }
        int axis = node.indexAxes().indexOf(node.axes().get(0));
        int[] list = at.clone();
        list[axis] = 0;
        lengths.merge(new Key(node.path(), boxed(list)), (long) at[axis] + 1, Math::max);
    }

    /** Removes from the model everything below the cell of {@code target} at {@code cell}. */
    private static void forget(Layout layout, SNode target, int[] cell, Map<Key, Long> values,
                               Map<Key, Long> lengths) {
        for (Iterator<Map.Entry<Key, Long>> it = values.entrySet().iterator(); it.hasNext(); ) {
            Key key = it.next().getKey();
            SNode node = layout.field(key.name()).snode();
            if (under(node, key.coordinates(), target, cell)) {
                it.remove();
            }
        }
        for (Iterator<Map.Entry<Key, Long>> it = lengths.entrySet().iterator(); it.hasNext(); ) {
            Key key = it.next().getKey();
            SNode node = layout.snodes().stream().filter(n -> n.path().equals(key.name())).findFirst().orElseThrow();
            if (under(node, key.coordinates(), target, cell)) {
                it.remove();
            }
        }
    }

    /**
     * Whether coordinates of {@code node} lie in the cell of {@code target} at {@code cell}; a
     * dynamic target stands for its whole list, so its own axis is ignored.
     */
    static boolean under(SNode node, List<Integer> coordinates, SNode target, int[] cell) {
        List<SNode> chain = node.ancestry();
        int level = chain.indexOf(target);
        if (level < 0) {
            return false;
        }
        List<io.snode.api.Axis> targetAxes = target.indexAxes();
        for (int n = 0; n < targetAxes.size(); n++) {
            io.snode.api.Axis axis = targetAxes.get(n);
            if (target.kind() == NodeKind.DYNAMIC && axis == target.axes().get(0)) {
                continue;
            }
            long divisor = 1;
            for (int below = level + 1; below < chain.size(); below++) {
                divisor *= chain.get(below).size(axis);
            }
            int value = coordinates.get(node.indexAxes().indexOf(axis));
            if (value / divisor != cell[n]) {
                return false;
            }
        }
        return true;
    }

    /** Coordinates biased towards a few small values, so operations collide. */
    private static int[] coordinates(SNode node, Random random) {
        int[] shape = node.indexShape();
        int[] at = new int[shape.length];
        for (int n = 0; n < shape.length; n++) {
            at[n] = random.nextInt(4) == 0 ? random.nextInt(shape[n]) : random.nextInt(Math.min(shape[n], 3));
        }
        return at;
    }

    private static long randomBits(FieldType type, Random random) {
        return switch (type) {
            case I32, F32 -> random.nextInt() & 0xFFFF_FFFFL;
            case I64, F64 -> random.nextLong();
        };
    }

    private static List<Integer> boxed(int[] values) {
        List<Integer> list = new ArrayList<>(values.length);
        for (int value : values) {
            list.add(value);
        }
        return List.copyOf(list);
    }

    private static int[] remove(int[] values, int position) {
        int[] result = new int[values.length - 1];
        System.arraycopy(values, 0, result, 0, position);
        System.arraycopy(values, position + 1, result, position, values.length - position - 1);
        return result;
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts();
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
