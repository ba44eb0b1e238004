package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.testing.LayoutModel;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
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
 * Random layouts, random operation sequences: the generated methods, the generic path (on a
 * second runtime) and a HashMap model give the same results at every step.
 */
class DifferentialProperties {

    @Property(tries = 300)
    void generatedCodeAgreesWithTheGenericPathAndTheModel(@ForAll("layouts") Layout layout,
                                                          @ForAll("seeds") long seed) throws Throwable {
        Random random = new Random(seed);
        LayoutModel model = new LayoutModel(layout);
        List<PlacedField> fields = layout.fields();
        List<SNode> nodes = layout.snodes().subList(1, layout.snodes().size());
        try (SNodeRuntime compiled = SNodeRuntime.compile(layout); SparseRuntime generic = SparseRuntime.create(layout)) {
            for (int op = 0; op < 60; op++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                FieldType type = field.type();
                int[] at = LayoutModel.coordinates(field.snode(), random);
                String where = field.name() + " at " + Arrays.toString(at) + " in " + layout;
                int choice = random.nextInt(12);
                if (choice < 3) {
                    long bits = LayoutModel.randomBits(type, random);
                    compiled.setter(field.name()).invokeWithArguments(arguments(at, LayoutModel.box(type, bits)));
                    generic.writeBits(field, bits, at);
                    model.write(field, at, bits);
                } else if (choice < 4) {
                    long delta = LayoutModel.randomBits(type, random);
                    Object previous = compiled.adder(field.name()).invokeWithArguments(
                            arguments(at, LayoutModel.box(type, delta)));
                    long expected = model.read(field, at);
                    assertThat(LayoutModel.unbox(type, previous)).as(where).isEqualTo(expected);
                    assertThat(generic.addBits(field, delta, at)).as(where).isEqualTo(expected);
                    model.write(field, at, LayoutModel.addBits(type, expected, delta));
                } else if (choice < 6) {
                    Object value = compiled.getter(field.name()).invokeWithArguments(arguments(at, null));
                    long expected = model.read(field, at);
                    assertThat(LayoutModel.unbox(type, value)).as(where).isEqualTo(expected);
                    assertThat(generic.readBits(field, at)).as(where).isEqualTo(expected);
                } else if (choice < 7) {
                    SNode node = nodes.get(random.nextInt(nodes.size()));
                    int[] cell = LayoutModel.coordinates(node, random);
                    Object active = compiled.nodeHandle("isActive", node).invokeWithArguments(arguments(cell, null));
                    assertThat(active).as("isActive %s %s", node.path(), Arrays.toString(cell))
                            .isEqualTo(generic.isActive(node, cell));
                    if (random.nextBoolean()) {
                        compiled.nodeHandle("activate", node).invokeWithArguments(arguments(cell, null));
                        generic.activate(node, cell);
                        assertThat(generic.isActive(node, cell)).isTrue();
                        if (node.kind() == NodeKind.DYNAMIC) {
                            int index = cell[LayoutModel.listAxis(node)];
                            for (PlacedField placed : node.fields()) {
                                model.write(placed, cell, model.read(placed, cell));
                            }
                            assertThat(index).isLessThan(node.capacity());
                        }
                    }
                } else if (choice < 9) {
                    List<SNode> sparse = nodes.stream().filter(n -> n.kind().isSparse()).toList();
                    if (sparse.isEmpty()) {
                        continue;
                    }
                    SNode node = sparse.get(random.nextInt(sparse.size()));
                    int[] cell = LayoutModel.deactivationCoordinates(node, random);
                    boolean wasActive = (boolean) compiled.nodeHandle("deactivate", node)
                            .invokeWithArguments(arguments(cell, null));
                    assertThat(generic.deactivate(node, cell)).as("deactivate %s", node.path()).isEqualTo(wasActive);
                    model.deactivate(node, cell);
                } else if (choice < 10 && field.snode().kind() == NodeKind.DYNAMIC) {
                    SNode list = field.snode();
                    int[] listAt = LayoutModel.listCoordinates(list, at);
                    long bits = LayoutModel.randomBits(type, random);
                    long expected = model.append(field, listAt, bits);
                    MethodHandle append = compiled.appender(field.name());
                    Throwable thrown = catchThrowable(() -> {
                        Object index = append.invokeWithArguments(arguments(listAt, LayoutModel.box(type, bits)));
                        assertThat(index).isEqualTo(expected);
                    });
                    Throwable genericThrown = catchThrowable(() -> generic.appendBits(field, bits, listAt));
                    if (expected < 0) {
                        assertThat(thrown).isInstanceOf(DynamicListFullException.class);
                        assertThat(genericThrown).isInstanceOf(DynamicListFullException.class);
                    } else {
                        assertThat(thrown).isNull();
                        assertThat(genericThrown).isNull();
                    }
                    Object length = compiled.nodeHandle("length", list).invokeWithArguments(arguments(listAt, null));
                    assertThat(length).isEqualTo(model.length(list, listAt));
                    assertThat(generic.length(list, listAt)).isEqualTo(model.length(list, listAt));
                } else if (choice < 11) {
                    List<SNode> sparse = nodes.stream().filter(n -> n.kind().isSparse()).toList();
                    if (!sparse.isEmpty() && random.nextInt(4) == 0) {
                        SNode node = sparse.get(random.nextInt(sparse.size()));
                        compiled.nodeHandle("deactivateAll", node).invoke();
                        generic.deactivateAll(node);
                        model.deactivateAll(node);
                    }
                } else {
                    compiled.gc();
                    generic.collect();
                }
            }
            for (Map.Entry<LayoutModel.Key, Long> entry : model.values().entrySet()) {
                PlacedField field = layout.field(entry.getKey().name());
                int[] at = entry.getKey().coordinates().stream().mapToInt(Integer::intValue).toArray();
                Object value = compiled.getter(field.name()).invokeWithArguments(arguments(at, null));
                assertThat(LayoutModel.unbox(field.type(), value)).isEqualTo(entry.getValue());
                assertThat(generic.readBits(field, at)).isEqualTo(entry.getValue());
            }
        }
    }

    private static List<Object> arguments(int[] coordinates, Object value) {
        List<Object> arguments = new ArrayList<>();
        for (int coordinate : coordinates) {
            arguments.add(coordinate);
        }
        if (value != null) {
            arguments.add(value);
        }
        return arguments;
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
