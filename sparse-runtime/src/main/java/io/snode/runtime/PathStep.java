package io.snode.runtime;

import java.util.List;

/**
 * One level on the way from the root cell to a node's cell: the container sits at
 * {@code containerOffset} inside the parent's cell, and the cell index inside the container is
 * the sum over {@code splits} of {@code split.local(coordinate) * split.stride()}.
 */
public record PathStep(SNodePlan node, long containerOffset, List<AxisSplit> splits) {

    /**
     * The row-major cell index of this level for coordinates of the path's last node. Each term
     * is below its split's {@code size * stride}, so the sum is below the node's cell count and
     * cannot overflow.
     */
    public long cellIndex(int[] coordinates) {
        long index = 0;
        for (AxisSplit split : splits) {
            index += split.local(coordinates[split.coordinate()]) * split.stride();
        }
        return index;
    }

    @Override
    public String toString() {
        return node.snode().description() + " container at +" + containerOffset + ", cell index from "
                + splits;
    }
}
