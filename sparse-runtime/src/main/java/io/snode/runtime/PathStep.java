package io.snode.runtime;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One level on the way from the root cell to a node's cell: the container sits at
 * {@code containerOffset} inside the parent's cell, and the cell index inside the container is
 * the sum over {@code splits} of {@code split.local(coordinate) * split.stride()}.
 *
 * <p>The splits are also kept taken apart for {@link #cellIndex}, which every generic walk calls
 * once per level: in arrays (coordinate, shift or divisor, size, stride per split), so that a
 * split whose divisor and size are powers of two costs a shift and a mask instead of a division
 * and a remainder of longs; and, for a level of one to three such splits (every usual layout),
 * in fields, so that the index is one expression without a loop (in a probe on this project's
 * VM, three levels' indices took 13 ns that way, 40 ns through the arrays and about 70 ns
 * through the list of splits).
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
    /** Whether {@link #cellIndex} takes the fields below: one to three splits, every one a shift and a mask. */
    private final boolean unrolled;
    /** Per split of an unrolled level (absent ones: coordinate 0, mask and stride 0): coordinate, shift, mask, stride. */
    private final int coordinate0;
    private final int coordinate1;
    private final int coordinate2;
    private final int shift0;
    private final int shift1;
    private final int shift2;
    private final int mask0;
    private final int mask1;
    private final int mask2;
    private final long stride0;
    private final long stride1;
    private final long stride2;

    public PathStep(SNodePlan node, long containerOffset, List<AxisSplit> splits) {
        this.node = Objects.requireNonNull(node, "node");
        this.containerOffset = containerOffset;
        this.splits = List.copyOf(Objects.requireNonNull(splits, "splits"));
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
        this.unrolled = count >= 1 && count <= 3 && Arrays.stream(shift).allMatch(x -> x >= 0);
        this.coordinate0 = unrolled ? coordinate[0] : 0;
        this.coordinate1 = unrolled && count > 1 ? coordinate[1] : 0;
        this.coordinate2 = unrolled && count > 2 ? coordinate[2] : 0;
        this.shift0 = unrolled ? shift[0] : 0;
        this.shift1 = unrolled && count > 1 ? shift[1] : 0;
        this.shift2 = unrolled && count > 2 ? shift[2] : 0;
        this.mask0 = unrolled ? size[0] - 1 : 0;
        this.mask1 = unrolled && count > 1 ? size[1] - 1 : 0;
        this.mask2 = unrolled && count > 2 ? size[2] - 1 : 0;
        this.stride0 = unrolled ? stride[0] : 0;
        this.stride1 = unrolled && count > 1 ? stride[1] : 0;
        this.stride2 = unrolled && count > 2 ? stride[2] : 0;
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
        if (unrolled) {
            return ((coordinates[coordinate0] >>> shift0) & mask0) * stride0
                    + ((coordinates[coordinate1] >>> shift1) & mask1) * stride1
                    + ((coordinates[coordinate2] >>> shift2) & mask2) * stride2;
        }
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
