package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.testing.LayoutModel;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Caching accessors on random layouts, with an interface made for each layout at run time:
 * every read through the accessor equals the generic path's, across writes, adds, appends,
 * deactivations and collections made through either; and the same for interfaces with a random
 * choice of the methods (an accessor's methods must not depend on others it may not have).
 */
class AccessorDifferentialProperties {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    @Property(tries = 150)
    void accessorsAgreeWithTheGenericPath(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed)
            throws Exception {
        Random random = new Random(seed);
        Class<?> api = interfaceFor(layout);
        List<PlacedField> fields = layout.fields();
        List<SNode> sparse = layout.snodes().stream().filter(n -> n.kind().isSparse()).toList();
        try (SNodeRuntime compiled = SNodeRuntime.compile(layout); SparseRuntime generic = SparseRuntime.create(layout)) {
            Object accessor = compiled.accessor(api);
            for (int op = 0; op < 60; op++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] at = LayoutModel.coordinates(field.snode(), random);
                String capital = capital(field.name());
                int choice = random.nextInt(10);
                if (choice < 3) {
                    long bits = LayoutModel.randomBits(field.type(), random);
                    invoke(api, accessor, "set" + capital, at, LayoutModel.box(field.type(), bits));
                    generic.writeBits(field, bits, at);
                } else if (choice < 4) {
                    long delta = LayoutModel.randomBits(field.type(), random);
                    Object previous = invoke(api, accessor, "add" + capital, at, LayoutModel.box(field.type(), delta));
                    assertThat(LayoutModel.unbox(field.type(), previous)).isEqualTo(generic.addBits(field, delta, at));
                } else if (choice < 7) {
                    Object value = invoke(api, accessor, "get" + capital, at, null);
                    assertThat(LayoutModel.unbox(field.type(), value))
                            .as("%s at %s in %s", field.name(), Arrays.toString(at), layout)
                            .isEqualTo(generic.readBits(field, at));
                } else if (choice < 9 && !sparse.isEmpty()) {
                    SNode node = sparse.get(random.nextInt(sparse.size()));
                    deactivate(compiled, generic, node, LayoutModel.deactivationCoordinates(node, random));
                } else if (field.snode().kind() == NodeKind.DYNAMIC && random.nextBoolean()) {
                    int[] list = LayoutModel.listCoordinates(field.snode(), at);
                    long bits = LayoutModel.randomBits(field.type(), random);
                    if (generic.length(field.snode(), list) < field.snode().capacity()) {
                        Object index = invoke(api, accessor, "append" + capital, list, LayoutModel.box(field.type(), bits));
                        assertThat(index).isEqualTo(generic.appendBits(field, bits, list));
                    }
                } else {
                    collect(compiled, generic);
                }
            }
        }
    }

    /**
     * Accessors of interfaces with any choice of the methods (each field's get, set, add and
     * append kept or not, at random): each method there behaves as the generic path, and at the
     * end every cell the operations touched reads the same through both runtimes. An accessor
     * must declare what each of its methods uses, whatever else the interface has.
     */
    @Property(tries = 150)
    void accessorsOfAnyChoiceOfMethodsAgreeWithTheGenericPath(@ForAll("layouts") Layout layout,
                                                              @ForAll("seeds") long seed) throws Exception {
        Random random = new Random(seed);
        Set<String> kept = new HashSet<>();
        List<PlacedField> fields = layout.fields();
        for (PlacedField field : fields) {
            for (String operation : List.of("get", "set", "add", "append")) {
                if (random.nextBoolean()) {
                    kept.add(operation + capital(field.name()));
                }
            }
        }
        if (kept.isEmpty()) {
            kept.add("set" + capital(fields.getFirst().name()));
        }
        Class<?> api = interfaceFor(layout, null, kept::contains);
        List<Map.Entry<PlacedField, int[]>> touched = new ArrayList<>();
        try (SNodeRuntime compiled = SNodeRuntime.compile(layout); SparseRuntime generic = SparseRuntime.create(layout)) {
            Object accessor = compiled.accessor(api);
            for (int op = 0; op < 80; op++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] at = LayoutModel.coordinates(field.snode(), random);
                String capital = capital(field.name());
                String where = field.name() + " at " + Arrays.toString(at) + " in " + layout + " with " + kept;
                int choice = random.nextInt(10);
                if (choice < 3 && kept.contains("set" + capital)) {
                    long bits = LayoutModel.randomBits(field.type(), random);
                    invoke(api, accessor, "set" + capital, at, LayoutModel.box(field.type(), bits));
                    generic.writeBits(field, bits, at);
                    touched.add(Map.entry(field, at));
                } else if (choice < 5 && kept.contains("add" + capital)) {
                    long delta = LayoutModel.randomBits(field.type(), random);
                    Object previous = invoke(api, accessor, "add" + capital, at, LayoutModel.box(field.type(), delta));
                    assertThat(LayoutModel.unbox(field.type(), previous)).as(where)
                            .isEqualTo(generic.addBits(field, delta, at));
                    touched.add(Map.entry(field, at));
                } else if (choice < 7 && kept.contains("get" + capital)) {
                    Object value = invoke(api, accessor, "get" + capital, at, null);
                    assertThat(LayoutModel.unbox(field.type(), value)).as(where).isEqualTo(generic.readBits(field, at));
                } else if (choice < 9 && field.snode().kind() == NodeKind.DYNAMIC && kept.contains("append" + capital)) {
                    int[] list = LayoutModel.listCoordinates(field.snode(), at);
                    long bits = LayoutModel.randomBits(field.type(), random);
                    if (generic.length(field.snode(), list) < field.snode().capacity()) {
                        Object index = invoke(api, accessor, "append" + capital, list, LayoutModel.box(field.type(), bits));
                        assertThat(index).as(where).isEqualTo(generic.appendBits(field, bits, list));
                        touched.add(Map.entry(field, LayoutModel.withListIndex(field.snode(), list, (int) (long) (Long) index)));
                    }
                } else if (choice == 9) {
                    SNode node = field.snode();
                    if (node.kind().isSparse()) {
                        deactivate(compiled, generic, node, LayoutModel.deactivationCoordinates(node, random));
                    } else {
                        collect(compiled, generic);
                    }
                }
            }
            for (Map.Entry<PlacedField, int[]> cell : touched) {
                assertThat(compiled.generic().readBits(cell.getKey(), cell.getValue()))
                        .as("%s at %s at the end, in %s with %s", cell.getKey().name(), Arrays.toString(cell.getValue()),
                                layout, kept)
                        .isEqualTo(generic.readBits(cell.getKey(), cell.getValue()));
            }
        }
    }

    static Object invoke(Class<?> api, Object target, String name, int[] coordinates, Object value)
            throws Exception {
        List<Object> arguments = new ArrayList<>();
        for (int coordinate : coordinates) {
            arguments.add(coordinate);
        }
        if (value != null) {
            arguments.add(value);
        }
        for (Method method : api.getMethods()) {
            if (method.getName().equals(name) && method.getParameterCount() == arguments.size()) {
                return method.invoke(target, arguments.toArray());
            }
        }
        throw new AssertionError("no method " + name);
    }

    /** A public interface with get, set and add (and append on dynamic nodes) for every field. */
    static Class<?> interfaceFor(Layout layout) {
        return interfaceFor(layout, null);
    }

    /**
     * As {@link #interfaceFor(Layout)}, and for every field of {@code visited} (when not null)
     * also {@code getX()} and {@code setX(value)} without coordinates: a view's read and write
     * of the visited cell.
     */
    static Class<?> interfaceFor(Layout layout, SNode visited) {
        return interfaceFor(layout, visited, name -> true);
    }

    /** As {@link #interfaceFor(Layout, SNode)}, with only the methods whose names {@code keep} accepts. */
    static Class<?> interfaceFor(Layout layout, SNode visited, Predicate<String> keep) {
        DynamicType.Builder<?> builder = new ByteBuddy().makeInterface()
                .name(AccessorDifferentialProperties.class.getPackageName() + ".RandomGrid" + SEQUENCE.incrementAndGet());
        for (PlacedField field : layout.fields()) {
            Class<?> type = field.type().javaType();
            List<Class<?>> coordinates = Collections.nCopies(field.dimensionality(), int.class);
            List<Class<?>> withValue = new ArrayList<>(coordinates);
            withValue.add(type);
            String capital = capital(field.name());
            if (keep.test("get" + capital)) {
                builder = builder.defineMethod("get" + capital, type, Visibility.PUBLIC).withParameters(coordinates)
                        .withoutCode();
            }
            if (keep.test("set" + capital)) {
                builder = builder.defineMethod("set" + capital, void.class, Visibility.PUBLIC).withParameters(withValue)
                        .withoutCode();
            }
            if (keep.test("add" + capital)) {
                builder = builder.defineMethod("add" + capital, type, Visibility.PUBLIC).withParameters(withValue)
                        .withoutCode();
            }
            if (field.snode() == visited) {
                builder = builder.defineMethod("get" + capital, type, Visibility.PUBLIC).withoutCode()
                        .defineMethod("set" + capital, void.class, Visibility.PUBLIC).withParameters(type).withoutCode();
            }
            if (field.snode().kind() == NodeKind.DYNAMIC && keep.test("append" + capital)) {
                List<Class<?>> list = new ArrayList<>(Collections.nCopies(field.dimensionality() - 1, int.class));
                list.add(type);
                builder = builder.defineMethod("append" + capital, long.class, Visibility.PUBLIC)
                        .withParameters(list).withoutCode();
            }
        }
        return builder.make().load(AccessorDifferentialProperties.class.getClassLoader(),
                ClassLoadingStrategy.UsingLookup.of(MethodHandles.lookup())).getLoaded();
    }

    /** Deactivates {@code cell} of {@code node} in both runtimes. */
    static void deactivate(SNodeRuntime compiled, SparseRuntime generic, SNode node, int[] cell) {
        compiled.generic().deactivate(node, cell);
        generic.deactivate(node, cell);
    }

    /** Collects both runtimes. */
    static void collect(SNodeRuntime compiled, SparseRuntime generic) {
        compiled.gc();
        generic.collect();
    }

    static String capital(String name) {
        return name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
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
