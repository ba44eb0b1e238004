package io.snode.runtime.internal;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.memory.HashTables;
import io.snode.runtime.internal.node.BoxDeactivation;
import io.snode.runtime.internal.node.DynamicUnit;
import io.snode.runtime.internal.node.HashUnit;
import io.snode.runtime.internal.node.NodeUnit;
import io.snode.runtime.internal.node.NodeUnits;
import io.snode.runtime.internal.node.PathCells;
import io.snode.runtime.internal.node.PointerUnit;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The structure of one runtime's memory (the role of Taichi's {@code runtime.cpp}): walking a
 * path from the root cell, the activation protocol below with its failure handling, the change
 * counters, deactivation and dynamic lists. What each node kind does at
 * one step of a path is its node unit's ({@link io.snode.runtime.internal.node}, Taichi's
 * {@code node_*.h}); this class calls the unit of each step's SNode.
 *
 * <h2>Activation protocol: reserve, then publish</h2>
 * An activation (a write's slow path, {@link #locate} with {@code activate}, {@link #append})
 * runs in three steps, and only the second can fail for lack of memory:
 * <ol>
 *   <li><b>Plan</b> (read-only, {@link NodeUnit#plan} at each step): walk the path and find the first step that is inactive (a
 *       clear mask bit, a pointer word that is not active, a missing list chunk). An append
 *       to a list that exists and is full throws {@link DynamicListFullException} here.</li>
 *   <li><b>Reserve</b>: take from the node managers one cell for every pointer step from that
 *       step on, and the chunk and directory blocks the list step needs. The memory cap, a
 *       full index space or an allocator fault refuse here, and the reserved cells go back
 *       ({@code unallocate}, newest first) with nothing published.</li>
 *   <li><b>Publish</b>, top-down ({@link NodeUnit#publish}, and {@link NodeUnit#build} inside
 *       reserved cells): steps before the planned one only read; if one of them is
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
 * Cells reserved and not published go back to their managers when the call ends. The three
 * walks are one {@link Activation}; this class runs the retry loop around them and the undo. A
 * write whose path needs no memory (every pointer word active, no list step, clear mask bits
 * only where nothing below can fail) skips the protocol: {@link NodeUnit#activateInline} at
 * each step, one walk, the same stores as the publish step would make. Generated code makes
 * two such activations without calling here: a write sets a clear mask bit where only dense
 * and bitmasked steps follow ({@link GeneratedCalls#activateBit}), and an append to an existing
 * list whose next chunk exists takes its index ({@link GeneratedCalls#tryAppend}); each is one
 * atomic store that cannot fail halfway, marked by {@link #countActivation()} after it, and
 * anything else (an inactive pointer, a missing chunk, a full list) comes here with nothing
 * stored. A write whose path needs exactly one cell (every step above the last pointer step
 * active, that pointer word {@link PointerWord#NULL}, only dense and bitmasked steps below it:
 * a new 8^3 leaf block) runs the three steps for that one cell without an {@link Activation}
 * or a {@link Reservation} ({@link #activateOnePointer}): it allocates the cell (where the cap
 * or a fault refuse with nothing published), builds the steps below in it, and publishes it
 * with the same compare-and-set; a lost race or a word that is no longer
 * {@link PointerWord#NULL} (active, busy, retired) zeroes what it built, hands the cell back
 * ({@code unallocate}) and leaves the call to the protocol, having published nothing. A
 * generated write whose walk found that pointer word inactive first calls
 * {@link #activatePointer} with the word's address: the same allocation and compare-and-set of
 * one zeroed, empty cell, with nothing allocated on the Java heap; the write then enters the
 * word published (or the winner's) and sets its mask bit in place, as in an existing block.
 * Where that word is busy or retired, it passes the cell it stands in (the word's parent cell)
 * to {@link #activateFrom}, which runs {@link #activateOnePointer} from there instead of walking
 * from the root again; a parent released meanwhile holds retired words, which refuse, and the
 * activation goes to the protocol from the root. A generated append that needs memory stays out
 * of the protocol as well, with nothing allocated on the Java heap: where the next element's
 * chunk is missing, {@link #appendToNewChunk} allocates the chunk (and the directory blocks on
 * its way) first, where the cap or a fault refuse with nothing published, then publishes what
 * is still missing under the header lock and takes the index as above; where the block holding
 * the list is new (its pointer word {@link PointerWord#NULL}: the list's parent step, or the
 * pointer above the dense steps that end at the list, whose new cell holds all their lists),
 * {@link #activateListBlock} allocates the block and its list's first chunk, builds the chunk's
 * reference into the block's list header and publishes the block with the compare-and-set,
 * and the append then takes its index there (the block's other lists stay empty, with no
 * chunk). Where the list lies in a bitmasked cell whose bit is clear (the same shapes with a
 * bitmasked step), {@link #activateListCell} allocates the list's first chunk, publishes it
 * under the header lock and only then sets the cell's bit, so that a refusal leaves the cell
 * inactive and nothing published, and the cell never reads active with a list that has no
 * chunk; where the pointer word above that bitmasked cell (only dense steps between them) is
 * {@link PointerWord#NULL} too, {@link #activateListCellBlock} builds the block with the cell's
 * bit set and the list's first chunk and publishes it with the compare-and-set, as above. A lost
 * race hands the cells back and goes on in the winner's block or chunk (where its list may still
 * need a first chunk: {@link #appendToNewChunk}, or, in a winner's block, its cell's bit:
 * {@link #activateListCell}); a retired list or word, a full list or an inactive level above go
 * to the protocol with nothing stored.
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
 * list and hash header lock {@link DynamicHeader#LOCK_RETIRED}, an activation that meets either
 * starts again from the root, and anything it published before the release reached it is
 * released. A bitmasked cell is used again in place, so its deactivation zeroes it but for
 * those containers of the managed nodes below it, which stay retired; an activation that meets
 * a retired container takes its word or lock and reopens it only when a walk from the root
 * arrives there with every level above active ({@link Activation#reachable}: the cell is active
 * again), and retires it again otherwise. A deactivation that releases the container waits for
 * that word or lock, and every release makes its cell unreachable first (a pointer or hash
 * entry's word goes busy, a mask bit is cleared), so a container left in a released cell is
 * never reopened. A deactivation that finds nothing to do (a cell inactive at rest, a box with no
 * active cell, a {@link #deactivateAll} whose containers are all at rest) only reads, takes no
 * lock and changes nothing, the epoch included: it is the same as one made at the moment of its
 * read, so an activation racing it that it did not see stays, and one that completed before it
 * began is seen (jcstress: {@code ActivationDeactivationTest.AllLowerCells}).
 * <b>Progress:</b> readers are wait-free; an activation is lock-free against other activations
 * (it waits only for a list's header lock, held for a few stores, or for a pointer word that a
 * deactivation holds while it releases the subtree below).
 */
public final class NodeTree {
    private static final VarHandle EPOCH;
    private static final VarHandle ACTIVATION_STATE;

    static {
        try {
            EPOCH = MethodHandles.lookup().findVarHandle(NodeTree.class, "epoch", long.class);
            ACTIVATION_STATE = MethodHandles.lookup().findVarHandle(NodeTree.class, "activationState", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Plan plan;
    private final MemorySegment root;
    private final CheckedCells[] cells;
    private final CheckedCells[] directories;
    private final MemorySegment[] ambient;
    private final HashTables[] tables;
    private final NodeUnits units;
    /**
     * Per path: its steps, and the unit of each step's SNode. Path {@code id} is the path of the
     * target SNode with that id; path {@code count + id} ({@link #containerPath}) is the same path
     * without its last step, which ends at the cell of the target's parent that holds the
     * target's container (empty for the root and its children's containers in the root cell).
     */
    private final PathStep[][] pathSteps;
    private final NodeUnit[][] pathUnits;
    /** {@link #inlineTail}: per path, where it has only dense and bitmasked steps left. */
    private final int[] inlineTail;
    /**
     * Per path: the step of {@link #activateOnePointer}'s one pointer (the step just above the
     * inline tail, when it is a pointer step), or -1 when the path has no such step.
     */
    private final int[] onePointer;
    /**
     * Counts events after which a remembered cell may no longer be the cell of its coordinates:
     * deactivations and collections. Accessors that cache cells compare
     * it before using a cached cell (read before their walk, so a change during the walk is
     * seen by the next access).
     */
    private volatile long epoch;
    /**
     * Whether an activation that changed something (a pointer published, a mask bit set, a list
     * lengthened or appended to) completed since the latest {@link #activationStamp} (bit 0),
     * and the stamp (the bits above, counted in steps of 2): see {@link #countActivation} and
     * {@link #activationStamp}. It used to be a {@code LongAdder} of every activation, whose
     * uncontended increment is a compare-and-set: a second atomic operation beside each mask
     * bit's OR, about a third of a first write to a bitmasked voxel (BindAsm probe, W1s L2).
     */
    private volatile long activationState;
    /**
     * Per thread: where deactivations made on it are counted, or null. The launcher sets it on
     * the threads that run a launch's tasks, for as long as each task runs, so that the launch
     * knows whether its own kernels deactivated something (and collects after it only then).
     */
    private final ThreadLocal<LongAdder> deactivationCounter = new ThreadLocal<>();
    private volatile AllocationProbe allocationProbe;

    /**
     * @param cells       per SNode id: the allocator of a pointer's child cells or of a dynamic's
     *                    element chunks; null for other kinds
     * @param directories per SNode id: the allocator of a dynamic's directory blocks, else null
     * @param ambient     per SNode id: the zeroed cell that reads of an inactive pointer cell or
     *                    of a list element past the length land on; null for other kinds
     * @param tables      per SNode id: a hash node's tables; null for other kinds
     */
    public NodeTree(Plan plan, MemorySegment root, CheckedCells[] cells, CheckedCells[] directories,
                     MemorySegment[] ambient, HashTables[] tables) {
        this.plan = plan;
        this.root = root;
        this.cells = cells.clone();
        this.directories = directories.clone();
        this.ambient = ambient.clone();
        this.tables = tables.clone();
        this.units = new NodeUnits(plan, this.cells, this.directories, this.tables, this::reserveTable);
        int count = plan.nodes().size();
        this.pathSteps = new PathStep[2 * count][];
        this.pathUnits = new NodeUnit[2 * count][];
        this.inlineTail = new int[2 * count];
        this.onePointer = new int[2 * count];
        for (int id = 0; id < count; id++) {
            List<PathStep> path = plan.path(plan.nodes().get(id).snode());
            PathStep[] steps = path.toArray(new PathStep[0]);
            NodeUnit[] stepUnits = new NodeUnit[path.size()];
            for (int s = 0; s < path.size(); s++) {
                stepUnits[s] = units.unit(path.get(s).node().snode());
            }
            definePath(id, steps, stepUnits);
            int above = Math.max(0, steps.length - 1);
            definePath(count + id, Arrays.copyOf(steps, above), Arrays.copyOf(stepUnits, above));
        }
    }

    private void definePath(int path, PathStep[] steps, NodeUnit[] stepUnits) {
        pathSteps[path] = steps;
        pathUnits[path] = stepUnits;
        inlineTail[path] = inlineTail(stepUnits);
        int above = inlineTail[path] - 1;
        onePointer[path] = above >= 0 && stepUnits[above] instanceof PointerUnit ? above : -1;
    }

    /** The number of {@code target}'s container path (its path without the last step) in the per-path arrays. */
    private int containerPath(SNode target) {
        return pathSteps.length / 2 + target.id();
    }

    public Plan plan() {
        return plan;
    }

    /** The node unit of {@code snode} (not the root). */
    public NodeUnit unit(SNode snode) {
        return units.unit(snode);
    }

    /** Installs {@code probe} (null removes it); for tests only. */
    public void probeAllocations(AllocationProbe probe) {
        this.allocationProbe = probe;
    }

    long allocate(SNode owner, CheckedCells manager) {
        probe(owner);
        return manager.allocate();
    }

    long reserveTable(SNode owner, HashTables tables, int capacity) {
        probe(owner);
        return tables.reserve(capacity);
    }

    private void probe(SNode owner) {
        AllocationProbe probe = allocationProbe;
        if (probe != null) {
            probe.beforeAllocate(owner);
        }
    }

    /** The current epoch; it changes whenever a cell may have left its coordinates. */
    public long epoch() {
        return epoch;
    }

    /**
     * {@link #epoch()} read as a plain field, for code that runs inside a launch, where no
     * collection can run: the calling thread sees its own changes of the epoch (a deactivation
     * it made, in program order) and another thread's once something orders that change before
     * the read, as with the volatile read; a deactivation racing the read on another thread is a
     * race either way. Unlike the volatile read it orders nothing after it, so the JIT may keep
     * other fields read before it (and hoist it out of a loop that changes nothing).
     */
    public long epochInLaunch() {
        return (long) EPOCH.get(this);
    }

    /**
     * A stamp to take before a walk of the active cells: a later stamp equals it only if no
     * activation completed in between that the walk may have missed. It only grows.
     *
     * <p>Why that holds. Every activation stores with a volatile read-modify-write of node memory
     * (the compare-and-set of a pointer word or a list length, the OR of a mask word), then
     * {@link #countActivation} reads the state and, if bit 0 is clear, sets it. A stamp that
     * finds bit 0 set clears it and advances the stamp in one compare-and-set; then a full fence,
     * then the walk. Take an activation A and a stamp S with its walk W:
     * <ul>
     *   <li>A reads the state before S's access to it (in the synchronization order): A's store
     *       precedes that read, so it precedes S's access and the fence, and W sees it.</li>
     *   <li>A reads it after: bit 0 is set after A's read and stays set until some stamp S2 clears
     *       it, and S2's walk sees A's store by the first case's argument (A's read or write of
     *       the state precedes S2's compare-and-set). So the first stamp after A that does not walk
     *       after A's store returns a larger value than S: no launch reuses S's snapshot as if
     *       nothing changed.</li>
     * </ul>
     * The fence is the same argument {@code StampedLock.validate} makes with its fence. Stamps
     * taken at once by two launches may return the same value; both walks then follow the one
     * compare-and-set that cleared the bit, and see everything before it. jcstress:
     * {@code ActivationStampTest}.
     */
    public long activationStamp() {
        long state;
        do {
            state = activationState;
        } while ((state & 1) != 0 && !ACTIVATION_STATE.compareAndSet(this, state, state + 1));
        VarHandle.fullFence();
        return (state & 1) != 0 ? state + 1 : state;
    }

    /**
     * Marks an activation as completed, after its store, for {@link #activationStamp}: one load
     * of a word that only stamps and the first activation after a stamp write, and an atomic OR
     * only when the mark is clear. Generated code calls it after an activation it completed by
     * itself (a mask bit set in place, {@link GeneratedCalls#activateBit}), as
     * {@link #activateInline} does for its own.
     */
    void countActivation() {
        if ((activationState & 1) == 0) {
            ACTIVATION_STATE.getAndBitwiseOr(this, 1L);
        }
    }

    /**
     * {@link #countActivation} for code outside this package that completes activations by its
     * own stores (a snapshot load ORs whole mask words): call after those stores.
     */
    public void activationsCompleted() {
        countActivation();
    }

    /**
     * Makes {@code counter} (or null) count the deactivations made on this thread from now on:
     * every {@link #deactivate} that found an active cell and every {@link #deactivateAll} that
     * found something to release.
     *
     * @return the counter it replaces, to be put back when the caller is done
     */
    public LongAdder swapDeactivationCounter(LongAdder counter) {
        LongAdder previous = deactivationCounter.get();
        deactivationCounter.set(counter);
        return previous;
    }

    /** The counter of deactivations on this thread (see {@link #swapDeactivationCounter}), or null. */
    public LongAdder deactivationCounter() {
        return deactivationCounter.get();
    }

    private void countDeactivation() {
        LongAdder counter = deactivationCounter.get();
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

    public MemorySegment root() {
        return root;
    }

    /** The zeroed ambient cell of a pointer or dynamic SNode. */
    public MemorySegment ambient(SNode snode) {
        MemorySegment cell = ambient[snode.id()];
        if (cell == null) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is " + snode.kind().text()
                    + "; only pointer, hash and dynamic nodes have an ambient cell");
        }
        return cell;
    }

    /** The directory block allocator of a dynamic SNode whose lists need one (else null). */
    public CheckedCells directories(SNode snode) {
        return directories[snode.id()];
    }

    /** The tables of a hash SNode (null for other kinds). */
    public HashTables tables(SNode snode) {
        return tables[snode.id()];
    }

    /** The cell allocator of a pointer, hash or dynamic SNode (null for other kinds). */
    public CheckedCells cells(SNode snode) {
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
            activate(target.id(), coordinates, false, location);
            return true;
        }
        return walk(target.id(), pathSteps[target.id()].length, coordinates, location);
    }

    /**
     * Activates the container of {@code target} that holds the cell at {@code coordinates} (in
     * {@code target}'s index space), and every level above it, but not that cell, and moves
     * {@code location} to the container. It is {@link #locate} with {@code activate} for the cell
     * of {@code target}'s parent that holds the container (the same protocol, order of stores and
     * failures: the memory cap or an allocator fault throw before anything is published): for a
     * caller that stores the cells of a container before it publishes their mask bits, as bulk
     * writes do ({@link BoxTransfer}), so that no bit of a bitmasked target is set before its value
     * is stored. A dense target's cells have no bits, so there it changes nothing.
     */
    public void activateContainer(SNode target, int[] coordinates, Location location) {
        PathStep[] steps = pathSteps[target.id()];
        if (steps.length == 0) {
            throw new IllegalArgumentException("the root has no container to activate");
        }
        activate(containerPath(target), coordinates, false, location);
        location.offset += steps[steps.length - 1].containerOffset();
    }

    /**
     * Moves {@code location} to the container of {@code target} that holds the cell at
     * {@code coordinates} (in {@code target}'s index space), without activating anything.
     *
     * @return false when a level above {@code target} is inactive there
     */
    public boolean locateContainer(SNode target, int[] coordinates, Location location) {
        if (!locateParent(target, coordinates, location)) {
            return false;
        }
        PathStep[] steps = pathSteps[target.id()];
        location.offset += steps[steps.length - 1].containerOffset();
        return true;
    }

    /**
     * Moves {@code location} to the header of {@code list}'s list at {@code coordinates} (an
     * element's coordinates; its index is ignored) as {@link #locateContainer} does, and where the
     * list's block is a pointer's cell (the list's parent step is a pointer, or only dense steps
     * lie between the list and a pointer) whose word there is {@link PointerWord#NULL} (every
     * level above it active), makes that block first with {@link #activateListBlock}: the block
     * appears with the list's first chunk, its length 0 (the block's other lists empty), with
     * nothing allocated on the Java heap (the memory cap or an allocator fault throw before
     * anything is published). Where the list lies in a bitmasked cell instead (the same shapes
     * with a bitmasked step) whose bit is clear, {@link #activateListCell} publishes the list's
     * first chunk and sets the bit, and where the pointer word above that bitmasked step (only
     * dense steps between them) is {@link PointerWord#NULL}, {@link #activateListCellBlock}
     * publishes a new block with the cell active and the list's first chunk. The caller then
     * appends as to any existing list.
     *
     * @return false, with nothing published, when a level further up is inactive, the word is
     *         busy or retired, or the bitmasked cell's list is retired: the caller goes to the
     *         protocol ({@link #append})
     */
    public boolean locateOrActivateListBlock(SNode list, int[] coordinates, Location location) {
        PathStep[] steps = pathSteps[list.id()];
        int last = steps.length - 1;
        int block = last - 1;
        while (block >= 0 && steps[block].node().kind() == NodeKind.DENSE) {
            block--;
        }
        NodeKind kind = block < 0 ? null : steps[block].node().kind();
        if (kind != NodeKind.POINTER && kind != NodeKind.BITMASKED) {
            return locateContainer(list, coordinates, location);
        }
        // Where the dense steps below the pointer (or the bitmasked step) put the list's header in its cell.
        long headerOffset = steps[last].containerOffset() + denseOffset(steps, block + 1, last, coordinates);
        if (!walk(list.id(), block, coordinates, location)
                && (kind != NodeKind.BITMASKED
                || !activateListCellBlock(list, steps, block, coordinates, location, headerOffset)
                || !walk(list.id(), block, coordinates, location))) {
            return false;
        }
        if (kind == NodeKind.BITMASKED) {
            return locateOrActivateListCell(list, steps[block], coordinates, location, headerOffset);
        }
        SNode pointer = steps[block].node().snode();
        long wordOffset = location.offset + steps[block].containerOffset()
                + PointerWord.wordOffset(steps[block].cellIndex(coordinates));
        long word = activateListBlock(pointer, list, location.segment, wordOffset, headerOffset);
        if (!PointerWord.isActive(word)) {
            return false;
        }
        CheckedCells manager = cells[pointer.id()];
        long cell = PointerWord.cellIndex(word);
        location.set(manager.segment(cell), manager.offset(cell) + headerOffset);
        return true;
    }

    /**
     * {@link #locateOrActivateListBlock} where the list lies in a cell of bitmasked step
     * {@code cellStep} and the walk to that step found a level inactive: when the level is the
     * pointer step above the bitmasked one (only dense steps between them) and its word is
     * {@link PointerWord#NULL}, publishes a new block there whose bitmasked cell is active with
     * the list's first chunk ({@link #activateListCellBlock}). True when the word is active now
     * (published here or by another thread): the caller walks again. False, nothing published,
     * when another level is inactive or the word is busy or retired. {@code headerOffset}: where
     * the list's header lies in its bitmasked cell.
     */
    private boolean activateListCellBlock(SNode list, PathStep[] steps, int cellStep, int[] coordinates,
                                          Location location, long headerOffset) {
        int pointer = cellStep - 1;
        while (pointer >= 0 && steps[pointer].node().kind() == NodeKind.DENSE) {
            pointer--;
        }
        if (pointer < 0 || steps[pointer].node().kind() != NodeKind.POINTER || !walk(list.id(), pointer, coordinates, location)) {
            return false;
        }
        // Offsets in the new block: the bitmasked step's container, then the list's header in its cell.
        long container = steps[cellStep].containerOffset() + denseOffset(steps, pointer + 1, cellStep, coordinates);
        SNodePlan cells = steps[cellStep].node();
        long index = steps[cellStep].cellIndex(coordinates);
        long header = container + cells.cellsOffset() + index * cells.cellBytes() + headerOffset;
        long wordOffset = location.offset + steps[pointer].containerOffset()
                + PointerWord.wordOffset(steps[pointer].cellIndex(coordinates));
        return PointerWord.isActive(activateListCellBlock(steps[pointer].node().snode(), list, location.segment,
                wordOffset, header, container + BitmaskWords.wordOffset(index), index));
    }

    /**
     * Where dense steps {@code [from, to)} of {@code steps} put the cell for {@code coordinates},
     * in bytes from the start of the cell holding step {@code from}'s container: per step, its
     * container's offset and its cell index times its cell bytes.
     */
    private static long denseOffset(PathStep[] steps, int from, int to, int[] coordinates) {
        long offset = 0;
        for (int s = from; s < to; s++) {
            offset += steps[s].containerOffset() + steps[s].cellIndex(coordinates) * steps[s].node().cellBytes();
        }
        return offset;
    }

    /**
     * {@link #locateOrActivateListBlock} where the list lies in a cell of bitmasked step
     * {@code step} (the location in the cell holding that step's container, the list's header
     * {@code headerOffset} bytes into the bitmasked cell): moves the location to the header, after
     * {@link #activateListCell} where the cell's bit is clear; false, nothing changed, where that
     * finds the list retired.
     */
    private boolean locateOrActivateListCell(SNode list, PathStep step, int[] coordinates, Location location,
                                             long headerOffset) {
        long container = location.offset + step.containerOffset();
        long index = step.cellIndex(coordinates);
        long maskWord = container + BitmaskWords.wordOffset(index);
        long header = container + step.node().cellsOffset() + index * step.node().cellBytes() + headerOffset;
        if ((Atomics.getAcquire(location.segment, maskWord) & BitmaskWords.bit(index)) == 0
                && !activateListCell(list, location.segment, maskWord, index, header)) {
            return false;
        }
        location.offset = header;
        return true;
    }

    /**
     * Gives the container of hash SNode {@code target} that holds the cell at
     * {@code coordinates} the table that {@code more} insertions of new cells would leave it
     * with, at once ({@link HashUnit#reserveEntries}): for a load that knows how many cells it
     * will insert there. Activates nothing; false when the container's parent cell is inactive
     * (then nothing is done).
     *
     * @throws io.snode.api.MemoryCapExceededException when the cap refuses the table (nothing changed)
     */
    public boolean reserveHashEntries(SNode target, int[] coordinates, long more, Location location) {
        if (target.kind() != NodeKind.HASH) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + "; only hash nodes have tables");
        }
        if (!locateParent(target, coordinates, location)) {
            return false;
        }
        ((HashUnit) units.unit(target)).reserveEntries(location.segment,
                location.offset + lastStep(target).containerOffset(), more);
        return true;
    }

    /**
     * Moves {@code location} to the cell of {@code target}'s parent that holds the container
     * of {@code target}, without activating anything.
     */
    private boolean locateParent(SNode target, int[] coordinates, Location location) {
        return walk(target.id(), pathSteps[target.id()].length - 1, coordinates, location);
    }

    /** The first {@code levels} steps of the target's path, read-only; false at an inactive one. */
    private boolean walk(int target, int levels, int[] coordinates, Location location) {
        return walk(pathSteps[target], pathUnits[target], levels, coordinates, location);
    }

    /** The first {@code levels} steps of a path (its steps and their units), read-only from the root; false at an inactive one. */
    boolean walk(PathStep[] steps, NodeUnit[] path, int levels, int[] coordinates, Location location) {
        location.set(root, 0);
        for (int s = 0; s < levels; s++) {
            if (!path[s].lookup(location, location.offset + steps[s].containerOffset(), steps[s].cellIndex(coordinates))) {
                return false;
            }
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
        long index = activate(dynamic.id(), coordinates, true, location);
        location.element = index;
        return index;
    }

    /**
     * The activation protocol: plan (read-only walk), reserve (every cell the plan needs, from the
     * node managers), publish (top-down; a fresh subtree is built inside reserved cells and
     * appears with one compare-and-set), then hand back what was not used; each walk is an
     * {@link Activation}. {@code id} names the path ({@link #pathSteps}): a target's own, or its
     * {@link #containerPath}.
     *
     * @return the element's index for an append or a dynamic element, else 0
     */
    private long activate(int id, int[] coordinates, boolean append, Location location) {
        if (!append) {
            int refused = activateInline(id, coordinates, location.set(root, 0), 0);
            if (refused == pathSteps[id].length
                    || (refused == onePointer[id] && activateOnePointer(id, coordinates, location))) {
                return 0;
            }
        }
        Reservation reservation = new Reservation(pathSteps[id].length);
        Activation activation = new Activation(this, pathSteps[id], pathUnits[id], coordinates, append,
                reservation, location);
        Throwable failure = null;
        try {
            while (true) {
                activation.reserve(activation.plan());
                long result = activation.publish();
                if (result != NodeUnit.REPLAN) {
                    if (reservation.changed) {
                        countActivation();
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
     * those mask bits, exactly what the protocol's publish would store for the same path, and none
     * of them can fail. Anything else (an inactive, busy or retired pointer word, a list, a clear
     * bit above the inline tail) stops before the first store, since no step after the
     * inline tail can bail out, and the whole protocol runs.
     *
     * The walk starts at step {@code from}, with {@code location} at that step's parent cell (the
     * root cell for 0).
     *
     * @return the path's length when the activation is done; else the step that refused, with
     *         {@code location} at that step's parent cell and nothing stored
     */
    private int activateInline(int target, int[] coordinates, Location location, int from) {
        PathStep[] steps = pathSteps[target];
        NodeUnit[] path = pathUnits[target];
        int tail = inlineTail[target];
        boolean changed = false;
        for (int s = from; s < steps.length; s++) {
            int step = path[s].activateInline(location, location.offset + steps[s].containerOffset(),
                    steps[s].cellIndex(coordinates), s >= tail);
            if (step == NodeUnit.INLINE_REFUSED) {
                return s; // before the inline tail: nothing stored, location at step s's parent cell
            }
            changed |= step == NodeUnit.INLINE_CHANGED;
        }
        if (changed) {
            countActivation();
        }
        return steps.length;
    }

    /**
     * The activation that needs one cell, where {@link #activateInline} stopped at the target's
     * {@link #onePointer} step ({@code location} at that step's parent cell, every step above
     * active): that step's pointer word is {@link PointerWord#NULL}, and only dense and
     * bitmasked steps follow. The protocol's three steps for that one cell, without an
     * {@link Activation} or a {@link Reservation}: allocate it (the memory cap or an allocator
     * fault throw here, before anything is published), build the steps below inside it (a
     * bitmasked step stores its bit into the fresh, zeroed container), publish it with the
     * compare-and-set from {@link PointerWord#NULL} (release), and count the change. Returns
     * false with nothing published, and the cell handed back with its bytes zero again, when the
     * path does not have that shape now or the compare-and-set fails (another activation won,
     * or a deactivation holds or retired the word): the protocol then decides.
     */
    private boolean activateOnePointer(int target, int[] coordinates, Location location) {
        int step = onePointer[target];
        PathStep[] steps = pathSteps[target];
        NodeUnit[] path = pathUnits[target];
        MemorySegment segment = location.segment;
        long wordOffset = location.offset + steps[step].containerOffset()
                + PointerWord.wordOffset(steps[step].cellIndex(coordinates));
        if (Atomics.getAcquire(segment, wordOffset) != PointerWord.NULL) {
            return false;
        }
        CheckedCells manager = ((PointerUnit) path[step]).cells();
        long cell = allocate(path[step].node().snode(), manager);
        boolean published = false;
        try {
            location.set(manager.segment(cell), manager.offset(cell));
            for (int s = step + 1; s < steps.length; s++) {
                path[s].buildInPlace(location, location.offset + steps[s].containerOffset(),
                        steps[s].cellIndex(coordinates));
            }
            published = Atomics.compareAndSet(segment, wordOffset, PointerWord.NULL, PointerWord.encode(cell));
        } finally {
            if (!published) {
                Location undo = new Location().set(manager.segment(cell), manager.offset(cell));
                for (int s = step + 1; s < steps.length; s++) {
                    path[s].unbuildInPlace(undo, undo.offset + steps[s].containerOffset(), steps[s].cellIndex(coordinates));
                }
                manager.unallocate(cell);
            }
        }
        if (published) {
            countActivation();
        }
        return published;
    }

    /**
     * Generated code's activation of one pointer cell: the word at ({@code segment},
     * {@code wordOffset}) is the word of a path's {@link #onePointer} step of {@code pointer} (only
     * dense and bitmasked steps follow), in the parent cell that the caller's walk found in the
     * same call. When the word is {@link PointerWord#NULL}: allocates a cell (the memory cap or an
     * allocator fault throw here, before anything is published) and publishes it, zeroed and
     * empty, with a compare-and-exchange from {@link PointerWord#NULL} (volatile), counting the
     * change. Returns the word the caller goes on with: the one it published, or, when the word was
     * not {@link PointerWord#NULL} or another thread's exchange came first, the word found there
     * (read with acquire ordering; the cell goes back, still zero). The caller enters an active
     * word's cell and activates the steps below in place, as a write to an existing block does (a
     * clear mask bit set with an atomic OR): those need no memory and cannot fail, so a write
     * either leaves nothing (refused here) or completes. A word that is not active (busy, retired:
     * a deactivation holds the parent, or released it) sends the caller to {@link #activateFrom},
     * with nothing changed. Nothing is allocated on the Java heap: no coordinates' array, no
     * {@link Location}.
     *
     * <p>Against {@link #activateOnePointer}, which builds the written cell's mask bit in the fresh
     * container before publishing it, a reader may see the new block for a moment with no voxel
     * active, as a bulk write's new container appears before its cells ({@link BoxTransfer}). A
     * deactivation that releases the block before the caller's store makes that store land in the
     * released cell, as it does after {@link #activateOnePointer}: the caller never reads the
     * word again.
     */
    public long activatePointer(SNode pointer, MemorySegment segment, long wordOffset) {
        return publishNewCell(pointer, null, segment, wordOffset, 0, -1, 0);
    }

    /**
     * Generated code's append to the list whose header is at ({@code segment}, {@code header}),
     * a list of {@code list} that the caller's walk found in the same call, once the append that
     * needs no memory ({@link DynamicUnit#tryAppend}) found the next element's chunk missing:
     * {@link #publishNextChunk}, then the next index as {@link DynamicUnit#tryAppend} takes it,
     * counting the activation, again until one is taken. Returns the index taken, or {@code -1},
     * with nothing of its own published, when the protocol must run (the list is full, and the
     * protocol throws; the list is retired, its cell being released). The memory cap or an
     * allocator fault throw with nothing published. Nothing is allocated on the Java heap.
     */
    public long appendToNewChunk(SNode list, MemorySegment segment, long header) {
        DynamicUnit unit = (DynamicUnit) units.unit(list);
        SNodePlan node = unit.node();
        CheckedCells blocks = unit.blocks();
        while (true) {
            long element = DynamicUnit.tryAppend(segment, header, node.chunkSize(), node.capacity(), blocks,
                    node.directoryLeafFanout());
            if (element >= 0) {
                countActivation();
                return element;
            }
            if (!publishNextChunk(list, segment, header)) {
                return -1;
            }
        }
    }

    /**
     * Makes sure the chunk of the next element of the list at ({@code segment}, {@code header})
     * (a list of {@code list}, found by the caller in the same call) exists, without taking an
     * index: allocates that chunk, and the directory's top and leaf blocks where they are missing
     * too (the memory cap or an allocator fault throw here, before anything is published, and the
     * cells allocated so far go back), publishes under the header lock those references still
     * missing ({@link DynamicUnit#publishChunk}), and hands the other cells back
     * ({@code unallocate}, newest first; still zero). Returns true when the chunk exists (published
     * here or by another thread; other appends may have taken its indices since), false, with
     * nothing published, when the list is full or retired (its cell being released): the caller
     * goes to the protocol. A chunk published here stays even when others take its indices first:
     * their appends needed it. Nothing is allocated on the Java heap.
     */
    public boolean publishNextChunk(SNode list, MemorySegment segment, long header) {
        DynamicUnit unit = (DynamicUnit) units.unit(list);
        SNodePlan node = unit.node();
        CheckedCells blocks = unit.blocks();
        CheckedCells chunks = unit.chunks();
        while (true) {
            long length = DynamicUnit.length(segment, header);
            if (length >= node.capacity()) {
                return false;
            }
            long chunk = length / node.chunkSize();
            int missing = unit.missingReferences(segment, header, chunk);
            if (missing == 0) {
                return true;
            }
            long top = -1;
            long leaf = -1;
            long cell = -1;
            int published = DynamicUnit.CELLS_MISSING;
            try {
                // The chunk first, the directory blocks last (see Activation.reserveList): a refusal
                // then never follows two requests to the blocks' manager, which could not both be undone.
                cell = allocate(list, chunks);
                if ((missing & Reservation.NEED_TOP) != 0) {
                    top = allocate(list, blocks);
                }
                if ((missing & Reservation.NEED_LEAF) != 0) {
                    leaf = allocate(list, blocks);
                }
                published = unit.publishChunk(segment, header, chunk, top, leaf, cell);
            } finally {
                int used = Math.max(published, 0);
                if (leaf >= 0 && (used & Reservation.NEED_LEAF) == 0) {
                    blocks.unallocate(leaf);
                }
                if (top >= 0 && (used & Reservation.NEED_TOP) == 0) {
                    blocks.unallocate(top);
                }
                if (cell >= 0 && (used & Reservation.NEED_CHUNK) == 0) {
                    chunks.unallocate(cell);
                }
            }
            if (published == DynamicUnit.LIST_RETIRED) {
                return false;
            }
            if (published >= 0) {
                return true;
            }
            // CELLS_MISSING: a clear emptied the list since it was read; read it again
        }
    }

    /**
     * Generated code's append to the list of a bitmasked cell whose bit its walk found clear: the
     * mask word at ({@code segment}, {@code maskWord}) holds the bit of cell {@code index} of the
     * bitmasked step that holds {@code list} (just above it, or above only dense steps that end at
     * it), and the list's header is at ({@code segment}, {@code header}) in that cell, found by
     * the caller's walk in the same call. Returns false with nothing changed when the list is
     * retired (a deactivation of the cell, or the release of the cell above, left it so; reopening
     * it needs the walk from the root that the protocol makes: the caller goes there). Otherwise,
     * when the list's first chunk is missing, allocates it (the memory cap or an allocator fault
     * throw here, before anything is published) and publishes it under the list's lock
     * ({@link DynamicUnit#publishChunk}; when another append published one first, ours goes back,
     * zeroed; when the list turned out retired under the lock, ours goes back and the answer is
     * false, nothing changed); then sets the cell's bit with an atomic OR (volatile), counting the
     * change when it was clear, and returns true: the caller appends there ({@link DynamicUnit#tryAppend},
     * then the rest of its append).
     *
     * <p><b>Failure halfway.</b> The chunk is published before the bit, as a bulk write stores
     * before it sets bits: in between, the cell reads inactive and its list is not visited, and a
     * deactivation of the cell finds nothing to do; a release of the container above it (which
     * retires the lists of inactive cells too) takes the chunk, and the caller's append then finds
     * the list retired and goes to the protocol (its bit, set in the released container, is read
     * by nobody). After the bit only the caller's index can be refused, when other appends filled
     * the list first. Nothing is allocated on the Java heap.
     */
    public boolean activateListCell(SNode list, MemorySegment segment, long maskWord, long index, long header) {
        if (Atomics.getAcquire(segment, header + DynamicHeader.LOCK_OFFSET) == DynamicHeader.LOCK_RETIRED) {
            return false;
        }
        if (Atomics.getAcquire(segment, header + DynamicHeader.inlineChunkOffset(0)) == PointerWord.NULL) {
            DynamicUnit unit = (DynamicUnit) units.unit(list);
            CheckedCells chunks = unit.chunks();
            long chunk = allocate(list, chunks);
            int published = unit.publishChunk(segment, header, 0, -1, -1, chunk);
            if (published <= 0) {
                chunks.unallocate(chunk); // there already, or the list retired
            }
            if (published == DynamicUnit.LIST_RETIRED) {
                return false;
            }
        }
        long bit = BitmaskWords.bit(index);
        if ((Atomics.getAndBitwiseOr(segment, maskWord, bit) & bit) == 0) {
            countActivation();
        }
        return true;
    }

    /**
     * Generated code's append to a list in a new block: the word at ({@code segment},
     * {@code wordOffset}) is the word of {@code pointer} (the step just above {@code list}'s, or
     * above only dense steps that end at it) in the parent cell that the caller's walk found in
     * the same call, and the list's header lies {@code headerOffset} bytes into the pointer's
     * cell (the dense steps' offsets included). When the word is
     * {@link PointerWord#NULL}: allocates the block and a chunk for the list (the memory cap or
     * an allocator fault throw here, before anything is published, and a block allocated goes
     * back), stores the chunk's reference as the list's first inline chunk in the block, which
     * nobody else can reach, and publishes the block with a compare-and-exchange from
     * {@link PointerWord#NULL} (volatile), counting the change. Returns the word the caller goes
     * on with: the one it published (its list empty, with a chunk for its first indices) or,
     * when the word was not {@link PointerWord#NULL} or another thread's exchange came first,
     * the word found there (both cells go back, zeroed). The caller
     * enters an active word's cell and appends to the list there ({@link #appendToNewChunk}
     * behind {@link DynamicUnit#tryAppend}); a word that is not active (busy, retired) sends it to
     * the protocol from the root with nothing changed. Between the exchange and the caller's
     * index a reader may see the block active with an empty list, as a bulk write's new container
     * appears before its cells; the append cannot be refused after the exchange unless other
     * appends filled the chunk first (then the block holds theirs). Nothing is allocated on the
     * Java heap.
     */
    public long activateListBlock(SNode pointer, SNode list, MemorySegment segment, long wordOffset,
                                  long headerOffset) {
        return publishNewCell(pointer, list, segment, wordOffset, headerOffset, -1, 0);
    }

    /**
     * {@link #activateListBlock} where the list lies in a cell of a bitmasked step inside the new
     * block (the pointer's cell holds that step's container, with only dense steps between them,
     * and only dense steps lie between the bitmasked cell and the list): the block is built with
     * the list's first chunk and with that cell's bit (cell {@code index} of the mask word
     * {@code maskWordOffset} bytes into the block) already set, and appears with the same one
     * compare-and-exchange, so that the cell never reads active with a list that has no chunk
     * and a refusal (memory cap, allocator fault, before anything is published) or a lost race
     * leaves nothing. The returned word is as for {@link #activateListBlock}; in a winner's block
     * the cell's bit may still be clear (its list then takes {@link #activateListCell}).
     */
    public long activateListCellBlock(SNode pointer, SNode list, MemorySegment segment, long wordOffset,
                                      long headerOffset, long maskWordOffset, long index) {
        return publishNewCell(pointer, list, segment, wordOffset, headerOffset, maskWordOffset, index);
    }

    /**
     * {@link #activatePointer} ({@code list} null), {@link #activateListBlock} and
     * {@link #activateListCellBlock} ({@code maskWordOffset} at least 0): where the word is
     * {@link PointerWord#NULL}, a new cell of {@code pointer} (with {@code list}, a chunk for its
     * list built in at {@code headerOffset}, and with a mask word offset, bit {@code index} set in
     * that word of the cell), published with one compare-and-exchange; else, or when the exchange
     * loses, the word found, with every cell taken here handed back.
     */
    private long publishNewCell(SNode pointer, SNode list, MemorySegment segment, long wordOffset, long headerOffset,
                                long maskWordOffset, long index) {
        long word = Atomics.getAcquire(segment, wordOffset);
        if (word != PointerWord.NULL) {
            return word;
        }
        CheckedCells manager = cells[pointer.id()];
        CheckedCells chunks = list == null ? null : ((DynamicUnit) units.unit(list)).chunks();
        long cell = allocate(pointer, manager);
        long chunk = -1;
        if (chunks != null) {
            try {
                chunk = allocate(list, chunks);
            } catch (RuntimeException | Error e) {
                manager.unallocate(cell);
                throw e;
            }
            Atomics.setRelease(manager.segment(cell), manager.offset(cell) + headerOffset
                    + DynamicHeader.inlineChunkOffset(0), PointerWord.encode(chunk));
            if (maskWordOffset >= 0) { // the cell is zero and nobody else's: its bit is the whole word
                Atomics.setRelease(manager.segment(cell), manager.offset(cell) + maskWordOffset, BitmaskWords.bit(index));
            }
        }
        long published = PointerWord.encode(cell);
        long witness = Atomics.compareAndExchange(segment, wordOffset, PointerWord.NULL, published);
        if (witness == PointerWord.NULL) {
            countActivation();
            return published;
        }
        if (chunk >= 0) {
            chunks.unallocate(chunk);
        }
        manager.unallocate(cell); // unallocate zeroes it, the chunk reference built in included
        return witness;
    }

    /**
     * {@link #locate} with {@code activate}, for a caller that walked the upper part of the path
     * itself and found the word of the target's {@link #onePointer} step not active: the cell at
     * ({@code segment}, {@code offset}) is that step's parent cell for {@code coordinates}, as the
     * caller's walk found it in the same call (generated code's write). The steps from there run
     * as {@link #activateInline} runs them, and an inactive word goes through
     * {@link #activateOnePointer}, so the stores, their order and the failures (the memory cap or
     * an allocator fault throw before anything is published) are those of an activation from
     * the root, without its walk through the levels above. Anything else (the target has no such
     * step; the word is busy or retired, as in a parent cell released since the caller's walk;
     * another thread won the compare-and-set) leaves nothing stored and the activation to the
     * protocol from the root, as {@link #locate} does.
     */
    public void activateFrom(SNode target, int[] coordinates, MemorySegment segment, long offset, Location location) {
        int id = target.id();
        int step = onePointer[id];
        if (step >= 0) {
            // As activate's first two tries, from the given cell: the steps from there can refuse
            // only at the pointer step (the ones below it activate in place).
            int refused = activateInline(id, coordinates, location.set(segment, offset), step);
            if (refused == pathSteps[id].length
                    || (refused == step && activateOnePointer(id, coordinates, location))) {
                return;
            }
        }
        locate(target, coordinates, true, location);
    }

    /**
     * The first path step from which every later step activates in place (dense, bitmasked: needs
     * no memory and cannot fail), so that a mask bit at or after it may be set without a
     * reservation; the path's length when the last step does not.
     */
    private static int inlineTail(NodeUnit[] path) {
        int tail = path.length;
        while (tail > 0 && path[tail - 1].activatesInPlace()) {
            tail--;
        }
        return tail;
    }

    // ------------------------------------------------------------------ dynamic lists

    /** The length of the list that holds {@code coordinates}; 0 when the list is inactive. */
    public long length(SNode dynamic, int[] coordinates, Location location) {
        if (!locateParent(dynamic, coordinates, location)) {
            return 0;
        }
        PathStep[] steps = pathSteps[dynamic.id()];
        return DynamicUnit.length(location.segment, location.offset + steps[steps.length - 1].containerOffset());
    }

    // ------------------------------------------------------------------ activity

    public boolean isActive(SNode target, int[] coordinates, Location location) {
        if (target.kind() == NodeKind.ROOT) {
            return true;
        }
        if (!locateParent(target, coordinates, location)) {
            return false;
        }
        PathStep step = lastStep(target);
        return units.unit(target).isActive(location.segment, location.offset + step.containerOffset(),
                step.cellIndex(coordinates));
    }

    private PathStep lastStep(SNode target) {
        PathStep[] steps = pathSteps[target.id()];
        return steps[steps.length - 1];
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
        PathStep step = lastStep(target);
        return deactivateCell(target, location.segment, location.offset + step.containerOffset(),
                step.cellIndex(coordinates));
    }

    /**
     * Deactivates cell {@code index} of sparse {@code target}'s container at ({@code segment},
     * {@code container}), found by the caller's walk (a list: the list whose header is there,
     * {@code index} unused), with everything below it: the epoch advanced before anything
     * changes and again after, the deactivation counted for the calling thread's launch when
     * the cell was active. A cell found inactive with nothing in progress on it
     * ({@link NodeUnit#inactiveAtRest}) is left at once, the epoch as it was: such a call
     * changes nothing, and is the same as one made just before whatever activates the cell next. What {@link #deactivate} does once its walk found the container; the
     * generated {@code deactivate_} methods walk there themselves.
     *
     * @return whether the cell was active
     */
    public boolean deactivateCell(SNode target, MemorySegment segment, long container, long index) {
        NodeUnit unit = units.unit(target);
        if (unit.inactiveAtRest(segment, container, index)) {
            return false; // nothing changes: the epoch stays, so caches and snapshots stay too
        }
        advanceEpoch();
        try {
            boolean wasActive = unit.deactivate(segment, container, index);
            if (wasActive) {
                countDeactivation();
            }
            return wasActive;
        } finally {
            advanceEpoch();
        }
    }

    /**
     * The deactivation of {@code target}'s cells in the box {@code [low, high)}, not run yet:
     * {@link #deactivateBox} runs one, advancing the epoch (which cached accessors test) just
     * before its first change and again after it; a test may run one alone, single-threaded, to
     * read what it examined.
     */
    public BoxDeactivation boxDeactivation(SNode target, int[] low, int[] high) {
        requireSparse(target);
        return new BoxDeactivation(pathSteps[target.id()], pathUnits[target.id()], low, high);
    }

    /**
     * Deactivates every cell of {@code target} whose coordinate range lies wholly in the box
     * {@code [low, high)} of its index space, with everything below, in one walk; a cell of a
     * sparse node above it that lies wholly in the box goes at once with its subtree
     * ({@link BoxDeactivation}). Counted as one deactivation when it deactivated anything. The
     * epoch advances just before the first cell found active is deactivated and again at the
     * end; a box in which the walk finds no such cell changes nothing, the epoch as it was.
     *
     * @return the cells deactivated (of {@code target} and of the nodes above it)
     */
    public long deactivateBox(SNode target, int[] low, int[] high) {
        requireSparse(target);
        BoxDeactivation box = boxDeactivation(target, low, high);
        try {
            long deactivated = box.run(root, this::advanceEpoch);
            if (deactivated > 0) {
                countDeactivation();
            }
            return deactivated;
        } finally {
            if (box.changing()) {
                advanceEpoch();
            }
        }
    }

    /**
     * Deactivates every cell of {@code target} and everything below them (Taichi's
     * {@code deactivate_all}). The cells of the root and of dense nodes are always active: for
     * them it deactivates every pointer, bitmasked and dynamic node below, so that on the root it
     * empties the whole structure; the values of dense cells above every sparse node stay.
     * When every container it would release is at rest ({@link NodeUnit#containerAtRest}, read
     * first, container by container, without changing anything), it changes nothing: the epoch
     * stays and no deactivation is counted, as for a {@link #deactivateCell} that finds its
     * cell inactive; each such container is left as a release of it at the moment it was read
     * would have left it. Otherwise the epoch advances before the first release and again at
     * the end, and the call counts as one deactivation.
     */
    public void deactivateAll(SNode target) {
        List<SNode> released = new ArrayList<>();
        releasedBy(target, released);
        if (released.stream().allMatch(this::containersAtRest)) {
            return; // nothing changes: the epoch stays, so caches, snapshots and kept sets stay too
        }
        advanceEpoch();
        try {
            for (SNode node : released) {
                releaseAll(node);
            }
        } finally {
            countDeactivation();
            advanceEpoch();
        }
    }

    /**
     * The sparse nodes whose containers {@link #deactivateAll} of {@code node} releases, into
     * {@code into}: {@code node} itself when it is sparse, else every sparse node below it with
     * only dense nodes in between (a dense node's cells stay, the sparse nodes below go).
     */
    private static void releasedBy(SNode node, List<SNode> into) {
        if (node.kind().isSparse()) {
            into.add(node);
            return;
        }
        for (SNode child : node.children()) {
            releasedBy(child, into);
        }
    }

    /**
     * Whether the container of sparse {@code target} in every active cell of its parent is at
     * rest. The walk ends at the first container that is not ({@link NotAtRest}), so on a
     * structure with something to release the look costs about one container's scan.
     */
    private boolean containersAtRest(SNode target) {
        NodeUnit unit = units.unit(target);
        long containerOffset = lastStep(target).containerOffset();
        int parent = target.parent().id();
        try {
            PathCells.forEach(root, pathSteps[parent], pathUnits[parent], (segment, cell) -> {
                if (!unit.containerAtRest(segment, cell + containerOffset)) {
                    throw NotAtRest.FOUND;
                }
            });
            return true;
        } catch (NotAtRest found) {
            return false;
        }
    }

    /**
     * Ends {@link #containersAtRest}'s walk, which reads only (the walks of the node units hold
     * no lock and have nothing to undo): one shared instance without a stack trace, never seen
     * outside this class.
     */
    private static final class NotAtRest extends RuntimeException {
        static final NotAtRest FOUND = new NotAtRest();

        private NotAtRest() {
            super("a container not at rest", null, false, false);
        }
    }

    /** Releases the container of sparse {@code target} in every active cell of its parent. */
    private void releaseAll(SNode target) {
        NodeUnit unit = units.unit(target);
        long containerOffset = lastStep(target).containerOffset();
        int parent = target.parent().id();
        PathCells.forEach(root, pathSteps[parent], pathUnits[parent],
                (segment, cell) -> unit.release(segment, cell + containerOffset, false));
    }

    private static void requireSparse(SNode target) {
        if (!target.kind().isSparse()) {
            throw new IllegalArgumentException("snode=" + target.path() + " is " + target.kind().text()
                    + ": its cells are always active; deactivate a pointer, hash, bitmasked or dynamic node");
        }
    }
}
