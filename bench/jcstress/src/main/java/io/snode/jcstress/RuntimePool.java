package io.snode.jcstress;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Runtimes of one layout, reused from one jcstress state to the next. jcstress creates thousands
 * of states per iteration; a fresh {@link SparseRuntime} costs 50-200 us (chunks from shared
 * arenas, whose close is a handshake with every thread), a reset one about 10-25 us.
 *
 * <p>Protocol: a state's constructor {@link #take}s a runtime; its arbiter, which jcstress runs
 * after every actor of that state, reads the outcome and then calls {@link #reset}, which
 * deactivates everything, collects, and puts the runtime back only when no cell stayed in use.
 * A runtime is so never seen by two states at once, and collection (which must not overlap any
 * other call) runs when the state's actors are done. Cells cached by the actor threads are
 * drained by the collection. Runtimes left in the pool when the forked VM ends are not closed.
 */
final class RuntimePool {
    /** {@link #reset} could not deactivate or collect (it closed the runtime). */
    static final int RESET_FAILED = -1;

    private final Layout layout;
    private final RuntimeOptions options;
    private final ConcurrentLinkedQueue<SparseRuntime> idle = new ConcurrentLinkedQueue<>();

    RuntimePool(Layout layout, RuntimeOptions options) {
        this.layout = layout;
        this.options = options;
    }

    RuntimePool(String layout) {
        this(Layout.parse(layout), RuntimeOptions.DEFAULT);
    }

    Layout layout() {
        return layout;
    }

    SparseRuntime take() {
        SparseRuntime runtime = idle.poll();
        return runtime != null ? runtime : SparseRuntime.create(layout, options);
    }

    /**
     * Deactivates every cell, collects, and pools the runtime again if that left nothing in use;
     * otherwise closes it.
     *
     * @return cells still in use after the reset, summed over every SNode (0 when clean), or
     *         {@link #RESET_FAILED}
     */
    int reset(SparseRuntime runtime) {
        return reset(runtime, () -> idle.add(runtime), runtime::close);
    }

    /**
     * {@link #reset(SparseRuntime)} for a runtime owned by something else (a compiled
     * {@code SNodeRuntime}'s generic runtime): {@code pool} puts the owner back when the reset left
     * nothing in use, {@code close} closes it otherwise or when the reset failed.
     */
    static int reset(SparseRuntime runtime, Runnable pool, Runnable close) {
        long inUse;
        try {
            inUse = clear(runtime);
        } catch (RuntimeException failure) {
            Unexpected.report("reset", failure);
            close.run();
            return RESET_FAILED;
        }
        if (inUse == 0) {
            pool.run();
        } else {
            close.run();
        }
        return (int) Math.min(inUse, Integer.MAX_VALUE);
    }

    /** Deactivates every cell and collects; returns the cells still in use, summed over every SNode. */
    private static long clear(SparseRuntime runtime) {
        deactivateBelow(runtime, runtime.layout().root());
        runtime.collect();
        return cellsInUse(runtime.memoryStats());
    }

    private static void deactivateBelow(SparseRuntime runtime, SNode node) {
        for (SNode child : node.children()) {
            if (child.kind().isSparse()) {
                runtime.deactivateAll(child);
            } else {
                deactivateBelow(runtime, child);
            }
        }
    }

    /** Cells (and dynamic directory blocks, and hash tables) in use over every SNode; exact when quiescent. */
    static long cellsInUse(MemoryStats stats) {
        long inUse = 0;
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            inUse += node.cells().cellsInUse();
            if (node.directories() != null) {
                inUse += node.directories().cellsInUse();
            }
            if (node.tables() != null) {
                inUse += node.tables().tables(); // a hash node's tables: none once everything is released and collected
            }
        }
        return inUse;
    }

    /** Cells of one SNode in use; exact when quiescent. */
    static int cellsInUse(SparseRuntime runtime, SNode snode) {
        return (int) runtime.memoryStats().of(snode).cells().cellsInUse();
    }
}
