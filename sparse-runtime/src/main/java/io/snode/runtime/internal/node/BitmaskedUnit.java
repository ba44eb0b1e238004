package io.snode.runtime.internal.node;

import io.snode.runtime.BitmaskWords;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;

/**
 * A bitmasked node: its container is the mask words of {@link BitmaskWords}, then its cells
 * inline (at {@link SNodePlan#cellsOffset()}), so activation needs no memory and cannot fail.
 *
 * <p><b>Shared state and failure.</b> A bit is set with an atomic OR, which is idempotent: two
 * activations that set the same bit both succeed, and only the one that saw it clear counts a
 * change. The protocol sets a bit only where no later step of the call can fail (the one-walk
 * path), after the call's reservation (the protocol's publish), or inside reserved cells that
 * nobody else sees (build); a call that then fails at a full list below leaves the bit set for
 * the appends that filled the list. Deactivation clears the bit with an atomic AND first, so
 * exactly one deactivation releases the cell; then it releases what lies below and zeroes the
 * cell but for the containers of managed nodes below it (pointer words, list and hash headers),
 * which the release left empty and retired, and the mask words of bitmasked levels between
 * them, whose bits the release cleared one deactivation at a time ({@link NodeUnits#zeroCell}): an activation or append
 * that walked in before the bit was cleared is refused there, as in a released pointer cell,
 * instead of publishing under the inactive cell. When the cell is active again, the first
 * activation that meets such a container reopens it ({@link PointerUnit}, {@link DynamicUnit},
 * {@link HashUnit}). A store that a racing writer makes after that zeroing stays in the cell (the caller's
 * race, see {@code NodeTree}); nothing is left half-released, since the cell is inline.
 */
public final class BitmaskedUnit extends NodeUnit {
    /** The release walk's visitor, made once: deactivates the cell it is given. */
    private final ActiveCellVisitor deactivator;

    BitmaskedUnit(SNodePlan node, NodeUnits units) {
        super(node, units);
        this.deactivator = (level, index, segment, cell, managed) -> deactivate(segment, cell - cellOffset(index), index);
    }

    /** Byte offset of cell {@code index} from the start of the container (past the mask). */
    public long cellOffset(long index) {
        return node.cellsOffset() + index * node.cellBytes();
    }

    @Override
    public boolean activatesInPlace() {
        return true;
    }

    @Override
    public boolean lookup(Location at, long container, long index) {
        if (!isActive(at.segment, container, index)) {
            return false;
        }
        at.offset = container + cellOffset(index);
        return true;
    }

    @Override
    public boolean isActive(MemorySegment segment, long container, long index) {
        return (Atomics.getAcquire(segment, container + BitmaskWords.wordOffset(index)) & BitmaskWords.bit(index)) != 0;
    }

    @Override
    public int activateInline(Location at, long container, long index, boolean mayStore) {
        long word = container + BitmaskWords.wordOffset(index);
        long bit = BitmaskWords.bit(index);
        int result = INLINE_UNCHANGED;
        if ((Atomics.getAcquire(at.segment, word) & bit) == 0) {
            if (!mayStore) {
                return INLINE_REFUSED; // a later step may bail out: store nothing
            }
            if ((Atomics.getAndBitwiseOr(at.segment, word, bit) & bit) == 0) {
                result = INLINE_CHANGED;
            }
        }
        at.offset = container + cellOffset(index);
        return result;
    }

