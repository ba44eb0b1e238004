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
 * activation with roll-back, deactivation of a cell and everything below it, dynamic lists,
 * and visiting active cells.
 *
 * <h2>Concurrency</h2>
 * <b>Assumptions:</b> no collection runs while any method here runs (the runtime's phase lock or
 * the caller guarantee it). <b>Guarantees:</b> activation from many threads at once allocates
 * exactly one cell per activated pointer cell (double-checked: the word is read without the
 * lock, then locked by a CAS from {@link PointerWord#NULL} to {@link PointerWord#BUSY},
 * allocated and published with a release store); bitmasked activation is an atomic OR;
 * dynamic append reserves its index with a CAS on the length, after making sure the chunk for
 * that index exists. Reads never lock: they see a pointer either inactive or published with its
 * zeroed cell. <b>Not guaranteed:</b> deactivating a cell while another thread activates or
 * writes below it is a race of the caller's making: writes below may be lost (never memory of
 * another cell, since recycled cells are reused only after collection).
 * <b>Progress:</b> readers are wait-free; an activation waits only while another thread holds
 * the same pointer word or list header, which it does for one allocation.
 */
public final class Structure {
    private final Plan plan;
    private final MemorySegment root;
    private final CellManager[] cells;
    private final CellManager[] directories;
    private final MemorySegment[] ambient;
    private final boolean[] managedBelow;
    /**
     * Counts events after which a remembered cell may no longer be the cell of its coordinates:
     * deactivations, roll-backs of activations, collections. Accessors that cache cells compare
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
     * Starts a new epoch: cached cells are stale from now on. Deactivations and roll-backs
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
     * {@code target}'s index space), activating every level when {@code activate} is set.
     *
     * @return false when a level is inactive (only without {@code activate})
     */
    public boolean locate(SNode target, int[] coordinates, boolean activate, Location location) {
        location.set(root, 0);
        List<PathStep> path = plan.path(target);
        if (!activate) {
            for (PathStep step : path) {
                if (!descend(step, coordinates, location, null)) {
                    return false;
                }
            }
            return true;
        }
        Undo undo = new Undo();
        try {
            for (PathStep step : path) {
                descend(step, coordinates, location, undo);
            }
        } catch (RuntimeException | Error failure) {
            advanceEpoch();
            undo.rollBack();
            advanceEpoch();
            throw failure;
        }
        if (undo.changedAnything()) {
            activations.increment();
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
            if (!descend(path.get(n), coordinates, location, null)) {
                return false;
            }
        }
        return true;
    }

    /** One level down; {@code undo == null} means read-only. */
    private boolean descend(PathStep step, int[] coordinates, Location location, Undo undo) {
        SNodePlan node = step.node();
        MemorySegment segment = location.segment;
        long container = location.offset + step.containerOffset();
        long index = step.cellIndex(coordinates);
        switch (node.kind()) {
            case DENSE -> location.offset = container + index * node.cellBytes();
            case BITMASKED -> {
                long wordOffset = container + (index >>> 6) * Long.BYTES;
                long bit = 1L << (index & 63);
                if (undo == null) {
                    if ((Atomics.getAcquire(segment, wordOffset) & bit) == 0) {
                        return false;
                    }
                } else if ((Atomics.getAndBitwiseOr(segment, wordOffset, bit) & bit) == 0) {
                    undo.bit(segment, wordOffset, bit);
                }
                location.offset = container + node.cellsOffset() + index * node.cellBytes();
            }
            case POINTER -> {
                long wordOffset = container + index * PointerWord.BYTES;
                CellManager manager = cells[node.id()];
                long word = Atomics.getAcquire(segment, wordOffset);
                long cell;
                if (PointerWord.isActive(word)) {
                    cell = PointerWord.cellIndex(word);
                } else if (undo == null) {
                    return false;
                } else {
                    cell = activatePointer(segment, wordOffset, manager, undo);
                }
                location.set(manager.segment(cell), manager.offset(cell));
            }
            case DYNAMIC -> {
                return locateElement(node, segment, container, index, location, undo);
            }
            case ROOT -> throw new AssertionError("the root is not a path step");
        }
        return true;
    }

