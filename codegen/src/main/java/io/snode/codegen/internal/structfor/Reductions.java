package io.snode.codegen.internal.structfor;

import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.vectorization.ReductionKernels;
import io.snode.runtime.internal.vectorization.ScalarReductionKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;

/**
 * Sum, minimum, maximum and count over the active cells of a field's SNode, without atomics,
 * each computing only what it returns. The cells are those of the launch's snapshot
 * ({@link ActiveBlocks}), the very cells a {@code forEach} over the SNode visits, for every kind
 * ({@link BlockValues}); their values are read a vector at a time where the field is a packed
 * {@code f32} or {@code f64} array ({@link ReductionKernels}, from {@link VectorizationProvider}).
 *
 * <p>Deterministic whatever the parallelism, the CPU and the presence of the Vector API: the
 * blocks (in the snapshot's memory order) are cut into ranges by the same {@link LaunchSplit}
 * every launch uses, which depends only on the snapshot. Each range of a sum has
 * {@link ReductionKernels#LANES} partial sums; cell {@code n} of a block (in the block's cell
 * order, a list's index {@code n}) is added to partial sum {@code n % 32}, the blocks of the range
 * in order, as {@link ReductionKernels} defines. The ranges' partial sums are added lane by lane
 * in the split's tree (left before right) and the 32 lanes are folded in one fixed order
 * ({@link ReductionKernels#foldLanes}). So a parallel run adds the same numbers in the same order
 * as a sequential one, and the vector loops the same as the scalar ones. Minimum and maximum are
 * {@code Math.min}/{@code Math.max}, exact in any order; the count is a sum of the snapshot's
 * per-block counts, exact.
 *
 * <p>A sum reads a bitmasked block whole, as the fastest block reducer does: its inactive cells
 * hold zero, and a zero adds nothing, so the result is the sum over the active cells. Minimum and
 * maximum test the snapshot's mask (a zero would be a value). The two differ only where a cell
 * inactive in the snapshot holds something else: one activated and written by another thread
 * while the sum runs, or a store that raced a deactivation of the same cell (the caller's race,
 * {@code NodeTree}); a sum may then include it.
 */
public final class Reductions {
    /** The reductions' loops, chosen once per JVM ({@code static final}: C2 inlines them). */
    static final ReductionKernels KERNELS = VectorizationProvider.getInstance().reductionKernels();

    private Reductions() {
    }

    /** One reduction over a field, as {@link StructFor#reduce} runs it inside a launch. */
    @FunctionalInterface
    public interface Over<T> {
        T reduce(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges);
    }

    /** The sum of {@code field} over its SNode's active cells, in the order of the class comment. */
    public static double sum(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges) {
        SNode target = field.snode();
        SNodePlan plan = structure.plan().node(target);
        if (target.kind() == NodeKind.ROOT) {
            return 0.0 + rootValue(structure, plan, field);
        }
        BlockValues values = TargetKind.of(target.kind()).values(structure, plan, field);
        double[] lanes = snapshots.withSnapshot(target, blocks -> ranges.run(blocks,
                () -> new double[ReductionKernels.LANES],
                (from, to, partial) -> {
                    for (int b = from; b < to; b++) {
                        values.sum(blocks, b, partial);
                    }
                }, Reductions::addLanes));
        return lanes == null ? 0.0 : ReductionKernels.foldLanes(lanes);
    }

    /** {@code Math.min} over the active cells of {@code field}; +infinity when none is active. */
    public static double min(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges) {
        return extremum(false, structure, field, snapshots, ranges);
    }

    /** {@code Math.max} over the active cells of {@code field}; -infinity when none is active. */
    public static double max(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges) {
        return extremum(true, structure, field, snapshots, ranges);
    }

    /** The number of active cells of {@code field}'s SNode in the snapshot (1 for a root field); reads no values. */
    public static long count(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges) {
        SNode target = field.snode();
        if (target.kind() == NodeKind.ROOT) {
            return 1;
        }
        return snapshots.withSnapshot(target, blocks -> {
            long count = 0;
            for (int b = 0; b < blocks.size(); b++) {
                count += blocks.activeCells(b);
            }
            return count;
        });
    }

    private static double extremum(boolean max, NodeTree structure, PlacedField field, SnapshotCache snapshots,
                                   LaunchSplit ranges) {
        SNode target = field.snode();
        SNodePlan plan = structure.plan().node(target);
        if (target.kind() == NodeKind.ROOT) {
            return rootValue(structure, plan, field);
        }
        double identity = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        BlockValues values = TargetKind.of(target.kind()).values(structure, plan, field);
        double[] result = snapshots.withSnapshot(target, blocks -> ranges.run(blocks, () -> new double[] {identity},
                (from, to, partial) -> {
                    double running = partial[0];
                    for (int b = from; b < to; b++) {
                        running = values.extremum(max, blocks, b, running);
                    }
                    partial[0] = running;
                }, (left, right) -> left == null || right == null ? (left == null ? right : left)
                        : new double[] {max ? Math.max(left[0], right[0]) : Math.min(left[0], right[0])}));
        return result == null ? identity : result[0];
    }

    /**
     * {@code left} with {@code right}'s partial sums added lane by lane ({@code right}'s cells
     * come after {@code left}'s); either is null for a range a closing runtime skipped.
     */
    static double[] addLanes(double[] left, double[] right) {
        if (left == null || right == null) {
            return left == null ? right : left;
        }
        for (int lane = 0; lane < left.length; lane++) {
            left[lane] += right[lane];
        }
        return left;
    }

    private static double rootValue(NodeTree structure, SNodePlan plan, PlacedField field) {
        return ScalarReductionKernels.load(field.type(), structure.root(), plan.fieldOffset(field.slot()));
    }
}
