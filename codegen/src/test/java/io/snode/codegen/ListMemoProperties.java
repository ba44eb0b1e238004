package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.testing.LayoutModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A caching accessor over a dynamic node whose lists lie right in the cell it remembers (a
 * pointer's or hash node's cell) remembers the list's length and a chunk, and its appends go
 * to the remembered block without a walk: on random layouts with such a node, an accessor that
 * keeps going back to three lists (appends, reads and writes up to past the length, through
 * every field of the node, with deactivations of a list or of its block and collections between)
 * answers as the generic path does, with each SNode's cells in a region and in chunks of their own.
 */
class ListMemoProperties {
    @Property(tries = 200)
    void accessorsGoingBackToFewListsAgreeWithTheGenericPath(@ForAll("layouts") Layout layout,
                                                             @ForAll("seeds") long seed) throws Exception {
        Random random = new Random(seed);
        SNode node = aListInRememberedCell(layout, random);
        List<PlacedField> fields = node.fields();
        Class<?> api = AccessorDifferentialProperties.interfaceFor(layout);
        RuntimeOptions options = random.nextBoolean() ? RuntimeOptions.DEFAULT
                : RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        List<int[]> blocks = threeLists(node, random);
        try (SNodeRuntime compiled = SNodeRuntime.compile(layout, options);
             SparseRuntime generic = SparseRuntime.create(layout)) {
            Object accessor = compiled.accessor(api);
            int[] current = blocks.getFirst();
            for (int op = 0; op < 200; op++) {
                current = nextList(blocks, current, random);
                int[] list = current;
                PlacedField field = fields.get(random.nextInt(fields.size()));
                String capital = AccessorDifferentialProperties.capital(field.name());
                long length = generic.length(node, list);
                int index = (int) Math.min(node.capacity() - 1, random.nextInt((int) length + 3));
                int[] at = LayoutModel.withListIndex(node, list, index);
                String where = field.name() + " at " + Arrays.toString(at) + " (op " + op + ", length " + length
                        + ") in " + layout;
                int choice = random.nextInt(20);
                if (choice < 8) {
                    if (length < node.capacity()) {
                        long bits = LayoutModel.randomBits(field.type(), random);
                        Object appended = AccessorDifferentialProperties.invoke(api, accessor, "append" + capital, list,
                                LayoutModel.box(field.type(), bits));
                        assertThat(appended).as(where).isEqualTo(generic.appendBits(field, bits, list));
                    }
                } else if (choice < 14) {
                    Object value = AccessorDifferentialProperties.invoke(api, accessor, "get" + capital, at, null);
                    assertThat(LayoutModel.unbox(field.type(), value)).as(where).isEqualTo(generic.readBits(field, at));
                } else if (choice < 17) {
                    // also past the length: the element stays inactive (reads give zero) both ways
                    long bits = LayoutModel.randomBits(field.type(), random);
                    AccessorDifferentialProperties.invoke(api, accessor, "set" + capital, at,
                            LayoutModel.box(field.type(), bits));
                    generic.writeBits(field, bits, at);
                } else if (choice < 18) {
                    AccessorDifferentialProperties.deactivate(compiled, generic, node.parent(), list);
                } else if (choice < 19) {
                    AccessorDifferentialProperties.deactivate(compiled, generic, node,
                            LayoutModel.deactivationCoordinates(node, random));
                } else {
                    AccessorDifferentialProperties.collect(compiled, generic);
                }
            }
            for (int[] list : blocks) {
                long length = generic.length(node, list);
                for (int index = 0; index < length; index++) {
                    int[] at = LayoutModel.withListIndex(node, list, index);
                    for (PlacedField field : fields) {
                        Object value = AccessorDifferentialProperties.invoke(api, accessor,
                                "get" + AccessorDifferentialProperties.capital(field.name()), at, null);
                        assertThat(LayoutModel.unbox(field.type(), value)).as("%s at %s at the end in %s", field.name(),
                                Arrays.toString(at), layout).isEqualTo(generic.readBits(field, at));
                    }
                }
            }
        }
    }

