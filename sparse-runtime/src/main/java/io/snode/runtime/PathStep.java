package io.snode.runtime;

import java.util.List;
import java.util.Objects;

/**
 * One level on the way from the root cell to a node's cell: the container sits at
 * {@code containerOffset} inside the parent's cell, and the cell index inside the container is
 * the sum over {@code splits} of {@code split.local(coordinate) * split.stride()}.
 *
 * <p>The splits are also kept taken apart in arrays (coordinate, shift or divisor, size,
 * stride per split) for {@link #cellIndex}, which every generic walk calls once per level: a
 * split whose divisor and size are powers of two (every usual layout) then costs a shift and a
 * mask instead of a division and a remainder of longs.
 */
public final class PathStep {
    private final SNodePlan node;
    private final long containerOffset;
    private final List<AxisSplit> splits;
    private final int[] coordinate;
    /** Per split: log2 of its divisor when divisor and size are powers of two, else -1 (divide). */
    private final int[] shift;
    private final long[] divisor;
    private final int[] size;
    private final long[] stride;

    public PathStep(SNodePlan node, long containerOffset, List<AxisSplit> splits) {
        this.node = Objects.requireNonNull(node, "node");
        this.containerOffset = containerOffset;
        this.splits = List.copyOf(splits);
        int count = this.splits.size();
        this.coordinate = new int[count];
        this.shift = new int[count];
        this.divisor = new long[count];
        this.size = new int[count];
        this.stride = new long[count];
        for (int s = 0; s < count; s++) {
            AxisSplit split = this.splits.get(s);
            coordinate[s] = split.coordinate();
            shift[s] = split.isPowerOfTwo() ? split.shift() : -1;
            divisor[s] = split.divisor();
            size[s] = split.size();
            stride[s] = split.stride();
        }
    }

    public SNodePlan node() {
        return node;
    }

    public long containerOffset() {
        return containerOffset;
    }

    public List<AxisSplit> splits() {
        return splits;
    }

    /**
     * The row-major cell index of this level for coordinates of the path's last node. Each term
     * is below its split's {@code size * stride}, so the sum is below the node's cell count and
     * cannot overflow.
     */
    public long cellIndex(int[] coordinates) {
        int[] coordinate = this.coordinate;
        int[] shift = this.shift;
        int[] size = this.size;
        long[] stride = this.stride;
        long index = 0;
        for (int s = 0; s < coordinate.length; s++) {
            index += AxisSplit.split(coordinates[coordinate[s]], divisor[s], shift[s], size[s]) * stride[s];
        }
        return index;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PathStep step && node.equals(step.node) && containerOffset == step.containerOffset
                && splits.equals(step.splits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(node, containerOffset, splits);
    }

    @Override
    public String toString() {
        return node.snode().description() + " container at +" + containerOffset + ", cell index from "
                + splits;
    }
}