    @Override
    public long publish(Location at, long container, long index, int step, ActivationRun activation) {
        long word = container + BitmaskWords.wordOffset(index);
        long bit = BitmaskWords.bit(index);
        if ((Atomics.getAcquire(at.segment, word) & bit) == 0) {
            if (step < activation.first()) {
                return REPLAN;
            }
            if ((Atomics.getAndBitwiseOr(at.segment, word, bit) & bit) == 0) {
                activation.reservation().changed = true;
            }
        }
        at.offset = container + cellOffset(index);
        return GO_ON;
    }

    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        activation.reservation().built(at.segment, container + BitmaskWords.wordOffset(index), BitmaskWords.bit(index));
        at.offset = container + cellOffset(index);
        return GO_ON;
    }

    @Override
    public void buildInPlace(Location at, long container, long index) {
        // Nobody else can reach this cell until the release CAS that publishes it.
        Atomics.setRelease(at.segment, container + BitmaskWords.wordOffset(index), BitmaskWords.bit(index));
        at.offset = container + cellOffset(index);
    }

    @Override
    public void unbuildInPlace(Location at, long container, long index) {
        Atomics.setRelease(at.segment, container + BitmaskWords.wordOffset(index), 0);
        at.offset = container + cellOffset(index);
    }

    /** A clear bit: {@link #deactivate} would clear it again and return false. */
    @Override
    public boolean inactiveAtRest(MemorySegment segment, long container, long index) {
        return !isActive(segment, container, index);
    }

    /** Every mask word zero: {@link #release} without retire visits the active cells only. */
    @Override
    public boolean containerAtRest(MemorySegment segment, long container) {
        long words = BitmaskWords.words(node.cellCount());
        for (long word = 0; word < words; word++) {
            if (Atomics.getAcquire(segment, container + BitmaskWords.offsetOfWord(word)) != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        long bit = BitmaskWords.bit(index);
        long old = Atomics.getAndBitwiseAnd(segment, container + BitmaskWords.wordOffset(index), ~bit);
        if ((old & bit) == 0) {
            return false;
        }
        long cell = container + cellOffset(index);
        units.releaseBelow(node, segment, cell);
        units.zeroCell(node, segment, cell);
        return true;
    }

    /**
     * Deactivates every cell whose bit is set, reading each mask word once; where no managed node
     * lies below, a whole word at a time ({@link #clearWords}). With {@code retire}
     * (the cell holding this container is being released) the managed containers below the
     * cells that are inactive are retired too: a call that walked into the released cell before
     * may still set a bit there, and must then find them refusing, not publish a chunk or a
     * cell that nothing would release (what it published before this pass is released by it).
     * That pass takes one locked instruction per managed container: about 28 ns a list, 15 us
     * for a container of 8^3 cells with a list each, against 0.9 us without managed nodes below
     * ({@code BitmaskedReleaseBenchmark}).
     */
    @Override
    public void release(MemorySegment segment, long container, boolean retire) {
        if (!units.hasManagedBelow(node)) {
            clearWords(segment, container);
            return;
        }
        forEachActive(segment, container, deactivator, 0);
        if (retire) {
            for (long index = 0; index < node.cellCount(); index++) {
                units.releaseBelow(node, segment, container + cellOffset(index));
            }
        }
    }

    /**
     * {@link #release} where no managed node lies below (nothing to release in the cells, only
     * bits to clear and values to zero): each mask word with a bit set is cleared with one atomic
     * exchange, which deactivates every cell whose bit it returns at once, as {@link #deactivate}'s
     * AND does for one, and then those cells are zeroed, each run of consecutive bits with one
     * fill. A cell whose bit a racing activation sets after the exchange is not in the returned
     * bits and is left alone; a store of a racing write to a cell that the exchange deactivated
     * may land after the zeroing, as with {@link #deactivate} (the caller's race, see
     * {@code NodeTree}). One atomic per 64 cells instead of one per cell, one fill per run:
     * {@code DeactivateAllBenchmark} (L2's leaf on the W1s grid) 4.2 ns a voxel, against 12.2 to
     * 12.6 cell by cell (12-07, AMD EPYC VM).
     */
    private void clearWords(MemorySegment segment, long container) {
        long words = BitmaskWords.words(node.cellCount());
        long cellBytes = node.cellBytes();
        for (long word = 0; word < words; word++) {
            long offset = container + BitmaskWords.offsetOfWord(word);
            if (Atomics.getAcquire(segment, offset) == 0) {
                continue;
            }
            long bits = Atomics.getAndBitwiseAnd(segment, offset, 0L);
            while (bits != 0) {
                int first = Long.numberOfTrailingZeros(bits);
                int run = Long.numberOfTrailingZeros(~(bits >>> first)); // 1 to 64 - first consecutive bits
                long index = BitmaskWords.lowestIndex(word, bits);
                segment.asSlice(container + cellOffset(index), run * cellBytes).fill((byte) 0);
                bits = run == Long.SIZE ? 0 : bits & ~(((1L << run) - 1) << first);
            }
        }
    }

    @Override
    public long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level) {
        long words = BitmaskWords.words(node.cellCount());
        long visited = 0;
        for (long word = 0; word < words; word++) {
            long bits = Atomics.getAcquire(segment, container + BitmaskWords.offsetOfWord(word));
            while (bits != 0) {
                long index = BitmaskWords.lowestIndex(word, bits);
                bits &= bits - 1;
                visitor.visit(level, index, segment, container + cellOffset(index), -1);
                visited++;
            }
        }
        return visited;
    }

    /**
     * Its cells: the iteration reads the mask words and then visits every active cell, up to
     * all of them, where a look-up of one cell is one load of its mask word.
     */
    @Override
    public long scanCost(MemorySegment segment, long container) {
        return node.cellCount();
    }
}
