package io.snode.runtime.internal.node;

import io.snode.runtime.BitmaskWords;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A pointer node: its container is one {@link PointerWord} per cell (at
 * {@link PointerWord#wordOffset}); an active word names the child cell in this node's node
 * manager, which is allocated on activation.
 *
 * <pre>
 *  0        8        16            8 * cellCount
 * +--------+--------+-----+--------+
 * | word 0 | word 1 | ... | word n |     word i: cell i (see PointerWord for its values)
 * +--------+--------+-----+--------+
 * </pre>
 *
 * <p><b>Shared state and failure.</b> A child appears with one compare-and-set of its word from
 * {@link PointerWord#NULL} to a reserved cell in which the rest of the path was built first
 * ({@link #publish}), so a reader sees the word either inactive or with its subtree complete,
 * and an activation that fails (at step 2, before this) has published nothing. A thread that
 * loses the race zeroes what it built ({@code Reservation.unbuild}) and goes on in the winner's
 * cell. Deactivation takes the word to {@link PointerWord#BUSY} with a compare-and-set, so
 * exactly one thread releases the child; activations meeting a busy word wait, and one meeting
 * a {@link PointerWord#RETIRED} word (its enclosing cell was released under it) plans again from
 * the root, unless the word lies in a bitmasked cell that is active again, where it reopens the
 * word ({@link NodeUnit#reopen}: busy while a walk from the root confirms that). If the
 * release below throws, the word is still left inactive (null or retired) in a finally: the
 * child may keep cells that are never recycled, but nothing stays locked.
 */
public final class PointerUnit extends NodeUnit {
    private final CheckedCells cells;

    PointerUnit(SNodePlan node, NodeUnits units, CheckedCells cells) {
        super(node, units);
        this.cells = cells;
    }

    /** The allocator of this node's child cells. */
    public CheckedCells cells() {
        return cells;
    }

    @Override
    public boolean lookup(Location at, long container, long index) {
        long word = Atomics.getAcquire(at.segment, container + PointerWord.wordOffset(index));
        if (!PointerWord.isActive(word)) {
            return false;
        }
        long cell = PointerWord.cellIndex(word);
        at.set(cells.segment(cell), cells.offset(cell));
        return true;
    }

    @Override
    public boolean isActive(MemorySegment segment, long container, long index) {
        return PointerWord.isActive(Atomics.getAcquire(segment, container + PointerWord.wordOffset(index)));
    }

    @Override
    public int activateInline(Location at, long container, long index, boolean mayStore) {
        return lookup(at, container, index) ? INLINE_UNCHANGED : INLINE_REFUSED;
    }

    @Override
    public CheckedCells reservedCells() {
        return cells;
    }

    @Override
    public long publish(Location at, long container, long index, int step, ActivationRun activation) {
        MemorySegment segment = at.segment;
        long wordOffset = container + PointerWord.wordOffset(index);
        while (true) {
            long word = Atomics.getAcquire(segment, wordOffset);
            if (PointerWord.isActive(word)) {
                long cell = PointerWord.cellIndex(word);
                at.set(cells.segment(cell), cells.offset(cell));
                return GO_ON;
            }
            if (word == PointerWord.BUSY) {
                Thread.onSpinWait(); // a deactivation holds the word while it releases the subtree
                continue;
            }
            if (word == PointerWord.RETIRED && step >= activation.first()
                    && reopen(segment, wordOffset, PointerWord.RETIRED, PointerWord.BUSY, PointerWord.NULL, -1, step,
                    container, activation)) {
                continue; // a word of a bitmasked cell active again, reopened (or changed meanwhile): read it again
            }
            if (word == PointerWord.RETIRED || step < activation.first()) {
                return REPLAN; // released under us, or deactivated since the plan
            }
            long mine = activation.reservation().cell(step);
            long result = activation.buildBelow(step, cells.segment(mine), cells.offset(mine));
            if (Atomics.compareAndSet(segment, wordOffset, PointerWord.NULL, PointerWord.encode(mine))) {
                activation.reservation().used(step);
                activation.reservation().usedBuilt();
                activation.reservation().changed = true;
                return result;
            }
            activation.reservation().unbuild(); // lost the race: our cells are zero again, still ours
        }
    }

    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        long child = activation.reservation().cell(step);
        activation.reservation().buildsWith(step);
        activation.reservation().built(at.segment, container + PointerWord.wordOffset(index), PointerWord.encode(child));
        at.set(cells.segment(child), cells.offset(child));
        return GO_ON;
    }

    /**
     * A null or retired word, on which {@link #releaseWord} returns false at once; not a busy one
     * (another deactivation releasing the subtree, which a deactivation waits for).
     */
    @Override
    public boolean inactiveAtRest(MemorySegment segment, long container, long index) {
        long word = Atomics.getAcquire(segment, container + PointerWord.wordOffset(index));
        return word == PointerWord.NULL || word == PointerWord.RETIRED;
    }

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        return releaseWord(segment, container + PointerWord.wordOffset(index), false);
    }

    /** Every word null or retired: {@link #release} without retire returns at each of them at once. */
    @Override
    public boolean containerAtRest(MemorySegment segment, long container) {
        for (long index = 0; index < node.cellCount(); index++) {
            if (!inactiveAtRest(segment, container, index)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void release(MemorySegment segment, long container, boolean retire) {
        for (long index = 0; index < node.cellCount(); index++) {
            releaseWord(segment, container + PointerWord.wordOffset(index), retire);
        }
    }

    /**
     * Locks an active pointer word, releases the child's subtree, recycles it, and leaves the
     * word {@link PointerWord#NULL}, or {@link PointerWord#RETIRED} with {@code retire} (the
     * cell holding the word is being released: an inactive word is retired too, so that an
     * activation racing with the release cannot publish a subtree that nothing would release).
     */
    private boolean releaseWord(MemorySegment segment, long wordOffset, boolean retire) {
        long word;
        while (true) {
            word = Atomics.getAcquire(segment, wordOffset);
            if (word == PointerWord.RETIRED) {
                return false;
            }
            if (word == PointerWord.NULL) {
                if (!retire || Atomics.compareAndSet(segment, wordOffset, PointerWord.NULL, PointerWord.RETIRED)) {
                    return false;
                }
                continue;
            }
            if (word != PointerWord.BUSY && Atomics.compareAndSet(segment, wordOffset, word, PointerWord.BUSY)) {
                break;
            }
            Thread.onSpinWait(); // another thread holds the word for one release
        }
        long cell = PointerWord.cellIndex(word);
        try {
            units.releaseBelow(node, cells.segment(cell), cells.offset(cell));
            cells.recycle(cell);
        } finally {
            Atomics.setRelease(segment, wordOffset, retire ? PointerWord.RETIRED : PointerWord.NULL);
        }
        return true;
    }

    /**
     * Which of the {@code n} (1 to 64) pointer words at {@code offset} of {@code segment} are
     * active: bit k for word k, read with plain loads and without a branch per word (most words
     * are inactive, and a branch per word mispredicts). The caller orders what it reads next
     * with an acquire: a second read of the word, or a fence.
     */
    public static long activeMask(MemorySegment segment, long offset, int n) {
        long active = 0;
        for (int k = 0; k < n; k++) {
            active |= PointerWord.activeBit(segment.get(ValueLayout.JAVA_LONG, offset + PointerWord.wordOffset(k))) << k;
        }
        return active;
    }

    /**
     * Scans the words 64 at a time into a mask of the active ones ({@link #activeMask}), then
     * reads each word of the mask again with acquire ordering and visits it if it is still active.
     */
    @Override
    public long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level) {
        long count = node.cellCount();
        long visited = 0;
        for (long first = 0; first < count; first += BitmaskWords.BITS) {
            int n = (int) Math.min(BitmaskWords.BITS, count - first);
            long active = activeMask(segment, container + PointerWord.wordOffset(first), n);
            while (active != 0) {
                long index = first + Long.numberOfTrailingZeros(active);
                active &= active - 1;
                long word = Atomics.getAcquire(segment, container + PointerWord.wordOffset(index));
                if (PointerWord.isActive(word)) {
                    long cell = PointerWord.cellIndex(word);
                    visitor.visit(level, index, cells.segment(cell), cells.offset(cell), cell);
                    visited++;
                }
            }
        }
        return visited;
    }
}
