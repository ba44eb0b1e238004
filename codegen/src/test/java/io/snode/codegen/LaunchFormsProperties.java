package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.codegen.testing.RandomWrites;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every launch form visits exactly the same cells: on random small layouts after random writes
 * (dynamic writes past the length included, which leave chunks below them unallocated),
 * deactivations and collections, the cells that the generic path reports active are the cells
 * that per-cell, per-task and (dense, bitmasked, dynamic) block launches visit, that kept sets hold and
 * visit, and that every reduction (count, sum, min, max) of every field folds, with the values
 * that the generic path reads (zero for never-written list elements).
 */
class LaunchFormsProperties {

    @Property(tries = 120)
    void everyLaunchFormVisitsTheActiveCells(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(rt, layout, random, 40, 6, 9);
            for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
                Set<List<Integer>> expected = new HashSet<>();
                StructForProperties.enumerate(node.indexShape(), new int[node.indexShape().length], 0, at -> {
                    if (rt.generic().isActive(node, at)) {
                        expected.add(StructForProperties.boxed(at));
                    }
                });
                int arity = node.indexAxes().size();
                for (int threads : new int[] {1, 2}) {
                    rt.parallelism(threads);
                    String where = node.path() + " with " + threads + " threads in " + layout;
                    assertThat(visitPerCell(rt, node, arity)).as("per-cell %s", where).isEqualTo(expected);
                    Set<List<Integer>> perTask = ConcurrentHashMap.newKeySet();
                    rt.forEachPerTask(node, () -> StructForProperties.kernel(arity,
                            at -> assertThat(perTask.add(StructForProperties.boxed(at))).isTrue()));
                    assertThat(perTask).as("per-task %s", where).isEqualTo(expected);
                    ActiveSet set = rt.activeSet(node);
                    assertThat(set.cellCount()).as("kept set %s", where).isEqualTo(expected.size());
                    Set<List<Integer>> kept = ConcurrentHashMap.newKeySet();
                    rt.forEach(set, StructForProperties.kernel(arity, at -> kept.add(StructForProperties.boxed(at))));
                    assertThat(kept).as("kept set %s", where).isEqualTo(expected);
                    if (node.kind() == NodeKind.DENSE || node.kind() == NodeKind.BITMASKED
                            || node.kind() == NodeKind.DYNAMIC) {
                        long[] keptCount = rt.reduceBlocks(set, () -> new long[1],
                                (long[] acc, LeafBlock block) -> acc[0] += block.activeCount(),
                                (a, b) -> new long[] {a[0] + b[0]});
                        assertThat(keptCount[0]).as("reduceBlocks over the kept set %s", where)
                                .isEqualTo(expected.size());
                    }
                    for (PlacedField field : node.fields()) {
                        checkReductions(rt, field, expected, where);
                    }
                }
                StructForProperties.checkBlockForms(rt, node, expected); // block forms, both parallelisms
            }
        }
    }

    private static Set<List<Integer>> visitPerCell(SNodeRuntime rt, SNode node, int arity) {
        Set<List<Integer>> visited = ConcurrentHashMap.newKeySet();
        rt.forEach(node, StructForProperties.kernel(arity,
                at -> assertThat(visited.add(StructForProperties.boxed(at))).as("visited twice").isTrue()));
        return visited;
    }

    private static void checkReductions(SNodeRuntime rt, PlacedField field, Set<List<Integer>> cells, String where) {
        double sum = 0;
        double abs = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (List<Integer> cell : cells) {
            double value = value(field.type(), rt.generic().readBits(field,
                    cell.stream().mapToInt(Integer::intValue).toArray()));
            sum += value;
            abs += Math.abs(value);
            min = Math.min(min, value);
            max = Math.max(max, value);
        }
        String name = field.name();
        assertThat(rt.count(name)).as("count(%s) over %s", name, where).isEqualTo(cells.size());
        assertThat(rt.min(name)).as("min(%s) over %s", name, where).isEqualTo(min);
        assertThat(rt.max(name)).as("max(%s) over %s", name, where).isEqualTo(max);
        assertThat(rt.sum(name)).as("sum(%s) over %s", name, where).isCloseTo(sum, within(1e-9 * abs + 1e-9));
    }

    private static double value(FieldType type, long bits) {
        return switch (type) {
            case I32 -> (int) bits;
            case I64 -> bits;
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
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