    /**
     * The same with an interface that only appends (every dynamic field's {@code appendX}, nothing
     * else): the accessor's appends to three lists, with deactivations of a list and collections
     * between, take the indices the generic path's take, and every element holds what the
     * generic path holds.
     */
    @Property(tries = 100)
    void accessorsThatOnlyAppendAgreeWithTheGenericPath(@ForAll("layouts") Layout layout,
                                                        @ForAll("seeds") long seed) throws Exception {
        Random random = new Random(seed);
        SNode node = aListInRememberedCell(layout, random);
        List<PlacedField> fields = node.fields();
        Class<?> api = AccessorDifferentialProperties.interfaceFor(layout, null, name -> name.startsWith("append"));
        List<int[]> blocks = threeLists(node, random);
        try (SNodeRuntime compiled = SNodeRuntime.compile(layout);
             SparseRuntime generic = SparseRuntime.create(layout)) {
            Object accessor = compiled.accessor(api);
            int[] current = blocks.getFirst();
            for (int op = 0; op < 100; op++) {
                current = nextList(blocks, current, random);
                int[] list = current;
                int choice = random.nextInt(20);
                if (choice < 17) {
                    PlacedField field = fields.get(random.nextInt(fields.size()));
                    if (generic.length(node, list) < node.capacity()) {
                        long bits = LayoutModel.randomBits(field.type(), random);
                        Object appended = AccessorDifferentialProperties.invoke(api, accessor,
                                "append" + AccessorDifferentialProperties.capital(field.name()), list,
                                LayoutModel.box(field.type(), bits));
                        assertThat(appended).as("%s to %s (op %d) in %s", field.name(), Arrays.toString(list), op, layout)
                                .isEqualTo(generic.appendBits(field, bits, list));
                    }
                } else if (choice < 19) {
                    AccessorDifferentialProperties.deactivate(compiled, generic, node.parent(), list);
                } else {
                    AccessorDifferentialProperties.collect(compiled, generic);
                }
            }
            for (int[] list : blocks) {
                assertThat(compiled.generic().length(node, list)).isEqualTo(generic.length(node, list));
                for (int index = 0; index < generic.length(node, list); index++) {
                    int[] at = LayoutModel.withListIndex(node, list, index);
                    for (PlacedField field : fields) {
                        assertThat(compiled.generic().readBits(field, at)).as("%s at %s in %s", field.name(),
                                Arrays.toString(at), layout).isEqualTo(generic.readBits(field, at));
                    }
                }
            }
        }
    }

    /** The list coordinates of three random elements of {@code node} (lists an accessor keeps going back to). */
    private static List<int[]> threeLists(SNode node, Random random) {
        List<int[]> lists = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            lists.add(LayoutModel.listCoordinates(node, LayoutModel.coordinates(node, random)));
        }
        return lists;
    }

    /** Mostly {@code current} again, as a loop over particles goes on; now and then another of {@code lists}. */
    private static int[] nextList(List<int[]> lists, int[] current, Random random) {
        return random.nextInt(4) == 0 ? lists.get(random.nextInt(lists.size())) : current;
    }

    /** One of {@code layout}'s dynamic nodes for which {@link #listInRememberedCell} holds, at random. */
    private static SNode aListInRememberedCell(Layout layout, Random random) {
        List<SNode> lists = layout.snodes().stream().filter(ListMemoProperties::listInRememberedCell).toList();
        return lists.get(random.nextInt(lists.size()));
    }

    /** A dynamic node with fields, right below a pointer or hash node (whose cell an accessor remembers). */
    private static boolean listInRememberedCell(SNode node) {
        return node.kind() == NodeKind.DYNAMIC && !node.fields().isEmpty()
                && (node.parent().kind() == NodeKind.POINTER || node.parent().kind() == NodeKind.HASH);
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts().filter(layout -> layout.snodes().stream().anyMatch(ListMemoProperties::listInRememberedCell));
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
