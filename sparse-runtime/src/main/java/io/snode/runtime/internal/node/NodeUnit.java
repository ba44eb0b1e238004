package io.snode.runtime.internal.node;

import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;

/**
 * The algorithms of one node kind over the containers of one SNode (Taichi's
 * {@code node_<kind>.h}): lookup of a cell, the steps of the activation protocol that the kind
 * takes part in, is-active, deactivation with release of everything below, and one iteration
 * over the active cells of a container. {@link io.snode.runtime.internal.NodeTree} walks the
 * path and runs the protocol (see its class comment); at each step it calls the unit of that
 * step's SNode, chosen once per SNode by {@link NodeUnits}.
 *
 * <p>Every method takes the container's memory ({@code segment}, or {@link Location#segment})
 * and its byte offset {@code container} there, and a cell index below the node's cell count.
 * Methods that move a {@link Location} leave it at the cell: {@link Location#segment} changes
 * only where the kind's cells live elsewhere (pointer children, list chunks).
 */
public abstract sealed class NodeUnit permits DenseUnit, BitmaskedUnit, PointerUnit, HashUnit, DynamicUnit {
    /** {@link #activateInline}: the step needs the whole protocol; nothing was stored. */
    public static final int INLINE_REFUSED = -1;
    /** {@link #activateInline}: the step was active already. */
    public static final int INLINE_UNCHANGED = 0;
    /** {@link #activateInline}: the step set a mask bit. */
    public static final int INLINE_CHANGED = 1;

    /** {@link #plan}: the step is active; the walk goes on at the cell. */
    public static final int PLAN_ACTIVE = 0;
    /** {@link #plan}: the step is inactive: it and every step below must be built. */
    public static final int PLAN_INACTIVE = 1;
    /** {@link #plan}: the list step needs what it recorded in the reservation. */
    public static final int PLAN_LIST_NEEDS = 2;
    /** {@link #plan}: the list step needs nothing: the whole path exists. */
    public static final int PLAN_COMPLETE = 3;

    /** {@link #publish}: the structure changed under the plan, and nothing was published; plan again. */
    public static final long REPLAN = -1;
    /** {@link #publish} and {@link #build}: the step is done; the walk goes on at the cell. */
    public static final long GO_ON = Long.MIN_VALUE;

    protected final SNodePlan node;
    protected final NodeUnits units;

    NodeUnit(SNodePlan node, NodeUnits units) {
        this.node = node;
        this.units = units;
    }

    public final SNodePlan node() {
        return node;
    }

    /**
     * Reopens a retired container that an activation met at its step {@code step}, at
     * ({@code segment}, {@code container}), when it lives again (a bitmasked cell that holds it
     * was deactivated, which retired it, and is active again). Under the container's own word
     * or lock at {@code word}: taken from {@code retired} to {@code held} while
     * {@link ActivationRun#reachable} walks from the root, so a deactivation that releases the
     * container (which takes the same word or lock) waits; then {@code open}, after zeroing the
     * word at {@code reset} (unless -1), when the walk arrived there, else {@code retired} again.
     * Pointer words, list and hash headers share it.
     *
     * @return whether the caller should try the container again: it is open now, or another
     *         thread changed the word first; false when it stays retired
     */
    static boolean reopen(MemorySegment segment, long word, long retired, long held, long open, long reset,
                          int step, long container, ActivationRun activation) {
        if (!Atomics.compareAndSet(segment, word, retired, held)) {
            return true;
        }
        boolean live = false;
        try {
            live = activation.reachable(step, segment, container);
            if (live && reset >= 0) {
                Atomics.setRelease(segment, reset, 0);
            }
        } finally {
            Atomics.setRelease(segment, word, live ? open : retired);
        }
        return live;
    }

    /** Whether activating a cell needs no memory and cannot fail (dense, bitmasked: cells inline). */
    public boolean activatesInPlace() {
        return false;
    }

    /** One level down, read-only (Taichi's {@code lookup_element}); false when the cell is inactive. */
    public abstract boolean lookup(Location at, long container, long index);

    public abstract boolean isActive(MemorySegment segment, long container, long index);

    /**
     * The step of the one-walk activation (see {@code NodeTree.activateInline}): moves
     * {@code at} to an active cell, or, for a clear mask bit and only with {@code mayStore}, sets
     * it. Returns {@link #INLINE_REFUSED} before storing anything when the step needs memory or
     * may fail.
     */
    public abstract int activateInline(Location at, long container, long index, boolean mayStore);

