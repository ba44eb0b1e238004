package io.snode.runtime.internal;

import io.snode.api.SNode;
import io.snode.runtime.PathStep;
import io.snode.runtime.internal.node.ActivationRun;
import io.snode.runtime.internal.node.DynamicUnit;
import io.snode.runtime.internal.memory.HashTables;
import io.snode.runtime.internal.node.NodeUnit;
import java.lang.foreign.MemorySegment;

/**
 * One run of {@link NodeTree}'s activation protocol over one path (see "Activation protocol"
 * in its class comment): the three walks, each step handed to the node unit of that step, with
 * the state they share: what the plan found, the {@link Reservation}, and the {@link Location}
 * that every walk moves and that ends at the cell. One instance serves one call on one thread.
 */
public final class Activation implements ActivationRun {
    private final NodeTree structure;
    private final PathStep[] steps;
    private final NodeUnit[] units;
    private final int[] coordinates;
    private final boolean append;
    private final Reservation reservation;
    private final Location location;
    /** The first step the latest plan found inactive. */
    private int first;

    Activation(NodeTree structure, PathStep[] steps, NodeUnit[] units, int[] coordinates, boolean append,
               Reservation reservation, Location location) {
        this.structure = structure;
        this.steps = steps;
        this.units = units;
        this.coordinates = coordinates;
        this.append = append;
        this.reservation = reservation;
        this.location = location;
    }

    /** Whether this is an append (the list step takes the next index) rather than a write. */
    @Override
    public boolean append() {
        return append;
    }

    @Override
    public Reservation reservation() {
        return reservation;
    }

    /** The first step that the latest plan found inactive: steps above it only read when publishing. */
    @Override
    public int first() {
        return first;
    }

    private long container(int step) {
        return location.offset + steps[step].containerOffset();
    }

    /**
     * Step 1, read-only: the first path step that is inactive, or {@code steps.length} when the
     * whole path exists; what the list step needs is left in the reservation.
     *
     * @throws io.snode.runtime.DynamicListFullException for an append to a list that exists and is full
     */
    int plan() {
        reservation.needNothing();
        location.set(structure.root(), 0);
        int last = steps.length - 1;
        for (int s = 0; s <= last; s++) {
            int found = units[s].plan(location, container(s), steps[s].cellIndex(coordinates), this);
            if (found == NodeUnit.PLAN_INACTIVE) {
                reservation.needWholeList(units[last].node(), append ? 0 : steps[last].cellIndex(coordinates));
                return s;
            }
            if (found == NodeUnit.PLAN_LIST_NEEDS) {
                return s;
            }
            if (found == NodeUnit.PLAN_COMPLETE) {
                break;
            }
        }
        return steps.length;
    }

    /**
     * Step 2: takes from the node managers a cell for every pointer and hash step from
     * {@code first} on, the tables the hash steps need, and the chunk and directory blocks the
     * list step needs. This is the only place where the
     * memory cap, a full index space or an allocator fault can refuse, and nothing is published
     * yet.
     */
    void reserve(int first) {
        this.first = first;
        for (int s = first; s < steps.length; s++) {
            CheckedCells cells = units[s].reservedCells();
            if (cells != null && !reservation.has(s)) {
                reservation.put(s, cells, structure.allocate(units[s].node().snode(), cells));
            }
            units[s].reserve(s, this);
        }
        if (steps.length > 0 && units[steps.length - 1] instanceof DynamicUnit list) {
            reserveList(list);
        }
    }

    @Override
    public long reserveTable(SNode owner, HashTables tables, int capacity) {
        return structure.reserveTable(owner, tables, capacity);
    }

    /**
     * Reserves the chunk and directory blocks that the list step's latest needs name: the chunk
     * first, then the top and leaf blocks, so that no request follows the two to the directory
     * blocks' manager. A thread's cache undoes only its latest refill exactly
     * ({@code NodeManager.unallocate}): when top and leaf each took a refill and a later request
     * (the chunk's, as it used to come last) was refused, the top block stayed in the cache and
     * the manager's memory grown. A refusal of the leaf block undoes the top block's refill exactly.
     */
    @Override
    public void reserveList(DynamicUnit list) {
        int missing = reservation.missing();
        if ((missing & Reservation.NEED_CHUNK) != 0 && !reservation.has(reservation.chunkSlot())) {
            reservation.put(reservation.chunkSlot(), list.chunks(), structure.allocate(list.node().snode(), list.chunks()));
        }
        if ((missing & Reservation.NEED_TOP) != 0 && !reservation.has(reservation.topSlot())) {
            reservation.put(reservation.topSlot(), list.blocks(), structure.allocate(list.node().snode(), list.blocks()));
        }
        if ((missing & Reservation.NEED_LEAF) != 0 && !reservation.has(reservation.leafSlot())) {
            reservation.put(reservation.leafSlot(), list.blocks(), structure.allocate(list.node().snode(), list.blocks()));
        }
    }

    /**
     * Step 3: walks the path again and publishes, each unit at its step (see
     * {@link NodeUnit#publish}); {@link NodeUnit#REPLAN} with nothing published when a step
     * above the planned one is inactive now.
     *
     * @return the element's index for an append or a dynamic element, else 0
     */
    long publish() {
        location.set(structure.root(), 0);
        for (int s = 0; s < steps.length; s++) {
            long result = units[s].publish(location, container(s), steps[s].cellIndex(coordinates), s, this);
            if (result != NodeUnit.GO_ON) {
                return result;
            }
        }
        return 0;
    }

    @Override
    public boolean reachable(int step, MemorySegment segment, long container) {
        Location probe = new Location();
        return structure.walk(steps, units, step, coordinates, probe)
                && probe.segment == segment && probe.offset + steps[step].containerOffset() == container;
    }

    /**
     * Builds steps {@code step + 1 ..} of the path inside reserved cells, starting in the reserved
     * cell of step {@code step} at (segment, offset), which nobody else can see yet; every word
     * written is recorded so that {@link Reservation#unbuild} can zero it again.
     *
     * @return the element's index at a list step, else 0
     */
    @Override
    public long buildBelow(int step, MemorySegment segment, long offset) {
        reservation.startBuild();
        location.set(segment, offset);
        for (int t = step + 1; t < steps.length; t++) {
            long result = units[t].build(location, container(t), steps[t].cellIndex(coordinates), t, this);
            if (result != NodeUnit.GO_ON) {
                return result;
            }
        }
        return 0;
    }
}
