package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.kernel.ViewKernel;
import io.snode.codegen.kernel.ViewKernel1;
import io.snode.codegen.kernel.ViewKernel2;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.kernel.ViewKernel4;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.testing.LayoutModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Views on random layouts (every kind, nesting, branching), with an interface made for each
 * layout at run time: in a per-cell launch over every SNode that holds fields, with one thread
 * and with two, each read through the view of a visited cell's fields and of a random cell of
 * another field equals the generic path's, and each write through the view of a visited cell is
 * what the generic path reads after the launch; over dense, bitmasked and dynamic nodes the view's
 * read of the visited cell (a list's element) without coordinates gives the same, before and after that write (half of which
 * are writes of the visited cell without coordinates). Where the
 * driver primes the view (a leaf under a pointer or hash node) and where it cannot, the answers
 * are the same.
 */
class ViewKernelProperties {
    @Property(tries = 120)
    @SuppressWarnings("unchecked")
    void viewsAgreeWithTheGenericPath(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) throws Exception {
        Random random = new Random(seed);
        List<PlacedField> all = layout.fields();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(rt, layout, random, 30, 5, 0);
            for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
                if (node.fields().isEmpty()) {
                    continue;
                }
                // Dense, bitmasked and dynamic nodes' views also read the visited cell (element) without coordinates.
                boolean cellReads = node.kind() == NodeKind.DENSE || node.kind() == NodeKind.BITMASKED
                        || node.kind() == NodeKind.DYNAMIC;
                Class<Object> api = (Class<Object>) AccessorDifferentialProperties.interfaceFor(layout,
                        cellReads ? node : null);
                for (int threads : new int[] {1, 2}) {
                    rt.parallelism(threads);
                    List<String> wrong = Collections.synchronizedList(new ArrayList<>());
                    Map<List<Object>, Long> written = new ConcurrentHashMap<>();
                    rt.forEach(node, api, kernel(node.indexAxes().size(), (view, at) -> {
                        Random cell = new Random(seed ^ Arrays.hashCode(at) ^ threads);
                        try {
                            for (PlacedField field : node.fields()) {
                                String capital = AccessorDifferentialProperties.capital(field.name());
                                long bits = LayoutModel.unbox(field.type(),
                                        AccessorDifferentialProperties.invoke(api, view, "get" + capital, at, null));
                                long expected = rt.generic().readBits(field, at);
                                if (bits != expected) {
                                    wrong.add(field.name() + " at " + Arrays.toString(at) + ": " + bits + " != " + expected);
                                }
                                if (cellReads) {
                                    long visited = LayoutModel.unbox(field.type(), AccessorDifferentialProperties
                                            .invoke(api, view, "get" + capital, new int[0], null));
                                    if (visited != expected) {
                                        wrong.add(field.name() + "() at " + Arrays.toString(at) + ": " + visited
                                                + " != " + expected);
                                    }
                                }
                                long next = LayoutModel.randomBits(field.type(), cell);
                                // half of the writes without coordinates, where the view has them
                                AccessorDifferentialProperties.invoke(api, view, "set" + capital,
                                        cellReads && cell.nextBoolean() ? new int[0] : at,
                                        LayoutModel.box(field.type(), next));
                                if (cellReads) {
                                    long visited = LayoutModel.unbox(field.type(), AccessorDifferentialProperties
                                            .invoke(api, view, "get" + capital, new int[0], null));
                                    if (visited != next) {
                                        wrong.add(field.name() + "() after the write at " + Arrays.toString(at));
                                    }
                                }
                                written.put(List.of(field.name(), List.of(Arrays.stream(at).boxed().toArray())), next);
                            }
                            PlacedField other = all.get(cell.nextInt(all.size()));
                            int[] elsewhere = LayoutModel.coordinates(other.snode(), cell);
                            long bits = LayoutModel.unbox(other.type(), AccessorDifferentialProperties.invoke(api,
                                    view, "get" + AccessorDifferentialProperties.capital(other.name()), elsewhere, null));
                            // a cell this launch may also write: compare with the generic read only where it is not
                            if (other.snode() != node && bits != rt.generic().readBits(other, elsewhere)) {
                                wrong.add(other.name() + " elsewhere at " + Arrays.toString(elsewhere));
                            }
                        } catch (Exception e) {
                            wrong.add(e.toString());
                        }
                    }));
                    assertThat(wrong).as("%s with %d threads in %s", node.path(), threads, layout).isEmpty();
                    for (var entry : written.entrySet()) {
                        PlacedField field = layout.field((String) entry.getKey().get(0));
                        int[] at = ((List<?>) entry.getKey().get(1)).stream().mapToInt(o -> (Integer) o).toArray();
                        assertThat(rt.generic().readBits(field, at)).as("%s at %s", field.name(), Arrays.toString(at))
                                .isEqualTo(entry.getValue());
                    }
                }
            }
        }
    }

    /** A view kernel of the SNode's arity that hands the view and the coordinates to {@code body}. */
    static ViewKernel<Object> kernel(int arity, BiConsumer<Object, int[]> body) {
        return switch (arity) {
            case 1 -> (ViewKernel1<Object>) (view, i) -> body.accept(view, new int[] {i});
            case 2 -> (ViewKernel2<Object>) (view, i, j) -> body.accept(view, new int[] {i, j});
            case 3 -> (ViewKernel3<Object>) (view, i, j, k) -> body.accept(view, new int[] {i, j, k});
            case 4 -> (ViewKernel4<Object>) (view, i, j, k, l) -> body.accept(view, new int[] {i, j, k, l});
            default -> throw new IllegalArgumentException("arity " + arity);
        };
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(StructForProperties.SMALL);
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
