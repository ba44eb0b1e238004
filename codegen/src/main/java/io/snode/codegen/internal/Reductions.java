package io.snode.codegen.internal;

import io.snode.api.FieldType;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Structure;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Sum, minimum, maximum and count over the active cells of a field's SNode, without atomics.
 * Deterministic whatever the parallelism: blocks (in the snapshot's memory order) are summed in groups of {@link #GROUP} in
 * block order, and the groups' results are combined in group order, so a parallel run adds the
 * same numbers in the same order as a sequential one.
 */
public final class Reductions {
    /** Blocks per group: the unit of parallel work, fixed so results do not depend on threads. */
    static final int GROUP = 32;

    /** What to compute: sum, min and max of the values (as double) and the count of active cells. */
    public record Summary(long count, double sum, double min, double max) {
        static final Summary EMPTY = new Summary(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);

        Summary plus(Summary other) {
            return new Summary(count + other.count, sum + other.sum, Math.min(min, other.min), Math.max(max, other.max));
        }
    }

    private Reductions() {
    }

    /** Over the active cells of {@code field}; dense and bitmasked SNodes through the launcher's snapshot. */
    public static Summary summarize(Structure structure, PlacedField field, Launcher launcher) {
        ForkJoinPool pool = launcher.pool();
        SNode target = field.snode();
        SNodePlan plan = structure.plan().node(target);
        long offset = plan.fieldOffset(field.slot());
        FieldType type = field.type();
        if (target.kind() != NodeKind.DENSE && target.kind() != NodeKind.BITMASKED) {
            Summary[] result = {Summary.EMPTY};
            structure.forEachCell(target, (segment, cell) ->
                    result[0] = result[0].plus(one(load(type, segment, cell + offset))));
            return result[0];
        }
        return launcher.withSnapshot(target, blocks -> summarize(blocks, plan, type, offset, pool));
    }

    private static Summary summarize(ActiveBlocks blocks, SNodePlan plan, FieldType type, long offset,
                                     ForkJoinPool pool) {
        int groups = (blocks.size() + GROUP - 1) / GROUP;
        Summary[] partial = new Summary[groups];
        java.util.function.IntConsumer group = g -> {
            Summary summary = Summary.EMPTY;
            for (int n = g * GROUP; n < Math.min(blocks.size(), (g + 1) * GROUP); n++) {
                summary = summary.plus(block(blocks, n, plan, type, offset));
            }
            partial[g] = summary;
        };
        if (pool == null) {
            for (int g = 0; g < groups; g++) {
                group.accept(g);
            }
        } else {
            pool.submit(() -> IntStream.range(0, groups).parallel().forEach(group)).join();
        }
        Summary total = Summary.EMPTY;
        for (Summary summary : partial) {
            total = total.plus(summary);
        }
        return total;
    }

    private static Summary one(double value) {
        return new Summary(1, value, value, value);
    }

    /** One block, its active cells in cell order. */
    private static Summary block(ActiveBlocks blocks, int b, SNodePlan plan, FieldType type, long fieldOffset) {
        MemorySegment segment = blocks.segment(b);
        long first = blocks.container(b) + plan.cellsOffset() + fieldOffset;
        long count = 0;
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        long[] mask = blocks.masks();
        int maskAt = b * blocks.maskWords();
        long length = blocks.length(b);
        for (long n = 0; n < length; n++) {
            if (mask != null && (mask[maskAt + (int) (n >>> 6)] & (1L << n)) == 0) {
                continue;
            }
            double value = load(type, segment, first + n * plan.cellBytes());
            count++;
            sum += value;
            min = Math.min(min, value);
            max = Math.max(max, value);
        }
        return new Summary(count, sum, min, max);
    }

    private static double load(FieldType type, MemorySegment segment, long offset) {
        return switch (type) {
            case I32 -> segment.get(ValueLayout.JAVA_INT, offset);
            case I64 -> segment.get(ValueLayout.JAVA_LONG, offset);
            case F32 -> segment.get(ValueLayout.JAVA_FLOAT, offset);
            case F64 -> segment.get(ValueLayout.JAVA_DOUBLE, offset);
        };
    }
}
