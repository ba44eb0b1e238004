package io.snode.codegen.internal.structfor;

import io.snode.api.FieldType;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Sum, minimum, maximum and count over the active cells of a field's SNode, without atomics.
 * The cells are those of the launch's snapshot ({@link ActiveBlocks}), the very cells a
 * {@code forEach} over the SNode visits, for every kind ({@link BlockValues}).
 *
 * <p>Deterministic whatever the parallelism: the blocks (in the snapshot's memory order) are cut
 * into ranges by the same {@link LaunchSplit} every launch uses, which depends only on the
 * snapshot; each range adds its cells in block and cell order, and the ranges' results are
 * combined in the split's tree, so a parallel run adds the same numbers in the same order as a
 * sequential one.
 */
public final class Reductions {
    /** What to compute: sum, min and max of the values (as double) and the count of active cells. */
    public record Summary(long count, double sum, double min, double max) {
        static final Summary EMPTY = new Summary(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
    }

    private Reductions() {
    }

    /** Over the active cells of {@code field}, through the snapshot of its SNode, on the launches' split. */
    public static Summary summarize(NodeTree structure, PlacedField field, SnapshotCache snapshots, LaunchSplit ranges) {
        SNode target = field.snode();
        SNodePlan plan = structure.plan().node(target);
        if (target.kind() == NodeKind.ROOT) {
            double value = load(field.type(), structure.root(), plan.fieldOffset(field.slot()));
            return new Summary(1, value, value, value);
        }
        BlockValues values = TargetKind.of(target.kind()).values(structure, plan, field);
        Accumulator total = snapshots.withSnapshot(target, blocks -> ranges.run(blocks, Accumulator::new,
                (from, to, sum) -> {
                    for (int b = from; b < to; b++) {
                        values.add(blocks, b, sum);
                    }
                }, Accumulator::merge));
        return total == null ? Summary.EMPTY : total.summary();
    }

    /** Count, sum, min and max of one range's values, added in block and cell order. */
    static final class Accumulator {
        private long count;
        private double sum;
        private double min = Double.POSITIVE_INFINITY;
        private double max = Double.NEGATIVE_INFINITY;

        void add(double value) {
            count++;
            sum += value;
            min = Math.min(min, value);
            max = Math.max(max, value);
        }

        /** {@code cells} values of zero, as {@code cells} calls of {@link #add} would add them. */
        /**
         * Adds the cells {@code first + n * stride} for {@code n} below {@code length} whose bit
         * is set in {@code mask} from word {@code maskAt} (every cell when {@code mask} is null),
         * in cell order, exactly as {@link #add} one by one would; the running values stay in
         * locals for the loop, so the JIT keeps them in registers rather than in this object.
         */
        void addCells(FieldType type, MemorySegment segment, long first, long stride, long length, long[] mask,
                      int maskAt) {
            long count = this.count;
            double sum = this.sum;
            double min = this.min;
            double max = this.max;
            for (long n = 0; n < length; n++) {
                if (mask == null || BitmaskWords.isSet(mask, maskAt, n)) {
                    double value = load(type, segment, first + n * stride);
                    count++;
                    sum += value;
                    min = Math.min(min, value);
                    max = Math.max(max, value);
                }
            }
            this.count = count;
            this.sum = sum;
            this.min = min;
            this.max = max;
        }

        void addZeros(long cells) {
            if (cells > 0) {
                count += cells;
                sum += 0.0;
                min = Math.min(min, 0.0);
                max = Math.max(max, 0.0);
            }
        }

        /**
         * {@code left} with {@code right} added ({@code right}'s values after {@code left}'s);
         * either is null for a range a closing runtime skipped.
         */
        static Accumulator merge(Accumulator left, Accumulator right) {
            if (left == null || right == null) {
                return left == null ? right : left;
            }
            left.count += right.count;
            left.sum += right.sum;
            left.min = Math.min(left.min, right.min);
            left.max = Math.max(left.max, right.max);
            return left;
        }

        Summary summary() {
            return new Summary(count, sum, min, max);
        }
    }

    static double load(FieldType type, MemorySegment segment, long offset) {
        return switch (type) {
            case I32 -> segment.get(ValueLayout.JAVA_INT, offset);
            case I64 -> segment.get(ValueLayout.JAVA_LONG, offset);
            case F32 -> segment.get(ValueLayout.JAVA_FLOAT, offset);
            case F64 -> segment.get(ValueLayout.JAVA_DOUBLE, offset);
        };
    }
}
