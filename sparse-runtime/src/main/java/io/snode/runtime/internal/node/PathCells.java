package io.snode.runtime.internal.node;

import io.snode.runtime.PathStep;
import java.lang.foreign.MemorySegment;

/**
 * Every active cell at the end of a path, visited down the path through the active cells of
 * each level with each step's own {@link NodeUnit#forEachActive}: the generic walk that
 * deactivating a whole SNode uses (struct-for's snapshot walk records blocks instead).
 */
public final class PathCells {
    private PathCells() {
    }

    /** Receives one active cell: its segment and byte offset. */
    @FunctionalInterface
    public interface CellVisitor {
        void visit(MemorySegment segment, long cell);
    }

    /**
     * Calls {@code visitor} for every active cell that has memory at the end of {@code steps}
     * (whose SNodes' units are {@code units}), starting at the root cell {@code root}; an empty
     * path is the root's one cell. For a dynamic last step: the indices below the length whose
     * chunk exists.
     */
    public static void forEach(MemorySegment root, PathStep[] steps, NodeUnit[] units, CellVisitor visitor) {
        if (steps.length == 0) {
            visitor.visit(root, 0);
            return;
        }
        ChainWalk walk = new ChainWalk(steps, units, visitor);
        units[0].forEachActive(root, steps[0].containerOffset(), walk, 0);
    }

    private record ChainWalk(PathStep[] steps, NodeUnit[] units, CellVisitor visitor) implements ActiveCellVisitor {
        @Override
        public void visit(int level, long index, MemorySegment segment, long cell, long managed) {
            int below = level + 1;
            if (below == steps.length) {
                visitor.visit(segment, cell);
            } else {
                units[below].forEachActive(segment, cell + steps[below].containerOffset(), this, below);
            }
        }
    }
}
