package io.snode.runtime.internal.node;

import io.snode.runtime.AxisSplit;
import io.snode.runtime.PathStep;
import java.lang.foreign.MemorySegment;

/**
 * One region deactivation: every cell of the path's last node whose coordinate range lies
 * wholly in the box {@code [low, high)} is deactivated with everything below it, and so is every
 * cell of a sparse node above it whose range lies wholly in the box (a pointer cell goes with its
 * whole subtree at once, as {@link NodeUnit#deactivate} releases it). A cell that the box cuts is
 * entered and its cells are looked at in turn; a cell of the last node that the box cuts is left
 * alone; a dense cell is always entered. Cells are found by their node units'
 * {@link NodeUnit#forEachActive}, and coordinates are those of the last node's index space.
 *
 * <p><b>Shared state and failure.</b> Nothing is allocated and nothing can fail halfway for lack
 * of memory: each cell is deactivated by its unit's own deactivation (an atomic clear of its mask
 * bit or pointer word first, so that exactly one deactivation releases it, then the release of
 * what lies below), one cell after another. A concurrent reader sees each cell either before or
 * after its own deactivation; a concurrent activation inside the box races the deactivation of
 * its cell as it races {@code NodeTree.deactivate} (the caller's race, see {@code NodeTree}).
 * The caller advances the epoch before and after, as for every deactivation.
 */
public final class BoxDeactivation {
    private final PathStep[] steps;
    private final NodeUnit[] units;
    private final int[] low;
    private final int[] high;
    /** Per level: the low corner and the extent, per coordinate, of the cell whose container is visited. */
    private final long[][] corner;
    private final long[][] extent;
    private long deactivated;

    /**
     * @param steps  the path to the last node
     * @param units  the unit of each step's node
     * @param low    the box's low corner, inclusive, in the last node's index space
     * @param high   its high corner, exclusive
     */
    public BoxDeactivation(PathStep[] steps, NodeUnit[] units, int[] low, int[] high) {
        this.steps = steps;
        this.units = units;
        this.low = low;
        this.high = high;
        this.corner = new long[steps.length + 1][low.length];
        this.extent = new long[steps.length + 1][low.length];
        // The root cell spans the whole index space: per coordinate, its outermost split's span.
        for (PathStep step : steps) {
            for (AxisSplit split : step.splits()) {
                int c = split.coordinate();
                extent[0][c] = Math.max(extent[0][c], split.divisor() * split.size());
            }
        }
    }

    /** Deactivates what lies in the box below the root cell at ({@code root}, 0); returns the cells deactivated. */
    public long run(MemorySegment root) {
        visit(0, root, 0);
        return deactivated;
    }

    private void visit(int level, MemorySegment segment, long cell) {
        long container = cell + steps[level].containerOffset();
        units[level].forEachActive(segment, container,
                (s, index, childSegment, child, managed) -> cell(s, index, segment, container, childSegment, child), level);
    }

    private void cell(int level, long index, MemorySegment segment, long container, MemorySegment childSegment,
                      long child) {
        long[] lo = corner[level + 1];
        long[] len = extent[level + 1];
        System.arraycopy(corner[level], 0, lo, 0, lo.length);
        System.arraycopy(extent[level], 0, len, 0, len.length);
        for (AxisSplit split : steps[level].splits()) {
            int c = split.coordinate();
            long local = AxisSplit.split(index, split.stride(), -1, split.size());
            lo[c] = corner[level][c] + local * split.divisor();
            len[c] = split.divisor();
        }
        boolean inside = true;
        for (int c = 0; c < lo.length; c++) {
            if (lo[c] + len[c] <= low[c] || lo[c] >= high[c]) {
                return; // disjoint
            }
            inside &= low[c] <= lo[c] && lo[c] + len[c] <= high[c];
        }
        boolean last = level == steps.length - 1;
        if (inside && steps[level].node().kind().isSparse()) {
            if (units[level].deactivate(segment, container, index)) {
                deactivated++;
            }
        } else if (!last) {
            visit(level + 1, childSegment, child);
        }
    }
}