    private static long activatePointer(MemorySegment segment, long wordOffset, CellManager manager, Undo undo) {
        while (true) {
            long word = Atomics.getAcquire(segment, wordOffset);
            if (PointerWord.isActive(word)) {
                return PointerWord.cellIndex(word);
            }
            if (word == PointerWord.NULL
                    && Atomics.compareAndSet(segment, wordOffset, PointerWord.NULL, PointerWord.BUSY)) {
                long cell;
                try {
                    cell = manager.allocate();
                } catch (RuntimeException | Error failure) {
                    Atomics.setRelease(segment, wordOffset, PointerWord.NULL);
                    throw failure;
                }
                Atomics.setRelease(segment, wordOffset, PointerWord.encode(cell));
                undo.pointer(segment, wordOffset, manager, cell);
                return cell;
            }
            // BUSY: another thread is allocating or releasing this cell; it holds the word for
            // one allocation or one subtree release.
            Thread.onSpinWait();
        }
    }

    // ------------------------------------------------------------------ dynamic lists

    private boolean locateElement(SNodePlan node, MemorySegment segment, long header, long index,
                                  Location location, Undo undo) {
        int chunkSize = node.chunkSize();
        long chunk = index / chunkSize;
        long cell;
        if (undo == null) {
            if (index >= Atomics.getAcquire(segment, header + DynamicHeader.LENGTH_OFFSET)) {
                return false;
            }
            long reference = chunkReference(node, segment, header, chunk);
            if (reference == PointerWord.NULL) {
                return false; // inside the length, but never written: reads zero
            }
            cell = PointerWord.cellIndex(reference);
        } else {
            cell = ensureChunk(node, segment, header, chunk, undo);
            long lengthOffset = header + DynamicHeader.LENGTH_OFFSET;
            while (true) {
                long length = Atomics.getVolatile(segment, lengthOffset);
                if (length > index) {
                    break;
                }
                if (Atomics.compareAndSet(segment, lengthOffset, length, index + 1)) {
                    undo.length(segment, lengthOffset, length, index + 1);
                    break;
                }
            }
        }
        CellManager manager = cells[node.id()];
        location.set(manager.segment(cell), manager.offset(cell) + (index % chunkSize) * node.cellBytes());
        return true;
    }

    /**
     * Appends one element to the list at (segment, header): reserves the next index, making
     * sure its chunk exists first, and moves {@code location} to the element.
     *
     * @return the element's index
     * @throws DynamicListFullException when the list holds its capacity (nothing changes)
     */
    public long append(SNode dynamic, int[] coordinates, Location location) {
        SNodePlan node = plan.node(dynamic);
        List<PathStep> path = plan.path(dynamic);
        Undo undo = new Undo();
        long index;
        MemorySegment segment;
        long header;
        try {
            location.set(root, 0);
            for (int n = 0; n < path.size() - 1; n++) {
                descend(path.get(n), coordinates, location, undo);
            }
            segment = location.segment;
            header = location.offset + path.getLast().containerOffset();
            long lengthOffset = header + DynamicHeader.LENGTH_OFFSET;
            while (true) {
                index = Atomics.getVolatile(segment, lengthOffset);
                if (index >= node.capacity()) {
                    throw new DynamicListFullException(dynamic.path(), node.capacity());
                }
                ensureChunk(node, segment, header, index / node.chunkSize(), undo);
                if (Atomics.compareAndSet(segment, lengthOffset, index, index + 1)) {
                    break;
                }
            }
        } catch (RuntimeException | Error failure) {
            advanceEpoch();
            undo.rollBack();
            advanceEpoch();
            throw failure;
        }
        activations.increment();
        long cell = PointerWord.cellIndex(chunkReference(node, segment, header, index / node.chunkSize()));
        CellManager manager = cells[node.id()];
        location.set(manager.segment(cell), manager.offset(cell) + (index % node.chunkSize()) * node.cellBytes());
        location.element = index;
        return index;
    }

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

