package io.snode.runtime.internal.node;

import io.snode.api.SNode;
import io.snode.runtime.internal.Reservation;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;

/**
 * What a node unit's protocol steps ({@link NodeUnit#plan}, {@link NodeUnit#publish},
 * {@link NodeUnit#build}) see of the activation they take part in: one run of the activation
 * protocol over one path, on one thread (see the protocol in {@code NodeTree}'s class comment).
 */
public interface ActivationRun {
    /** Whether this is an append (the list step takes the next index) rather than a write. */
    boolean append();

    /** The cells and blocks reserved for this run; what its steps built, to zero if it loses a race. */
    Reservation reservation();

    /** The first step that the latest plan found inactive: steps above it only read when publishing. */
    int first();

    /**
     * A new empty table of {@code capacity} entries from {@code tables}, for a step of
     * {@code owner}, taken as the node managers' cells are (the memory cap and injected faults
     * refuse here).
     */
    long reserveTable(SNode owner, HashTables tables, int capacity);

    /** Reserves the chunk and directory blocks that the list step's latest needs name. */
    void reserveList(DynamicUnit list);

    /**
     * Builds the steps below {@code step} inside reserved cells, starting in the reserved cell
     * of step {@code step} at (segment, offset), which nobody else can see yet.
     *
     * @return the element's index at a list step, else 0
     */
    long buildBelow(int step, MemorySegment segment, long offset);

    /**
     * Whether a walk from the root over this run's coordinates, read now, finds every step above
     * {@code step} active and arrives at step {@code step}'s container at ({@code segment},
     * {@code container}): the container lives (a bitmasked cell holding it is active again), as
     * opposed to one left in a released cell. A unit asks this while it holds a retired
     * container's word or lock, before reopening it.
     */
    boolean reachable(int step, MemorySegment segment, long container);
}
