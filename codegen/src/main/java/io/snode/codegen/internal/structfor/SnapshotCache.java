package io.snode.codegen.internal.structfor;

import io.snode.api.SNode;
import io.snode.codegen.internal.WalkerEmitter;
import io.snode.runtime.internal.NodeTree;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The snapshots of a launcher and the rule that says when one still describes the structure:
 * the only reader of the structure's epoch ({@link NodeTree#epoch()}: advances on every
 * deactivation that changes something and every collection) and activation stamp ({@link NodeTree#activationStamp()}:
 * a later stamp differs once an activation completed) for struct-for. A snapshot is stamped with both as
 * read before its walk began; a launch uses the latest launch's snapshot as it is while both
 * are unchanged, else walks again into its arrays. A kept set ({@link #keep}) goes stale only
 * with the epoch: cells activated after it was taken are simply not in it, as for any launch.
 */
public final class SnapshotCache {
    private final NodeTree structure;
    /** The generated first phase of a snapshot's walk per target, or null where none applies. */
    private final Function<SNode, GeneratedWalk> walkers;
    /** How walks split over the launches' pool. */
    private final WalkSplit split;
    /** Blocks in the latest snapshot per target: sizes the next one's arrays. */
    private final Map<SNode, Integer> lastSizes;
    /**
     * Per target, the snapshot of the latest launch that ended normally: the next launch uses it
     * as it is when the structure has not changed since, else refills its arrays instead of
     * allocating them (several megabytes for 56,628 blocks). Taken with
     * {@code remove}, so two launches never share one; kept sets ({@link #keep}) never go here.
     */
    private final Map<SNode, ActiveBlocks> spares;
    private final LongAdder walks;

    /**
     * @param walkers the generated walk of a target for which {@link WalkerEmitter#applies}
     *                (called once per such target; the handles are kept here)
     */
    public SnapshotCache(NodeTree structure, Function<SNode, GeneratedWalk> walkers) {
        this(structure, walkers, WalkSplit.SEQUENTIAL);
    }

    /**
     * @param split how walks split over the launches' pool ({@link WalkSplit#SEQUENTIAL}: never)
     */
    public SnapshotCache(NodeTree structure, Function<SNode, GeneratedWalk> walkers, WalkSplit split) {
        this.structure = structure;
        this.split = java.util.Objects.requireNonNull(split, "split");
        Map<SNode, GeneratedWalk> defined = new ConcurrentHashMap<>();
        this.walkers = target -> WalkerEmitter.applies(target) ? defined.computeIfAbsent(target, walkers) : null;
        this.lastSizes = new ConcurrentHashMap<>();
        this.spares = new ConcurrentHashMap<>();
        this.walks = new LongAdder();
    }

    private SnapshotCache(SnapshotCache previous, WalkSplit split) {
        this.structure = previous.structure;
        this.split = java.util.Objects.requireNonNull(split, "split");
        this.walkers = previous.walkers;
        this.lastSizes = previous.lastSizes;
        this.spares = previous.spares;
        this.walks = previous.walks;
    }

    /**
     * This cache with walks split as {@code split} says, for a launcher of another parallelism:
     * it keeps the generated walks (no class is generated again), the kept snapshots and the
     * count of walks, which do not depend on the parallelism. Use one of the two from then on.
     */
    public SnapshotCache withSplit(WalkSplit split) {
        return new SnapshotCache(this, split);
    }

    /**
     * Runs {@code launch} over the active blocks of {@code target} now (call inside the phase
     * lock). The snapshot is kept for the next launch of the same target once this one has
     * returned normally, every task of it ended ({@code launch} must not keep it): when no
     * activation, deactivation or collection completed in between, that launch uses it as it is,
     * without a walk; else it walks again into the same arrays.
     */
    public <R> R withSnapshot(SNode target, Function<ActiveBlocks, R> launch) {
        // Both read before the walk: an activation or deactivation that completes later changes
        // one of them, and the next launch walks again.
        long activations = structure.activationStamp();
        long epoch = structure.epoch();
        ActiveBlocks blocks = spares.remove(target);
        if (blocks == null || !blocks.describes(epoch, activations)) {
            blocks = walk(target, blocks);
            blocks.stamp(epoch, activations);
            walks.increment();
        }
        R result = launch.apply(blocks);
        spares.put(target, blocks);
        return result;
    }

    /**
     * The active blocks of {@code target} now, in memory order, in arrays of their own (call
     * inside the phase lock), stamped for {@link #isCurrent}: for a set the caller keeps.
     */
    public ActiveBlocks keep(SNode target) {
        long activations = structure.activationStamp();
        long epoch = structure.epoch(); // before the walk: a deactivation during it makes the set stale
        ActiveBlocks blocks = walk(target, null);
        blocks.stamp(epoch, activations);
        return blocks;
    }

    /** Whether a kept set still holds only cells that are active: no deactivation or collection since {@link #keep}. */
    public boolean isCurrent(ActiveBlocks kept) {
        return kept.epochStamp() == structure.epoch();
    }

    /** The structure's epoch now, for messages about stale kept sets. */
    public long epoch() {
        return structure.epoch();
    }

    /** Walks for the active blocks that launches made so far (a launch over an unchanged structure makes none). */
    public long walks() {
        return walks.sum();
    }

    /** How this cache's walks split. */
    WalkSplit split() {
        return split;
    }

    /** Forgets the kept snapshots (their arrays go to the garbage collector). */
    public void clear() {
        spares.clear();
    }

    private ActiveBlocks walk(SNode target, ActiveBlocks spare) {
        ActiveBlocks blocks = ActiveBlocks.of(structure, target, lastSizes.getOrDefault(target, 0),
                walkers.apply(target), spare, split);
        lastSizes.put(target, blocks.size());
        return blocks;
    }
}
