package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.runtime.testing.LayoutModel;
import java.util.Arrays;
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
 * with {@link LayoutModel}, a HashMap of coordinates to values.
 */
class ModelProperties {

    @Property(tries = 300)
    void genericPathAgreesWithAHashMapModel(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        LayoutModel model = new LayoutModel(layout);
        List<PlacedField> fields = layout.fields();
        List<SNode> sparse = layout.snodes().stream().filter(n -> n.kind().isSparse()).toList();
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int op = 0; op < 80; op++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] at = LayoutModel.coordinates(field.snode(), random);
                int choice = random.nextInt(10);
                if (choice < 3) {
                    long bits = LayoutModel.randomBits(field.type(), random);
                    rt.writeBits(field, bits, at);
                    model.write(field, at, bits);
                } else if (choice < 4 && field.type() == FieldType.I64) {
                    long delta = random.nextInt(100);
                    long previous = rt.addBits(field, delta, at);
                    assertThat(previous).isEqualTo(model.read(field, at));
                    model.write(field, at, previous + delta);
                } else if (choice < 6) {
                    assertThat(rt.readBits(field, at)).as("%s at %s", field.name(), Arrays.toString(at))
                            .isEqualTo(model.read(field, at));
                } else if (choice < 8 && !sparse.isEmpty()) {
                    SNode node = sparse.get(random.nextInt(sparse.size()));
                    int[] cell = LayoutModel.deactivationCoordinates(node, random);
                    rt.deactivate(node, cell);
                    model.deactivate(node, cell);
                } else if (choice < 9 && field.snode().kind() == NodeKind.DYNAMIC) {
                    SNode list = field.snode();
                    int[] listCoordinates = LayoutModel.listCoordinates(list, at);
                    long bits = LayoutModel.randomBits(field.type(), random);
                    long expected = model.append(field, listCoordinates, bits);
                    if (expected < 0) {
                        assertThatThrownBy(() -> rt.appendBits(field, bits, listCoordinates))
                                .isInstanceOf(DynamicListFullException.class);
                    } else {
                        assertThat(rt.appendBits(field, bits, listCoordinates)).isEqualTo(expected);
                    }
                    assertThat(rt.length(list, listCoordinates)).isEqualTo(model.length(list, listCoordinates));
                } else {
                    rt.collect();
                }
            }
            for (Map.Entry<LayoutModel.Key, Long> entry : model.values().entrySet()) {
                int[] at = entry.getKey().coordinates().stream().mapToInt(Integer::intValue).toArray();
                assertThat(rt.readBits(layout.field(entry.getKey().name()), at)).isEqualTo(entry.getValue());
            }
        }
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
