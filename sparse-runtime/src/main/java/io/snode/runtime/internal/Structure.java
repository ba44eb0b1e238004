package io.snode.runtime.internal;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The node algorithms over one runtime's memory, written once for every layout (the role of
 * Taichi's {@code runtime.cpp} and {@code node_*.h}): walking a path from the root cell,
 * activation, deactivation of a cell and everything below it, dynamic lists, and visiting
 * active cells.
 *
 * <h2>Activation protocol: reserve, then publish</h2>
 * An activation (a write's slow path, {@link #locate} with {@code activate}, {@link #append})
 * runs in three steps, and only the second can fail for lack of memory:
 * <ol>
 *   <li><b>Plan</b> (read-only): walk the path and find the first step that is inactive (a
 *       clear mask bit, a pointer word that is not active, a missing list chunk). An append
 *       to a list that exists and is full throws {@link DynamicListFullException} here.</li>
 *   <li><b>Reserve</b>: take from the node managers one cell for every pointer step from that
 *       step on, and the chunk and directory blocks the list step needs. The memory cap, a
 *       full index space or an allocator fault refuse here, and the reserved cells go back
 *       ({@code unallocate}, newest first) with nothing published.</li>
 *   <li><b>Publish</b>, top-down: steps before the planned one only read; if one of them is
 *       inactive now (a deactivation in between), the call hands its cells back and plans
 *       again, having published nothing. From the planned step on: a clear mask bit is set
 *       with an atomic OR; at an inactive pointer word the rest of the path (mask bits, pointer
 *       words, the list header with its length and chunk) is built inside the reserved cells,
 *       which nobody else can reach, and appears with one compare-and-set of the word from
 *       {@link PointerWord#NULL} to the reserved cell (release). A thread that loses that race
 *       zeroes what it built and goes on into the winner's cell. In an existing list the
 *       element's chunk is published under the header lock from reserved blocks (nothing is
 *       allocated while the lock is held), then the index is taken with a compare-and-set on
 *       the length.</li>
 * </ol>
 * Cells reserved and not published go back to their managers when the call ends.
 *
 * <p><b>Assumptions:</b> no collection runs while any method here runs (the runtime's phase
 * lock or the caller guarantee it). <b>Guarantees:</b>
 * <ol>
 *   <li>Exactly one cell is published per activated pointer cell, whatever the number of
 *       threads; reads see a pointer either inactive or published with its subtree complete.</li>
 *   <li>A call that returned normally is never undone by another call's failure: nothing is
 *       ever unpublished except by a deactivation.</li>
 *   <li>A call that fails (memory cap, allocator fault, full list) leaves nothing that another
 *       call can see beyond what the calls that returned normally needed: it fails either
 *       before publishing anything, or, for an append, after publishing only mask bits and
 *       chunks that other appends then filled (a bit is set by whichever of the appends under it
 *       comes first; setting it again changes nothing), so the structure is as if only the
 *       calls that returned normally had run.</li>
 * </ol>
 * <b>Not guaranteed:</b> deactivating a cell while another thread activates or writes below it
 * is a race of the caller's making: writes below may be lost (never memory of another cell,
 * since recycled cells are reused only after collection; a bitmasked cell is inline and is
 * zeroed when it is deactivated, so a store that lands after that zeroing stays in the cell and
 * shows when the cell is activated again). No cell leaks in that race: a
 * release leaves every pointer word of the released cells {@link PointerWord#RETIRED} and every
 * list header lock {@link DynamicHeader#LOCK_RETIRED}, an activation that meets either starts
 * again from the root, and anything it published before the release reached it is released.
 * <b>Progress:</b> readers are wait-free; an activation is lock-free against other activations
 * (it waits only for a list's header lock, held for a few stores, or for a pointer word that a
 * deactivation holds while it releases the subtree below).
 */
public final class Structure {
    private final Plan plan;
    private final MemorySegment root;
    private final CellManager[] cells;
    /** {@link #inlineTails}: where a target's path has only dense and bitmasked steps left. */
    private final int[] inlineTail;
    private final CellManager[] directories;
    private final MemorySegment[] ambient;
    private final boolean[] managedBelow;
    /**
     * Counts events after which a remembered cell may no longer be the cell of its coordinates:
     * deactivations and collections. Accessors that cache cells compare
     * it before using a cached cell (read before their walk, so a change during the walk is
     * seen by the next access).
     */
    private volatile long epoch;
    /**
     * Counts activations that changed something (a pointer published, a mask bit set, a list
     * lengthened or appended to), each counted once it is complete. It only grows. A walk that
     * reads it (and the epoch) before it starts, and finds both unchanged later, knows that no
     * activation or deactivation completed in between: one that completed before a reader
     * started happened before the reader's read of this sum, which would see its increment.
     * Striped, so that threads activating at once do not contend on one counter.
     */
    private final java.util.concurrent.atomic.LongAdder activations = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param cells       per SNode id: the allocator of a pointer's child cells or of a dynamic's
     *                    element chunks; null for other kinds
     * @param directories per SNode id: the allocator of a dynamic's directory blocks, else null
     * @param ambient     per SNode id: the zeroed cell that reads of an inactive pointer cell or
     *                    of a list element past the length land on; null for other kinds
     */
    public Structure(Plan plan, MemorySegment root, CellManager[] cells, CellManager[] directories,
                     MemorySegment[] ambient) {
        this.plan = plan;
        this.root = root;
        this.cells = cells.clone();
        this.directories = directories.clone();
        this.ambient = ambient.clone();
        List<SNodePlan> nodes = plan.nodes();
        this.inlineTail = inlineTails(plan);
        this.managedBelow = new boolean[nodes.size()];
        for (int id = nodes.size() - 1; id >= 0; id--) {
            for (SNode child : nodes.get(id).snode().children()) {
                managedBelow[id] |= child.kind() == NodeKind.POINTER || child.kind() == NodeKind.DYNAMIC
                        || managedBelow[child.id()];
            }
        }
    }

    public Plan plan() {
        return plan;
    }

    /**
     * Test seam: sees every cell request an activation or append makes of a node manager, just
     * before it is made, on the requesting thread. A probe may block (to fix an interleaving with
     * latches) or throw (an injected allocator fault, as the memory cap would).
     */
    @FunctionalInterface
    public interface AllocationProbe {
        void beforeAllocate(SNode owner);
    }

    /** Installs {@code probe} (null removes it); for tests only. */
    public void probeAllocations(AllocationProbe probe) {
        this.allocationProbe = probe;
    }

    private volatile AllocationProbe allocationProbe;

    private long allocate(SNode owner, CellManager manager) {
        AllocationProbe probe = allocationProbe;
        if (probe != null) {
            probe.beforeAllocate(owner);
        }
        return manager.allocate();
    }

    /** The current epoch; it changes whenever a cell may have left its coordinates. */
    public long epoch() {
        return epoch;
    }

    /** Activations that changed something so far (see the field); read it before a walk. */
    public long activations() {
        return activations.sum();
    }

    /**
     * Per thread: where deactivations made on it are counted, or null. The launcher sets it on
     * the threads that run a launch's tasks, for as long as each task runs, so that the launch
     * knows whether its own kernels deactivated something (and collects after it only then).
     */
    private final ThreadLocal<java.util.concurrent.atomic.LongAdder> deactivationCounter = new ThreadLocal<>();

    /**
     * Makes {@code counter} (or null) count the deactivations made on this thread from now on:
     * every {@link #deactivate} that found an active cell and every {@link #deactivateAll}.
     *
     * @return the counter it replaces, to be put back when the caller is done
     */
    public java.util.concurrent.atomic.LongAdder swapDeactivationCounter(java.util.concurrent.atomic.LongAdder counter) {
        java.util.concurrent.atomic.LongAdder previous = deactivationCounter.get();
        deactivationCounter.set(counter);
        return previous;
    }

    /** The counter of deactivations on this thread (see {@link #swapDeactivationCounter}), or null. */
    public java.util.concurrent.atomic.LongAdder deactivationCounter() {
        return deactivationCounter.get();
    }

    private void countDeactivation() {
        java.util.concurrent.atomic.LongAdder counter = deactivationCounter.get();
        if (counter != null) {
            counter.increment();
        }
    }

    /**
     * Starts a new epoch: cached cells are stale from now on. Deactivations
     * advance it before they change anything (for accessors that cache cells) and again when
     * they are done (for snapshots of active blocks taken meanwhile).
     */
    public void advanceEpoch() {
        EPOCH.getAndAdd(this, 1L);
    }

    private static final java.lang.invoke.VarHandle EPOCH;

    static {
        try {
            EPOCH = java.lang.invoke.MethodHandles.lookup().findVarHandle(Structure.class, "epoch", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public MemorySegment root() {
        return root;
    }

    /** The zeroed ambient cell of a pointer or dynamic SNode. */
    public MemorySegment ambient(SNode snode) {
        MemorySegment cell = ambient[snode.id()];
        if (cell == null) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is " + snode.kind().text()
                    + "; only pointer and dynamic nodes have an ambient cell");
        }
        return cell;
    }

    /** The directory block allocator of a dynamic SNode whose lists need one (else null). */
    public CellManager directories(SNode snode) {
        return directories[snode.id()];
    }

    /** The cell allocator of a pointer or dynamic SNode (null for other kinds). */
    public CellManager cells(SNode snode) {
        return cells[snode.id()];
    }

    // ------------------------------------------------------------------ paths

    /**
     * Moves {@code location} to the cell of {@code target} for {@code coordinates} (in
     * {@code target}'s index space), activating every level when {@code activate} is set
     * (see "Activation" in the class comment).
     *
     * @return false when a level is inactive (only without {@code activate})
     */
    public boolean locate(SNode target, int[] coordinates, boolean activate, Location location) {
        if (activate) {
            activate(target, coordinates, false, location);
            return true;
        }
        location.set(root, 0);
        for (PathStep step : plan.path(target)) {
            if (!descend(step, coordinates, location)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves {@code location} to the cell of {@code target}'s parent that holds the container
     * of {@code target}, without activating anything.
     */
    private boolean locateParent(SNode target, int[] coordinates, Location location) {
        location.set(root, 0);
        List<PathStep> path = plan.path(target);
        for (int n = 0; n < path.size() - 1; n++) {
            if (!descend(path.get(n), coordinates, location)) {
                return false;
            }
        }
        return true;
    }

    /** One level down, read-only; false when the level is inactive. */
    private boolean descend(PathStep step, int[] coordinates, Location location) {
        SNodePlan node = step.node();
        MemorySegment segment = location.segment;
        long container = location.offset + step.containerOffset();
        long index = step.cellIndex(coordinates);
        switch (node.kind()) {
            case DENSE -> location.offset = container + index * node.cellBytes();
            case BITMASKED -> {
                if ((Atomics.getAcquire(segment, container + (index >>> 6) * Long.BYTES) & (1L << (index & 63))) == 0) {
                    return false;
                }
                location.offset = container + node.cellsOffset() + index * node.cellBytes();
            }
            case POINTER -> {
                long word = Atomics.getAcquire(segment, container + index * PointerWord.BYTES);
                if (!PointerWord.isActive(word)) {
                    return false;
                }
                CellManager manager = cells[node.id()];
                long cell = PointerWord.cellIndex(word);
                location.set(manager.segment(cell), manager.offset(cell));
            }
            case DYNAMIC -> {
                if (index >= Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET)) {
                    return false;
                }
                long reference = chunkReference(node, segment, container, index / node.chunkSize());
                if (reference == PointerWord.NULL) {
                    return false; // inside the length, but never written: reads zero
                }
                CellManager manager = cells[node.id()];
                long cell = PointerWord.cellIndex(reference);
                location.set(manager.segment(cell),
                        manager.offset(cell) + (index % node.chunkSize()) * node.cellBytes());
            }
            case ROOT -> throw new AssertionError("the root is not a path step");
        }
        return true;
    }

    /**
     * Appends one element to the list that holds {@code coordinates} (the list axis's value is
     * ignored), activating the path to it, and moves {@code location} to the element.
     *
     * @return the element's index
     * @throws DynamicListFullException when the list holds its capacity (nothing changes)
     */
    public long append(SNode dynamic, int[] coordinates, Location location) {
        long index = activate(dynamic, coordinates, true, location);
        location.element = index;
        return index;
    }

    /** Returned by {@link #publish} when the structure changed under the plan before anything was published. */
    private static final long REPLAN = -1;

    /**
     * The activation protocol: plan (read-only walk), reserve (every cell the plan needs, from the
     * node managers), publish (top-down; a fresh subtree is built inside reserved cells and
     * appears with one compare-and-set), then hand back what was not used.
     *
     * @return the element's index for an append or a dynamic element, else 0
     */
    private long activate(SNode target, int[] coordinates, boolean append, Location location) {
        List<PathStep> path = plan.path(target);
        if (!append && activateInline(target, path, coordinates, location)) {
            return 0;
        }
        Reservation reservation = new Reservation(path.size());
        Throwable failure = null;
        try {
            while (true) {
                int first = plan(path, coordinates, append, reservation);
                reserve(path, first, reservation);
                long result = publish(path, coordinates, append, first, reservation, location);
                if (result != REPLAN) {
                    if (reservation.changed) {
                        activations.increment();
                    }
                    return result;
                }
                reservation.release();
            }
        } catch (RuntimeException | Error thrown) {
            failure = thrown;
            throw thrown;
        } finally {
            reservation.releaseAfter(failure);
        }
    }

    /**
     * The activation that needs no memory, in one walk and without a {@link Reservation}: every
     * pointer word on the path is active, no step is a list, and every clear mask bit lies at or
     * below {@link #inlineTail} (only dense and bitmasked steps follow it: a voxel of an existing
     * block of a bitmasked leaf, or any write to an active cell). Its stores are the atomic ORs of
     * those mask bits, exactly what {@link #publish} would store for the same path, and none of
     * them can fail. Anything else (an inactive, busy or retired pointer word, a list, a clear bit
     * above the inline tail) returns false before the first store, since no step after the inline
     * tail can bail out, and the whole protocol runs.
     */
    private boolean activateInline(SNode target, List<PathStep> path, int[] coordinates, Location location) {
        // The walk of descend, on locals: through Location's fields it measured 15 % slower on L2's W1s.
        int tail = inlineTail[target.id()];
        MemorySegment segment = root;
        long offset = 0;
        boolean changed = false;
        for (int s = 0; s < path.size(); s++) {
            PathStep step = path.get(s);
            SNodePlan node = step.node();
            long container = offset + step.containerOffset();
            long index = step.cellIndex(coordinates);
            switch (node.kind()) {
                case DENSE -> offset = container + index * node.cellBytes();
                case BITMASKED -> {
                    long word = container + (index >>> 6) * Long.BYTES;
                    long bit = 1L << (index & 63);
                    if ((Atomics.getAcquire(segment, word) & bit) == 0) {
                        if (s < tail) {
                            return false; // nothing stored yet: bits are set only where no later step can bail out
                        }
                        if ((Atomics.getAndBitwiseOr(segment, word, bit) & bit) == 0) {
                            changed = true;
                        }
                    }
                    offset = container + node.cellsOffset() + index * node.cellBytes();
                }
                case POINTER -> {
                    long word = Atomics.getAcquire(segment, container + index * PointerWord.BYTES);
                    if (!PointerWord.isActive(word)) {
                        return false; // pointer steps lie above the inline tail: nothing stored yet
                    }
                    CellManager manager = cells[node.id()];
                    long cell = PointerWord.cellIndex(word);
                    segment = manager.segment(cell);
                    offset = manager.offset(cell);
                }
                case DYNAMIC -> {
                    return false; // above the inline tail too
                }
                case ROOT -> throw new AssertionError("the root is not a path step");
            }
        }
        if (changed) {
            activations.increment();
        }
        location.set(segment, offset);
        return true;
    }

    /**
     * Per target SNode id: the first path step from which every later step is dense or bitmasked
     * (needs no memory and cannot fail), so that a mask bit at or after it may be set without a
     * reservation; {@code path.size()} when the last step is neither.
     */
    private static int[] inlineTails(Plan plan) {
        List<SNodePlan> nodes = plan.nodes();
        int[] tails = new int[nodes.size()];
        for (SNodePlan target : nodes) {
            List<PathStep> path = plan.path(target.snode());
            int tail = path.size();
            for (int s = path.size() - 1; s >= 0; s--) {
                tail = s;
                NodeKind kind = path.get(s).node().kind();
                if (kind != NodeKind.DENSE && kind != NodeKind.BITMASKED) {
                    tail = s + 1;
                    break;
                }
            }
            tails[target.id()] = tail;
        }
        return tails;
    }

    /**
     * Step 1, read-only: the first path step that is inactive (a clear mask bit, a pointer word
     * that is not active, a list chunk that is missing), or {@code path.size()} when the whole
     * path exists; what the list step needs is left in {@code reservation}.
     *
     * @throws DynamicListFullException for an append to a list that exists and is full
     */
    private int plan(List<PathStep> path, int[] coordinates, boolean append, Reservation reservation) {
        reservation.needNothing();
        MemorySegment segment = root;
        long offset = 0;
        int last = path.size() - 1;
        for (int s = 0; s <= last; s++) {
            PathStep step = path.get(s);
            SNodePlan node = step.node();
            long container = offset + step.containerOffset();
            long index = step.cellIndex(coordinates);
            switch (node.kind()) {
                case DENSE -> offset = container + index * node.cellBytes();
                case BITMASKED -> {
                    if ((Atomics.getAcquire(segment, container + (index >>> 6) * Long.BYTES) & (1L << (index & 63))) == 0) {
                        reservation.needWholeList(path.get(last).node(), append ? 0 : path.get(last).cellIndex(coordinates));
                        return s;
                    }
                    offset = container + node.cellsOffset() + index * node.cellBytes();
                }
                case POINTER -> {
                    long word = Atomics.getAcquire(segment, container + index * PointerWord.BYTES);
                    if (!PointerWord.isActive(word)) {
                        reservation.needWholeList(path.get(last).node(), append ? 0 : path.get(last).cellIndex(coordinates));
                        return s;
                    }
                    CellManager manager = cells[node.id()];
                    long cell = PointerWord.cellIndex(word);
                    segment = manager.segment(cell);
                    offset = manager.offset(cell);
                }
                case DYNAMIC -> {
                    long element = index;
                    if (append) {
                        element = Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET);
                        if (element >= node.capacity()) {
                            throw new DynamicListFullException(node.snode().path(), node.capacity());
                        }
                    }
                    return reservation.needChunk(node, element, missingReferences(node, segment, container,
                            element / node.chunkSize())) ? s : path.size();
                }
                case ROOT -> throw new AssertionError("the root is not a path step");
            }
        }
        return path.size();
    }

    /**
     * Step 2: takes from the node managers a cell for every pointer step from {@code first} on,
     * and the chunk and directory blocks the list step needs. This is the only place where the
     * memory cap, a full index space or an allocator fault can refuse, and nothing is published
     * yet.
     */
    private void reserve(List<PathStep> path, int first, Reservation reservation) {
        for (int s = first; s < path.size(); s++) {
            SNodePlan node = path.get(s).node();
            if (node.kind() == NodeKind.POINTER && !reservation.has(s)) {
                reservation.put(s, cells[node.id()], allocate(node.snode(), cells[node.id()]));
            }
        }
        if (!path.isEmpty() && path.getLast().node().kind() == NodeKind.DYNAMIC) {
            reserveList(path.getLast().node(), reservation);
        }
    }

    private void reserveList(SNodePlan node, Reservation reservation) {
        int missing = reservation.missing();
        if ((missing & Reservation.NEED_TOP) != 0 && !reservation.has(reservation.topSlot())) {
            reservation.put(reservation.topSlot(), directories[node.id()], allocate(node.snode(), directories[node.id()]));
        }
        if ((missing & Reservation.NEED_LEAF) != 0 && !reservation.has(reservation.leafSlot())) {
            reservation.put(reservation.leafSlot(), directories[node.id()], allocate(node.snode(), directories[node.id()]));
        }
        if ((missing & Reservation.NEED_CHUNK) != 0 && !reservation.has(reservation.chunkSlot())) {
            reservation.put(reservation.chunkSlot(), cells[node.id()], allocate(node.snode(), cells[node.id()]));
        }
    }

    /**
     * Step 3: walks the path again and publishes. Steps before {@code first} only read; finding
     * one of them inactive now (a deactivation in between) returns {@link #REPLAN} with nothing
     * published. From {@code first} on every need is reserved: a clear mask bit is set (an
     * atomic OR, idempotent); an inactive pointer word gets the rest of the path built inside
     * the reserved cells, invisible to others, and published with one compare-and-set, so the
     * call has succeeded the moment anything below that word becomes visible; a thread that
     * loses the race clears what it built and goes on into the winner's cell.
     */
    private long publish(List<PathStep> path, int[] coordinates, boolean append, int first,
                         Reservation reservation, Location location) {
        MemorySegment segment = root;
        long offset = 0;
        int last = path.size() - 1;
        for (int s = 0; s <= last; s++) {
            PathStep step = path.get(s);
            SNodePlan node = step.node();
            long container = offset + step.containerOffset();
            long index = step.cellIndex(coordinates);
            switch (node.kind()) {
                case DENSE -> offset = container + index * node.cellBytes();
                case BITMASKED -> {
                    long wordOffset = container + (index >>> 6) * Long.BYTES;
                    long bit = 1L << (index & 63);
                    if ((Atomics.getAcquire(segment, wordOffset) & bit) == 0) {
                        if (s < first) {
                            return REPLAN;
                        }
                        if ((Atomics.getAndBitwiseOr(segment, wordOffset, bit) & bit) == 0) {
                            reservation.changed = true;
                        }
                    }
                    offset = container + node.cellsOffset() + index * node.cellBytes();
                }
                case POINTER -> {
                    long wordOffset = container + index * PointerWord.BYTES;
                    CellManager manager = cells[node.id()];
                    long cell;
                    while (true) {
                        long word = Atomics.getAcquire(segment, wordOffset);
                        if (PointerWord.isActive(word)) {
                            cell = PointerWord.cellIndex(word);
                            break;
                        }
                        if (word == PointerWord.BUSY) {
                            Thread.onSpinWait(); // a deactivation holds the word while it releases the subtree
                            continue;
                        }
                        if (word == PointerWord.RETIRED) {
                            return REPLAN; // this cell is being released under us: start from the root
                        }
                        if (s < first) {
                            return REPLAN;
                        }
                        long mine = reservation.cell(s);
                        long result = buildBelow(path, coordinates, append, s, manager.segment(mine),
                                manager.offset(mine), reservation, location);
                        if (Atomics.compareAndSet(segment, wordOffset, PointerWord.NULL, PointerWord.encode(mine))) {
                            reservation.used(s);
                            reservation.usedBuilt();
                            reservation.changed = true;
                            return result;
                        }
                        reservation.unbuild(); // lost the race: our cells are zero again, still ours
                    }
                    segment = manager.segment(cell);
                    offset = manager.offset(cell);
                }
                case DYNAMIC -> {
                    return publishInList(node, segment, container, append, index, reservation, location);
                }
                case ROOT -> throw new AssertionError("the root is not a path step");
            }
        }
        location.set(segment, offset);
        return 0;
    }

    /**
     * Builds steps {@code s + 1 ..} of the path inside reserved cells, starting in the reserved
     * cell of step {@code s} at (segment, offset), which nobody else can see yet: mask bits set,
     * pointer words and chunk references naming reserved cells, a list length. Every word
     * written is recorded so that {@link Reservation#unbuild} can zero it again.
     */
    private long buildBelow(List<PathStep> path, int[] coordinates, boolean append, int s, MemorySegment segment,
                            long offset, Reservation reservation, Location location) {
        reservation.startBuild();
        for (int t = s + 1; t < path.size(); t++) {
            PathStep step = path.get(t);
            SNodePlan node = step.node();
            long container = offset + step.containerOffset();
            long index = step.cellIndex(coordinates);
            switch (node.kind()) {
                case DENSE -> offset = container + index * node.cellBytes();
                case BITMASKED -> {
                    long wordOffset = container + (index >>> 6) * Long.BYTES;
                    reservation.built(segment, wordOffset, 1L << (index & 63));
                    offset = container + node.cellsOffset() + index * node.cellBytes();
                }
                case POINTER -> {
                    long child = reservation.cell(t);
                    reservation.buildsWith(t);
                    reservation.built(segment, container + index * PointerWord.BYTES, PointerWord.encode(child));
                    CellManager manager = cells[node.id()];
                    segment = manager.segment(child);
                    offset = manager.offset(child);
                }
                case DYNAMIC -> {
                    long element = append ? 0 : index;
                    long chunk = element / node.chunkSize();
                    long chunkCell = reservation.cell(reservation.chunkSlot());
                    reservation.buildsWith(reservation.chunkSlot());
                    if (chunk < DynamicHeader.INLINE_CHUNKS) {
                        reservation.built(segment, container + DynamicHeader.inlineChunkOffset((int) chunk),
                                PointerWord.encode(chunkCell));
                    } else {
                        long extra = chunk - DynamicHeader.INLINE_CHUNKS;
                        int leafFanout = node.directoryLeafFanout();
                        CellManager blocks = directories[node.id()];
                        long top = reservation.cell(reservation.topSlot());
                        long leaf = reservation.cell(reservation.leafSlot());
                        reservation.buildsWith(reservation.topSlot());
                        reservation.buildsWith(reservation.leafSlot());
                        reservation.built(segment, container + DynamicHeader.DIRECTORY_OFFSET, PointerWord.encode(top));
                        reservation.built(blocks.segment(top), blocks.offset(top) + (extra / leafFanout) * Long.BYTES,
                                PointerWord.encode(leaf));
                        reservation.built(blocks.segment(leaf), blocks.offset(leaf) + (extra % leafFanout) * Long.BYTES,
                                PointerWord.encode(chunkCell));
                    }
                    reservation.built(segment, container + DynamicHeader.LENGTH_OFFSET, element + 1);
                    CellManager chunks = cells[node.id()];
                    location.set(chunks.segment(chunkCell),
                            chunks.offset(chunkCell) + (element % node.chunkSize()) * node.cellBytes());
                    return element;
                }
                case ROOT -> throw new AssertionError("the root is not a path step");
            }
        }
        location.set(segment, offset);
        return 0;
    }

    /**
     * The list step of an existing list: makes sure the element's chunk exists (publishing
     * reserved blocks under the header lock; nothing is allocated while it is held), then takes
     * the next index (append) or raises the length past the element (a write).
     */
    private long publishInList(SNodePlan node, MemorySegment segment, long header, boolean append, long index,
                               Reservation reservation, Location location) {
        long lengthOffset = header + DynamicHeader.LENGTH_OFFSET;
        long element;
        long reference;
        while (true) {
            element = append ? Atomics.getVolatile(segment, lengthOffset) : index;
            if (element >= node.capacity()) {
                // Only appends get here. What this call published before (mask bits on the path, a
                // chunk that other appends have filled) is what the appends that filled the list needed.
                throw new DynamicListFullException(node.snode().path(), node.capacity());
            }
            long chunk = element / node.chunkSize();
            int chunkState = ensureChunk(node, segment, header, chunk, reservation);
            if (chunkState == RETIRED_LIST) {
                return REPLAN;
            }
            if (chunkState == CHUNK_NOT_RESERVED) {
                if (!reservation.changed) {
                    return REPLAN;
                }
                // This call has set a mask bit above and the list moved on to a chunk it did not
                // plan for (other appends took the planned indices): reserve it now.
                reservation.needChunk(node, element, missingReferences(node, segment, header, chunk));
                reserveList(node, reservation);
                continue;
            }
            // Read before the index is taken: a deactivation of the list may empty the header at
            // any moment (the caller's race), and the element then lands in the recycled chunk,
            // whose memory is not reused before collection.
            reference = chunkReference(node, segment, header, chunk);
            if (reference == PointerWord.NULL) {
                continue; // the list was emptied since ensureChunk
            }
            if (!append) {
                while (true) {
                    long length = Atomics.getVolatile(segment, lengthOffset);
                    if (length > element) {
                        break;
                    }
                    if (Atomics.compareAndSet(segment, lengthOffset, length, element + 1)) {
                        reservation.changed = true;
                        break;
                    }
                }
                break;
            }
            if (Atomics.compareAndSet(segment, lengthOffset, element, element + 1)) {
                reservation.changed = true;
                break;
            }
        }
        long cell = PointerWord.cellIndex(reference);
        CellManager manager = cells[node.id()];
        location.set(manager.segment(cell), manager.offset(cell) + (element % node.chunkSize()) * node.cellBytes());
        return element;
    }

    private static final int CHUNK_PRESENT = 0;
    private static final int CHUNK_NOT_RESERVED = 1;
    private static final int RETIRED_LIST = 2;

    /** Which of the references on the way to chunk {@code chunk} are missing (Reservation.NEED_* bits). */
    private int missingReferences(SNodePlan node, MemorySegment segment, long header, long chunk) {
        if (chunk < DynamicHeader.INLINE_CHUNKS) {
            return Atomics.getAcquire(segment, header + DynamicHeader.inlineChunkOffset((int) chunk)) == PointerWord.NULL
                    ? Reservation.NEED_CHUNK : 0;
        }
        long top = Atomics.getAcquire(segment, header + DynamicHeader.DIRECTORY_OFFSET);
        if (top == PointerWord.NULL) {
            return Reservation.NEED_TOP | Reservation.NEED_LEAF | Reservation.NEED_CHUNK;
        }
        long extra = chunk - DynamicHeader.INLINE_CHUNKS;
        int leafFanout = node.directoryLeafFanout();
        CellManager blocks = directories[node.id()];
        long topCell = PointerWord.cellIndex(top);
        long leaf = Atomics.getAcquire(blocks.segment(topCell), blocks.offset(topCell) + (extra / leafFanout) * Long.BYTES);
        if (leaf == PointerWord.NULL) {
            return Reservation.NEED_LEAF | Reservation.NEED_CHUNK;
        }
        long leafCell = PointerWord.cellIndex(leaf);
        return Atomics.getAcquire(blocks.segment(leafCell), blocks.offset(leafCell) + (extra % leafFanout) * Long.BYTES)
                == PointerWord.NULL ? Reservation.NEED_CHUNK : 0;
    }

    /**
     * Makes sure chunk {@code chunk} of the list exists, publishing reserved blocks for the
     * missing references under the header lock.
     *
     * @return {@link #CHUNK_PRESENT}; {@link #CHUNK_NOT_RESERVED}, with nothing published, when a
     *         missing reference has no reserved block; {@link #RETIRED_LIST}, with nothing
     *         published, when the cell holding the list is being released
     */
    private int ensureChunk(SNodePlan node, MemorySegment segment, long header, long chunk,
                                Reservation reservation) {
        if (missingReferences(node, segment, header, chunk) == 0) {
            return CHUNK_PRESENT;
        }
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
            if (Atomics.getAcquire(segment, lock) == DynamicHeader.LOCK_RETIRED) {
                return RETIRED_LIST; // the cell holding the list is being released under us
            }
            Thread.onSpinWait(); // held for a few stores by another appender, never for an allocation
        }
        try {
            int missing = missingReferences(node, segment, header, chunk);
            if (!reservation.covers(missing)) {
                return missing == 0 ? CHUNK_PRESENT : CHUNK_NOT_RESERVED;
            }
            int chunkSlot = reservation.chunkSlot();
            if (chunk < DynamicHeader.INLINE_CHUNKS) {
                if (missing != 0) {
                    publishReference(segment, header + DynamicHeader.inlineChunkOffset((int) chunk), reservation, chunkSlot);
                }
                return CHUNK_PRESENT;
            }
            long extra = chunk - DynamicHeader.INLINE_CHUNKS;
            int leafFanout = node.directoryLeafFanout();
            CellManager blocks = directories[node.id()];
            long topSlotOffset = header + DynamicHeader.DIRECTORY_OFFSET;
            if ((missing & Reservation.NEED_TOP) != 0) {
                publishReference(segment, topSlotOffset, reservation, reservation.topSlot());
            }
            long top = PointerWord.cellIndex(Atomics.getAcquire(segment, topSlotOffset));
            long leafSlotOffset = blocks.offset(top) + (extra / leafFanout) * Long.BYTES;
            if ((missing & Reservation.NEED_LEAF) != 0) {
                publishReference(blocks.segment(top), leafSlotOffset, reservation, reservation.leafSlot());
            }
            long leaf = PointerWord.cellIndex(Atomics.getAcquire(blocks.segment(top), leafSlotOffset));
            if ((missing & Reservation.NEED_CHUNK) != 0) {
                publishReference(blocks.segment(leaf), blocks.offset(leaf) + (extra % leafFanout) * Long.BYTES,
                        reservation, chunkSlot);
            }
            return CHUNK_PRESENT;
        } finally {
            Atomics.setRelease(segment, lock, 0);
        }
    }

    private static void publishReference(MemorySegment segment, long offset, Reservation reservation, int slot) {
        Atomics.setRelease(segment, offset, PointerWord.encode(reservation.cell(slot)));
        reservation.used(slot);
        reservation.changed = true;
    }

    // ------------------------------------------------------------------ dynamic lists

    /** The length of the list that holds {@code coordinates}; 0 when the list is inactive. */
    public long length(SNode dynamic, int[] coordinates, Location location) {
        if (!locateParent(dynamic, coordinates, location)) {
            return 0;
        }
        long header = location.offset + plan.path(dynamic).getLast().containerOffset();
        return Atomics.getAcquire(location.segment, header + DynamicHeader.LENGTH_OFFSET);
    }

    private long chunkReference(SNodePlan node, MemorySegment segment, long header, long chunk) {
        return Nodes.chunkReference(segment, header, chunk, directories[node.id()], node.directoryLeafFanout());
    }

    /**
     * Recycles every chunk and directory block of a list and empties its header. With
     * {@code retire} (the cell that holds the header is being released) the lock is left
     * {@link DynamicHeader#LOCK_RETIRED}, so that an append racing with the release cannot
     * publish a chunk there, where nothing would ever release it.
     */
    private void clearList(SNodePlan node, MemorySegment segment, long header, boolean retire) {
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
            if (Atomics.getAcquire(segment, lock) == DynamicHeader.LOCK_RETIRED) {
                return; // released already
            }
            Thread.onSpinWait();
        }
        try {
            CellManager chunks = cells[node.id()];
            for (int n = 0; n < DynamicHeader.INLINE_CHUNKS; n++) {
                long slot = header + DynamicHeader.inlineChunkOffset(n);
                long reference = Atomics.getAcquire(segment, slot);
                if (reference != PointerWord.NULL) {
                    chunks.recycle(PointerWord.cellIndex(reference));
                    Atomics.setRelease(segment, slot, PointerWord.NULL);
                }
            }
            long top = Atomics.getAcquire(segment, header + DynamicHeader.DIRECTORY_OFFSET);
            if (top != PointerWord.NULL) {
                CellManager blocks = directories[node.id()];
                long topCell = PointerWord.cellIndex(top);
                for (int t = 0; t < node.directoryTopFanout(); t++) {
                    long leaf = Atomics.getAcquire(blocks.segment(topCell), blocks.offset(topCell) + t * Long.BYTES);
                    if (leaf == PointerWord.NULL) {
                        continue;
                    }
                    long leafCell = PointerWord.cellIndex(leaf);
                    for (int l = 0; l < node.directoryLeafFanout(); l++) {
                        long reference = Atomics.getAcquire(blocks.segment(leafCell),
                                blocks.offset(leafCell) + l * Long.BYTES);
                        if (reference != PointerWord.NULL) {
                            chunks.recycle(PointerWord.cellIndex(reference));
                        }
                    }
                    blocks.recycle(leafCell);
                }
                blocks.recycle(topCell);
                Atomics.setRelease(segment, header + DynamicHeader.DIRECTORY_OFFSET, PointerWord.NULL);
            }
            Atomics.setRelease(segment, header + DynamicHeader.LENGTH_OFFSET, 0);
        } finally {
            Atomics.setRelease(segment, lock, retire ? DynamicHeader.LOCK_RETIRED : 0);
        }
    }

    // ------------------------------------------------------------------ activity

    public boolean isActive(SNode target, int[] coordinates, Location location) {
        if (target.kind() == NodeKind.ROOT) {
            return true;
        }
        if (!locateParent(target, coordinates, location)) {
            return false;
        }
        PathStep step = plan.path(target).getLast();
        SNodePlan node = step.node();
        MemorySegment segment = location.segment;
        long container = location.offset + step.containerOffset();
        long index = step.cellIndex(coordinates);
        return switch (node.kind()) {
            case DENSE, ROOT -> true;
            case BITMASKED -> (Atomics.getAcquire(segment, container + (index >>> 6) * Long.BYTES)
                    & (1L << (index & 63))) != 0;
            case POINTER -> PointerWord.isActive(Atomics.getAcquire(segment, container + index * PointerWord.BYTES));
            case DYNAMIC -> index < Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET);
        };
    }

    /**
     * Deactivates the cell of {@code target} at {@code coordinates} and everything below it: a
     * pointer cell's child is recycled, a bitmasked cell is cleared and zeroed, a dynamic node's
     * whole list is emptied. Inactive cells are left alone. {@code coordinates} are in
     * {@code target}'s index space; for a dynamic node the list axis is ignored (callers take
     * the list's coordinates, as for {@link #append} and {@link #length}, and put any index there).
     *
     * @return whether a cell was active
     */
    public boolean deactivate(SNode target, int[] coordinates, Location location) {
        requireSparse(target);
        if (!locateParent(target, coordinates, location)) {
            return false;
        }
        advanceEpoch();
        PathStep step = plan.path(target).getLast();
        long container = location.offset + step.containerOffset();
        try {
            boolean wasActive = deactivateCell(step.node(), location.segment, container, step.cellIndex(coordinates));
            if (wasActive) {
                countDeactivation();
            }
            return wasActive;
        } finally {
            advanceEpoch();
        }
    }

    private boolean deactivateCell(SNodePlan node, MemorySegment segment, long container, long index) {
        switch (node.kind()) {
            case BITMASKED -> {
                long bit = 1L << (index & 63);
                long old = Atomics.getAndBitwiseAnd(segment, container + (index >>> 6) * Long.BYTES, ~bit);
                if ((old & bit) == 0) {
                    return false;
                }
                long cell = container + node.cellsOffset() + index * node.cellBytes();
                releaseBelow(node, segment, cell);
                segment.asSlice(cell, node.cellBytes()).fill((byte) 0);
                return true;
            }
            case POINTER -> {
                return releasePointer(node, segment, container + index * PointerWord.BYTES, false);
            }
            case DYNAMIC -> {
                boolean active = Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET) > 0
                        || Atomics.getAcquire(segment, container + DynamicHeader.inlineChunkOffset(0)) != 0;
                clearList(node, segment, container, false);
                return active;
            }
            default -> throw new AssertionError(node.kind());
        }
    }

    /**
     * Locks an active pointer word, releases the child's subtree, recycles it, and leaves the
     * word {@link PointerWord#NULL}, or {@link PointerWord#RETIRED} with {@code retire} (the
     * cell holding the word is being released: an inactive word is retired too, so that an
     * activation racing with the release cannot publish a subtree that nothing would release).
     */
    private boolean releasePointer(SNodePlan node, MemorySegment segment, long wordOffset, boolean retire) {
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
            Thread.onSpinWait(); // another thread holds the word for one allocation or release
        }
        CellManager manager = cells[node.id()];
        long cell = PointerWord.cellIndex(word);
        try {
            releaseBelow(node, manager.segment(cell), manager.offset(cell));
            manager.recycle(cell);
        } finally {
            Atomics.setRelease(segment, wordOffset, retire ? PointerWord.RETIRED : PointerWord.NULL);
        }
        return true;
    }

    /** Recycles every pointer child and dynamic list inside the cell at (segment, cell). */
    private void releaseBelow(SNodePlan node, MemorySegment segment, long cell) {
        if (!managedBelow[node.id()]) {
            return;
        }
        List<SNode> children = node.snode().children();
        for (int n = 0; n < children.size(); n++) {
            SNodePlan child = plan.node(children.get(n));
            if (child.kind() == NodeKind.DENSE && !managedBelow[child.id()]) {
                continue;
            }
            if (child.kind() == NodeKind.BITMASKED && !managedBelow[child.id()]) {
                continue; // the enclosing cell is zeroed as a whole
            }
            releaseContainer(child, segment, cell + node.childContainerOffset(n), true);
        }
    }

    /**
     * Releases everything below the cells of one container (cells themselves stay in place);
     * {@code retire} when the cell holding the container is being released.
     */
    private void releaseContainer(SNodePlan node, MemorySegment segment, long container, boolean retire) {
        switch (node.kind()) {
            case DENSE -> {
                for (long index = 0; index < node.cellCount(); index++) {
                    releaseBelow(node, segment, container + index * node.cellBytes());
                }
            }
            case BITMASKED -> {
                for (long index = 0; index < node.cellCount(); index++) {
                    deactivateCell(node, segment, container, index);
                }
            }
            case POINTER -> {
                for (long index = 0; index < node.cellCount(); index++) {
                    releasePointer(node, segment, container + index * PointerWord.BYTES, retire);
                }
            }
            case DYNAMIC -> clearList(node, segment, container, retire);
            case ROOT -> throw new AssertionError("root has no container");
        }
    }

    /**
     * Deactivates every cell of {@code target} and everything below them (Taichi's
     * {@code deactivate_all}). The cells of the root and of dense nodes are always active: for
     * them it deactivates every pointer, bitmasked and dynamic node below, so that on the root it
     * empties the whole structure; the values of dense cells above every sparse node stay.
     */
    public void deactivateAll(SNode target) {
        advanceEpoch();
        try {
            if (target.kind().isSparse()) {
                releaseAll(target);
            } else {
                releaseSparseBelow(target);
            }
        } finally {
            countDeactivation();
            advanceEpoch();
        }
    }

    /** {@link #releaseAll} for every sparse node below {@code node} with only dense nodes in between. */
    private void releaseSparseBelow(SNode node) {
        for (SNode child : node.children()) {
            if (child.kind().isSparse()) {
                releaseAll(child);
            } else {
                releaseSparseBelow(child); // a dense child: its cells stay, the sparse nodes below go
            }
        }
    }

    /** Releases the container of sparse {@code target} in every active cell of its parent. */
    private void releaseAll(SNode target) {
        SNodePlan node = plan.node(target);
        SNode parent = target.parent();
        int childIndex = parent.children().indexOf(target);
        long containerOffset = plan.node(parent).childContainerOffset(childIndex);
        forEachCell(parent, (segment, cell) -> releaseContainer(node, segment, cell + containerOffset, false));
    }

    private static void requireSparse(SNode target) {
        if (!target.kind().isSparse()) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + ": its cells are always active; deactivate a pointer, bitmasked or dynamic node");
        }
    }

    // ------------------------------------------------------------------ visiting

    /** Receives one active cell: its segment and byte offset. */
    @FunctionalInterface
    public interface CellVisitor {
        void visit(MemorySegment segment, long cell);
    }

    /**
     * Calls {@code visitor} for every active cell of {@code target} (the root has one cell) that
     * has memory: for a dynamic target, the indices below the length whose chunk exists (an
     * index below a write past the length may have none; launches and reductions, which go
     * through snapshots, visit it and read zero).
     */
    public void forEachCell(SNode target, CellVisitor visitor) {
        List<SNode> chain = target.ancestry();
        visit(chain, 0, root, 0, visitor);
    }

    private void visit(List<SNode> chain, int level, MemorySegment segment, long cell, CellVisitor visitor) {
        if (level == chain.size() - 1) {
            visitor.visit(segment, cell);
            return;
        }
        SNode parent = chain.get(level);
        SNode child = chain.get(level + 1);
        SNodePlan node = plan.node(child);
        long container = cell + plan.node(parent).childContainerOffset(parent.children().indexOf(child));
        switch (node.kind()) {
            case DENSE -> {
                for (long index = 0; index < node.cellCount(); index++) {
                    visit(chain, level + 1, segment, container + index * node.cellBytes(), visitor);
                }
            }
            case BITMASKED -> {
                for (long word = 0; word * 64 < node.cellCount(); word++) {
                    long bits = Atomics.getAcquire(segment, container + word * Long.BYTES);
                    while (bits != 0) {
                        long index = word * 64 + Long.numberOfTrailingZeros(bits);
                        bits &= bits - 1;
                        visit(chain, level + 1, segment,
                                container + node.cellsOffset() + index * node.cellBytes(), visitor);
                    }
                }
            }
            case POINTER -> {
                CellManager manager = cells[node.id()];
                for (long index = 0; index < node.cellCount(); index++) {
                    long word = Atomics.getAcquire(segment, container + index * PointerWord.BYTES);
                    if (PointerWord.isActive(word)) {
                        long child0 = PointerWord.cellIndex(word);
                        visit(chain, level + 1, manager.segment(child0), manager.offset(child0), visitor);
                    }
                }
            }
            case DYNAMIC -> {
                long length = Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET);
                CellManager manager = cells[node.id()];
                for (long index = 0; index < length; index++) {
                    long reference = chunkReference(node, segment, container, index / node.chunkSize());
                    if (reference != PointerWord.NULL) {
                        long chunkCell = PointerWord.cellIndex(reference);
                        visit(chain, level + 1, manager.segment(chunkCell),
                                manager.offset(chunkCell) + (index % node.chunkSize()) * node.cellBytes(), visitor);
                    }
                }
            }
            case ROOT -> throw new AssertionError("root below root");
        }
    }
}