    /**
     * Step 1 of the protocol, read-only: {@link #PLAN_ACTIVE} (with {@code at} moved to the
     * cell) or {@link #PLAN_INACTIVE}; the list step answers {@link #PLAN_LIST_NEEDS} or
     * {@link #PLAN_COMPLETE} and records its needs in the activation's reservation.
     */
    public int plan(Location at, long container, long index, ActivationRun activation) {
        return lookup(at, container, index) ? PLAN_ACTIVE : PLAN_INACTIVE;
    }

    /**
     * The node manager that step 2 takes one cell from when this step is inactive (pointer
     * children), or null when the step needs none of its own.
     */
    public CheckedCells reservedCells() {
        return null;
    }

    /**
     * Step 2 beyond {@link #reservedCells}, at a step at or below the planned one: what else the
     * step takes before anything is published (a hash node's table). Nothing by default.
     */
    public void reserve(int step, ActivationRun activation) {
    }

    /**
     * Step 3 at path step {@code step}, in memory that others can see: {@link #GO_ON} with
     * {@code at} moved to the cell, {@link #REPLAN} when a step above the planned one
     * is inactive now (nothing published), or the activation's result when this step finished
     * it (a published pointer word, a list element).
     */
    public abstract long publish(Location at, long container, long index, int step, ActivationRun activation);

    /**
     * Step 3 below a pointer word not published yet, in reserved cells that nobody else can
     * reach: stores what makes the cell active, recording each word with
     * {@code Reservation.built} so that a lost race can zero it; {@link #GO_ON} with {@code at}
     * moved to the cell, or the result at a list step.
     */
    public abstract long build(Location at, long container, long index, int step, ActivationRun activation);

    /**
     * {@link #build} for the kinds that {@link #activatesInPlace}, without a reservation: in a
     * fresh cell that nobody else can reach, makes cell {@code index} active (a bitmasked node
     * stores its bit; the word was zero) and moves {@code at} to it. {@link #unbuildInPlace}
     * zeroes what it stored. {@code NodeTree}'s one-pointer activation uses the two.
     */
    public void buildInPlace(Location at, long container, long index) {
        throw new AssertionError(getClass().getSimpleName() + " does not activate in place");
    }

    /** Reverses {@link #buildInPlace} (the word it stored is zero again) and moves {@code at} as it did. */
    public void unbuildInPlace(Location at, long container, long index) {
        throw new AssertionError(getClass().getSimpleName() + " does not activate in place");
    }

    /**
     * Whether cell {@code index} is inactive with no deactivation of it in progress, read
     * without changing anything: a deactivation of it would change nothing and return false, so
     * {@code NodeTree.deactivateCell} returns at once, without advancing the epoch. False when
     * unsure (the default: a list's header is cleared whatever it holds).
     */
    public boolean inactiveAtRest(MemorySegment segment, long container, long index) {
        return false;
    }

    /**
     * Whether {@link #release} of the container at ({@code segment}, {@code container}), without
     * {@code retire}, would change nothing: every cell inactive and nothing in progress on it,
     * read without changing anything (no lock taken). {@code NodeTree.deactivateAll} leaves
     * such containers alone, the epoch as it was. False when unsure (the default).
     */
    public boolean containerAtRest(MemorySegment segment, long container) {
        return false;
    }

    /**
     * Deactivates cell {@code index} and releases everything below it (Taichi's
     * {@code deactivate}); false when it was inactive.
     */
    public abstract boolean deactivate(MemorySegment segment, long container, long index);

    /**
     * Releases everything below the cells of one container, as when the cell holding it is
     * released ({@code retire}: no activation may publish into it after this) or when every
     * cell of the node is deactivated.
     */
    public abstract void release(MemorySegment segment, long container, boolean retire);

    /**
     * The one iteration over the active cells of one container: calls {@code visitor} for each,
     * in increasing cell index, with {@code level} passed through, and returns how many it
     * visited. What counts as active is what {@link #isActive} says, read once per mask word,
     * pointer word or list length with acquire ordering, so a cell activated while the
     * iteration runs may or may not be visited; a visited pointer child or list chunk is one
     * that was published, with its contents complete. A dynamic container visits the indices
     * below its length whose chunk exists (an index below a write past the length may have
     * none). It allocates nothing; a visitor may deactivate the cell it is given, never others
     * of the same container.
     */
    public abstract long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level);

    /**
     * About how many cells, words or entries {@link #forEachActive} looks at in this container,
     * at most: its cells (a pointer's words, a dense or bitmasked node's cells), a hash table's
     * entries, a list's length; what a caller that could instead look up a few cells by index
     * ({@link #lookup}) compares with.
     */
    public long scanCost(MemorySegment segment, long container) {
        return node.cellCount();
    }

    /** Whether a caller may look up this node's cells one by one instead of iterating them (not a list's). */
    public boolean looksUpByIndex() {
        return true;
    }
}
