package io.snode.runtime.internal.node;

import io.snode.runtime.AxisSplit;
import io.snode.runtime.PathStep;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One region deactivation: every cell of the path's last node whose coordinate range lies
 * wholly in the box {@code [low, high)} is deactivated with everything below it, and so is every
 * cell of a sparse node above it whose range lies wholly in the box (a pointer cell goes with its
 * whole subtree at once, as {@link NodeUnit#deactivate} releases it). A cell that the box cuts is
 * entered and its cells are looked at in turn; a cell of the last node that the box cuts is left
 * alone; a dense cell is always entered. Cells are found by their node units'
 * {@link NodeUnit#forEachActive}, or, where the box cuts fewer of a container's cells than a
 * quarter of what that iteration would look at ({@link NodeUnit#scanCost}), by looking up each
 * cell the box cuts ({@link NodeUnit#lookup}, as reads do): a small box costs what it cuts, not
 * what its containers hold (until 12-06 every box iterated every container on its path whole:
 * a one-block box under a hash container of 65,536 cells 2.8 ms, under a 128^3 pointer node
 * 2.9 ms). Coordinates are those of the last node's index space.
 *
 * <p><b>Shared state and failure.</b> Nothing is allocated and nothing can fail halfway for lack
 * of memory: each cell is deactivated by its unit's own deactivation (an atomic clear of its mask
 * bit or pointer word first, so that exactly one deactivation releases it, then the release of
 * what lies below), one cell after another. A concurrent reader sees each cell either before or
 * after its own deactivation; a concurrent activation inside the box races the deactivation of
 * its cell as it races {@code NodeTree.deactivate} (the caller's race, see {@code NodeTree}).
 * The caller advances the epoch before the first change and after the last, as for every
 * deactivation: the run calls back just before the first cell it found active is deactivated,
 * and a run that finds none calls nothing and changes nothing.
 */
public final class BoxDeactivation {
    private final PathStep[] steps;
    private final NodeUnit[] units;
    private final int[] low;
    private final int[] high;
    /** Per level: the low corner and the extent, per coordinate, of the cell whose container is visited. */
    private final long[][] corner;
    private final long[][] extent;
    /** Per level: for each split of its step, the first and last local index the box cuts, and the odometer. */
    private final long[][] first;
    private final long[][] last;
    private final long[][] local;
    /** Per level: where a look-up leaves the cell it found. */
    private final Location[] found;
    private long deactivated;
    private long examined;
    /** Called once, before the run's first change ({@link #run(MemorySegment, Runnable)}). */
    private Runnable beforeFirstChange;
    private boolean changing;

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
        this.first = new long[steps.length][];
        this.last = new long[steps.length][];
        this.local = new long[steps.length][];
        this.found = new Location[steps.length];
        for (int level = 0; level < steps.length; level++) {
            int splits = steps[level].splits().size();
            first[level] = new long[splits];
            last[level] = new long[splits];
            local[level] = new long[splits];
            found[level] = new Location();
        }
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
        return run(root, () -> { });
    }

    /**
     * {@link #run(MemorySegment)}, calling {@code beforeFirstChange} once, just before the first
     * deactivation of a cell the walk found active (the caller advances the epoch there), and
     * not at all when it finds none: a region deactivation that finds no cell changes nothing,
     * as one made just before whatever activates a cell of the box next. {@link #changing} says
     * afterwards (also after an exception) whether it was called.
     */
    public long run(MemorySegment root, Runnable beforeFirstChange) {
        this.beforeFirstChange = beforeFirstChange;
        visit(0, root, 0);
        return deactivated;
    }

    /** Whether the run called its {@code beforeFirstChange}: it deactivated, or began to deactivate, a cell. */
    public boolean changing() {
        return changing;
    }

    /**
     * What the run looked at so far: per container iterated, its {@link NodeUnit#scanCost}
     * (its cells, words or table entries); per container whose cells were looked up, those cells.
     */
    public long examined() {
        return examined;
    }

    private void visit(int level, MemorySegment segment, long cell) {
        long container = cell + steps[level].containerOffset();
        long cut = cut(level);
        if (cut == 0) {
            return;
        }
        long scan = units[level].scanCost(segment, container);
        if (cut < scan / 4 && units[level].looksUpByIndex()) {
            examined += cut;
            lookUpEach(level, segment, container);
            return;
        }
        examined += scan;
        units[level].forEachActive(segment, container,
                (s, index, childSegment, child, managed) -> cell(s, index, segment, container, childSegment, child), level);
    }

    /**
     * How many cells of the container at {@code level} (whose cell spans {@code corner[level]} and
     * {@code extent[level]}) the box cuts, with each split's first and last local index in
     * {@link #first} and {@link #last} (a step splits each coordinate once: a node's axes are
     * distinct); saturates at {@link Long#MAX_VALUE}.
     */
    private long cut(int level) {
        List<AxisSplit> splits = steps[level].splits();
        long cells = 1;
        for (int s = 0; s < splits.size(); s++) {
            AxisSplit split = splits.get(s);
            int c = split.coordinate();
            long origin = corner[level][c];
            long from = Math.max(0, Math.floorDiv(low[c] - origin, split.divisor()));
            long to = Math.min(split.size() - 1L, Math.floorDiv(high[c] - 1L - origin, split.divisor()));
            if (to < from) {
                return 0;
            }
            first[level][s] = from;
            last[level][s] = to;
            long count = to - from + 1;
            cells = Math.multiplyHigh(cells, count) != 0 || cells * count < 0 ? Long.MAX_VALUE : cells * count;
        }
        return cells;
    }

    /** Looks up each cell of the container that the box cuts ({@link #cut} set the ranges) and tests the active ones. */
    private void lookUpEach(int level, MemorySegment segment, long container) {
        List<AxisSplit> splits = steps[level].splits();
        int k = splits.size();
        long[] at = local[level];
        System.arraycopy(first[level], 0, at, 0, k);
        Location location = found[level];
        while (true) {
            long index = 0;
            for (int s = 0; s < k; s++) {
                index += at[s] * splits.get(s).stride();
            }
            location.set(segment, container);
            if (units[level].lookup(location, container, index)) {
                cell(level, index, segment, container, location.segment, location.offset);
            }
            int s = k - 1;
            while (s >= 0 && at[s] == last[level][s]) {
                at[s] = first[level][s];
                s--;
            }
            if (s < 0) {
                return;
            }
            at[s]++;
        }
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
            if (!changing) {
                changing = true;
                beforeFirstChange.run();
            }
            if (units[level].deactivate(segment, container, index)) {
                deactivated++;
            }
        } else if (!last) {
            visit(level + 1, childSegment, child);
        }
    }
}
