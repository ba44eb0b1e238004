package io.snode.codegen.internal.structfor;

import java.util.concurrent.ForkJoinPool;

/**
 * Whether and how a snapshot's walk runs on the launches' fork/join pool ({@link SnapshotWalk}):
 * with a pool, a walk whose parent manager can hold at least {@code minimumCells} cells splits its
 * first phase over the active cells below the root (a bitmap per task), and an emission of at
 * least {@code minimumCells} blocks splits into ranges of bitmap words (a prefix sum of their
 * bit counts gives each range its first block). Blocks come out in the same order either way.
 *
 * @param pool         the launches' pool, or null: every walk runs on the calling thread
 * @param parallelism  the pool's threads; each phase makes up to four tasks per thread
 * @param minimumCells the least work (parent cells, or blocks) that a phase splits
 */
public record WalkSplit(ForkJoinPool pool, int parallelism, long minimumCells) {
    /**
     * Cells of the parent manager, and blocks to emit, from which a walk splits: below that a
     * walk takes well under a millisecond (W3's 56,628 blocks take about 2 ms on one thread), and
     * forking costs tens of microseconds.
     */
    public static final long MINIMUM_CELLS = 4096;
    /** Every walk on the calling thread. */
    public static final WalkSplit SEQUENTIAL = new WalkSplit(null, 1, Long.MAX_VALUE);

    public WalkSplit {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism=" + parallelism + " must be at least 1");
        }
        if (minimumCells < 1) {
            throw new IllegalArgumentException("minimumCells=" + minimumCells + " must be at least 1");
        }
    }

    /** Tasks a phase of {@code work} units (parent cells or blocks) splits into; 1: it runs on the calling thread. */
    int tasks(long work, long items) {
        if (pool == null || parallelism == 1 || work < minimumCells) {
            return 1;
        }
        return (int) Math.max(1, Math.min(items, 4L * parallelism));
    }
}
