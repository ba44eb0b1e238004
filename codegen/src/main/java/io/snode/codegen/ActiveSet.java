package io.snode.codegen;

import io.snode.api.SNode;
import io.snode.codegen.internal.structfor.ActiveBlocks;

/**
 * The active blocks of one SNode, taken once and kept for several launches (as OpenVDB's
 * {@code LeafManager} keeps a leaf array): a launch over a set skips the walk from the root that
 * other launches start with whenever something was activated or deactivated since the previous
 * launch over the same SNode. Take one with {@link SNodeRuntime#activeSet(SNode)}.
 *
 * <p>A launch over a set visits the cells that were active when the set was taken. Cells
 * activated later are not visited. A set goes stale when any cell of the runtime is deactivated
 * or memory is collected after it was taken (the memory of its blocks could then hold other
 * cells): a launch over a stale set throws {@link IllegalStateException} and visits nothing.
 * Take a new set after such changes; {@link #isCurrent()} says whether one is needed.
 *
 * <p>A set of a dynamic node keeps each list's length; the block forms over it also keep where
 * the lists' chunks lie, found on their first launch over the set. A chunk that had no memory
 * then (elements below the length never written, after a write past the length) reads as zeros
 * in the block forms over the set even after a later write gives it memory.
 */
public final class ActiveSet {
    private final SNodeRuntime owner;
    private final ActiveBlocks blocks;
    private final long cells;

    /** {@code blocks}: stamped with the epoch read before their walk (a deactivation during it makes the set stale). */
    ActiveSet(SNodeRuntime owner, ActiveBlocks blocks) {
        this.owner = owner;
        this.blocks = blocks;
        long count = 0;
        for (int b = 0; b < blocks.size(); b++) {
            count += blocks.activeCells(b);
        }
        this.cells = count;
    }

    public SNode snode() {
        return blocks.target();
    }

    /** Number of blocks (active cells of the SNode's parent). */
    public int blockCount() {
        return blocks.size();
    }

    /** Number of cells a launch over this set visits. */
    public long cellCount() {
        return cells;
    }

    /**
     * Whether the structure's epoch is the one the set was taken at: it advances on every
     * collection and on every {@code deactivate}, {@code deactivateBox} or {@code deactivateAll}
     * that finds something to deactivate or release (one that finds its cell inactive, no active
     * cell in its box, or nothing to release changes nothing), so a set may turn stale with
     * none of its own cells deactivated. False once the runtime is closed.
     */
    public boolean isCurrent() {
        return owner.isCurrent(blocks);
    }

    ActiveBlocks blocks(SNodeRuntime runtime) {
        if (runtime != owner) {
            throw new IllegalArgumentException("this active set of " + snode().path() + " belongs to another runtime");
        }
        if (!isCurrent()) {
            throw new IllegalStateException("the active set of " + snode().path() + " is stale: cells were deactivated"
                    + " or memory collected since it was taken (epoch " + blocks.epochStamp() + ", now " + owner.epoch()
                    + "); take a new one with activeSet(snode)");
        }
        return blocks;
    }

    @Override
    public String toString() {
        return "ActiveSet[" + snode().path() + ", " + blockCount() + " blocks, " + cellCount() + " cells"
                + (isCurrent() ? "" : ", stale") + "]";
    }
}