    /** The cell of chunk {@code chunk}, allocating it (and directory blocks) under the header lock. */
    private long ensureChunk(SNodePlan node, MemorySegment segment, long header, long chunk, Undo undo) {
        long reference = chunkReference(node, segment, header, chunk);
        if (reference != PointerWord.NULL) {
            return PointerWord.cellIndex(reference);
        }
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
            Thread.onSpinWait(); // held for at most three allocations by another appender
        }
        try {
            CellManager chunks = cells[node.id()];
            if (chunk < DynamicHeader.INLINE_CHUNKS) {
                return referenceSlot(segment, header + DynamicHeader.inlineChunkOffset((int) chunk), chunks, undo);
            }
            long extra = chunk - DynamicHeader.INLINE_CHUNKS;
            int leafFanout = node.directoryLeafFanout();
            CellManager blocks = directories[node.id()];
            long top = referenceSlot(segment, header + DynamicHeader.DIRECTORY_OFFSET, blocks, undo);
            long leaf = referenceSlot(blocks.segment(top), blocks.offset(top) + (extra / leafFanout) * Long.BYTES,
                    blocks, undo);
            return referenceSlot(blocks.segment(leaf), blocks.offset(leaf) + (extra % leafFanout) * Long.BYTES,
                    chunks, undo);
        } finally {
            Atomics.setRelease(segment, lock, 0);
        }
    }

    /** The cell a reference slot names, allocating and publishing one when the slot is empty. */
    private static long referenceSlot(MemorySegment segment, long offset, CellManager manager, Undo undo) {
        long reference = Atomics.getAcquire(segment, offset);
        if (reference != PointerWord.NULL) {
            return PointerWord.cellIndex(reference);
        }
        long cell = manager.allocate();
        Atomics.setRelease(segment, offset, PointerWord.encode(cell));
        undo.reference(segment, offset, manager, cell);
        return cell;
    }

    /** Recycles every chunk and directory block of a list and empties its header. */
    private void clearList(SNodePlan node, MemorySegment segment, long header) {
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
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
            Atomics.setRelease(segment, lock, 0);
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
     * whole list is emptied. Inactive cells are left alone.
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
                return releasePointer(node, segment, container + index * PointerWord.BYTES);
            }
            case DYNAMIC -> {
                boolean active = Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET) > 0
                        || Atomics.getAcquire(segment, container + DynamicHeader.inlineChunkOffset(0)) != 0;
                clearList(node, segment, container);
                return active;
            }
            default -> throw new AssertionError(node.kind());
        }
    }

    /** Locks an active pointer word, releases the child's subtree, recycles it, nulls the word. */
    private boolean releasePointer(SNodePlan node, MemorySegment segment, long wordOffset) {
        long word;
        while (true) {
            word = Atomics.getAcquire(segment, wordOffset);
            if (word == PointerWord.NULL) {
                return false;
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
            Atomics.setRelease(segment, wordOffset, PointerWord.NULL);
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
            releaseContainer(child, segment, cell + node.childContainerOffset(n));
        }
    }

    /** Releases everything below the cells of one container (cells themselves stay in place). */
    private void releaseContainer(SNodePlan node, MemorySegment segment, long container) {
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
                    releasePointer(node, segment, container + index * PointerWord.BYTES);
                }
            }
            case DYNAMIC -> clearList(node, segment, container);
            case ROOT -> throw new AssertionError("root has no container");
        }
    }

    /** Deactivates every cell of {@code target}. */
    public void deactivateAll(SNode target) {
        requireSparse(target);
        advanceEpoch();
        SNodePlan node = plan.node(target);
        SNode parent = target.parent();
        int childIndex = parent.children().indexOf(target);
        long containerOffset = plan.node(parent).childContainerOffset(childIndex);
        try {
            forEachCell(parent, (segment, cell) -> releaseContainer(node, segment, cell + containerOffset));
        } finally {
            countDeactivation();
            advanceEpoch();
        }
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

    /** Calls {@code visitor} for every active cell of {@code target} (the root has one cell). */
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
