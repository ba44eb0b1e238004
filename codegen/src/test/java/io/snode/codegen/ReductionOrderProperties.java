package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.vectorization.ReductionKernels;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * {@code sum} adds the values in the order its Javadoc documents, to the bit, on random small
 * layouts after random writes, deactivations and collections, for every kind of target and field
 * type: the model visits the cells with a sequential {@code forEach} (blocks in memory order,
 * cells in cell order), reads each value through the generic path and adds it into partial sum
 * {@code n % 32}, {@code n} the cell's index in its block (0 for a hash target, whose blocks are
 * single cells), then folds the partial sums pairwise. These layouts have far fewer than 32,768
 * active cells, so a launch is one range and no combining is involved (ReductionOrderTest covers
 * the ranges). Equal with 1 and 2 threads; tagged to run again without the Vector API, where the
 * scalar loops must give the same bits.
 */
@Tag("scalar-fallback")
class ReductionOrderProperties {

    @Property(tries = 120)
    void sumAddsEachCellIntoThePartialSumOfItsIndexInVisitOrder(@ForAll("layouts") Layout layout,
                                                                 @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(rt, layout, random, 40, 6, 9);
            for (PlacedField field : layout.fields()) {
                SNode node = field.snode();
                if (node.kind() == NodeKind.ROOT) {
                    double value = value(field.type(), rt.generic().readBits(field));
                    assertThat(Double.doubleToLongBits(rt.sum(field.name()))).isEqualTo(Double.doubleToLongBits(0.0 + value));
                    continue;
                }
                rt.parallelism(1);
                double expected = modelSum(rt, field);
                for (int threads : new int[] {1, 2}) {
                    rt.parallelism(threads);
                    assertThat(Double.doubleToLongBits(rt.sum(field.name())))
                            .as("sum(%s) = %s with %d threads over %s in %s", field.name(), rt.sum(field.name()),
                                    threads, node.path(), layout)
                            .isEqualTo(Double.doubleToLongBits(expected));
                }
            }
        }
    }

    /** The documented order over one range: a sequential forEach, partial sum by the cell's index in its block. */
    static double modelSum(SNodeRuntime rt, PlacedField field) {
        SNode node = field.snode();
        SNodePlan plan = rt.plan().node(node);
        List<Axis> indexAxes = node.indexAxes();
        List<Axis> own = node.axes().list();
        double[] lanes = new double[ReductionKernels.LANES];
        rt.forEach(node, StructForProperties.kernel(indexAxes.size(), at -> {
            long n = 0;
            if (node.kind() != NodeKind.HASH) {
                for (int a = 0; a < own.size(); a++) {
                    n += (at[indexAxes.indexOf(own.get(a))] % node.size(own.get(a))) * plan.stride(a);
                }
            }
            lanes[(int) (n % ReductionKernels.LANES)] += value(field.type(), rt.generic().readBits(field, at));
        }));
        return ReductionKernels.foldLanes(lanes);
    }

    static double value(FieldType type, long bits) {
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
