package io.snode.runtime.internal.node;

import io.snode.runtime.DynamicHeader;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Location;
import io.snode.runtime.internal.Reservation;
import java.lang.foreign.MemorySegment;

/**
 * A dynamic node: its container is one list header ({@link DynamicHeader}); element
 * {@code i} lives in chunk {@code i / chunkSize} (from the node's element manager), at
 * {@link #elementOffset}, found through the header's inline references or its two-level
 * directory (blocks from the directory manager).
 *
 * <p><b>Shared state and failure.</b> Chunk and directory references are published under the
 * header lock, from blocks reserved before the lock was taken, so nothing is allocated while it
 * is held and a call that fails for lack of memory has published nothing. An index is taken
 * with a compare-and-set on the length after its chunk exists, so a reader that sees an index
 * below the length finds its chunk (or, after a write past the length, a missing chunk that
 * reads zero). Generated appends take that last step alone when the chunk exists
 * ({@link #tryAppend}): it either takes an index or changes nothing, and a missing chunk or a
 * full list sends them on before anything is stored. Where the chunk is missing, generated
 * appends publish it themselves ({@link #publishChunk}, from cells allocated before the header
 * lock is taken, so a refusal publishes nothing); a retired list or a full one goes to the
 * protocol. An append that finds the list full throws with nothing of its own published in
 * the list; chunks it published before (while others took the indices) hold their elements.
 * Clearing the list takes the lock, recycles every chunk and block and empties the header;
 * when the enclosing cell is being released it leaves the lock {@link DynamicHeader#LOCK_RETIRED}
 * so that a racing append plans again instead of publishing where nothing would release; a
 * list of a bitmasked cell that is active again is reopened by the first append that meets it
 * ({@link NodeUnit#reopen}, under the lock, after a walk from the root confirms that).
 */
public final class DynamicUnit extends NodeUnit {
    private static final int CHUNK_PRESENT = 0;
    private static final int CHUNK_NOT_RESERVED = 1;
    private static final int RETIRED_LIST = 2;
    /** {@link #publishChunk}: the list is retired; nothing published. */
    public static final int LIST_RETIRED = -1;
    /** {@link #publishChunk}: a missing reference has no cell from the caller; nothing published. */
    public static final int CELLS_MISSING = -2;

    private final CheckedCells chunks;
    private final CheckedCells blocks;

    DynamicUnit(SNodePlan node, NodeUnits units, CheckedCells chunks, CheckedCells blocks) {
        super(node, units);
        this.chunks = chunks;
        this.blocks = blocks;
    }

    /** The allocator of element chunks. */
    public CheckedCells chunks() {
        return chunks;
    }

    /** The allocator of directory blocks, or null when the inline references cover the capacity. */
    public CheckedCells blocks() {
        return blocks;
    }

    /** Byte offset of element {@code index} inside its chunk. */
    public long elementOffset(long index) {
        return (index % node.chunkSize()) * node.cellBytes();
    }

    /** The length of the list whose header is at (segment, header). */
    public static long length(MemorySegment segment, long header) {
        return Atomics.getAcquire(segment, header + DynamicHeader.LENGTH_OFFSET);
    }

    /**
     * The reference word of chunk {@code chunk} of the list at (segment, header), or
     * {@link PointerWord#NULL} when the chunk does not exist; never locks.
     */
    public static long chunkReference(MemorySegment segment, long header, long chunk, CheckedCells blocks,
                                      int leafFanout) {
        if (chunk < DynamicHeader.INLINE_CHUNKS) {
            return Atomics.getAcquire(segment, header + DynamicHeader.inlineChunkOffset((int) chunk));
        }
        long extra = chunk - DynamicHeader.INLINE_CHUNKS;
        long top = Atomics.getAcquire(segment, header + DynamicHeader.DIRECTORY_OFFSET);
        if (top == PointerWord.NULL) {
            return PointerWord.NULL;
        }
        long topCell = PointerWord.cellIndex(top);
        long leaf = Atomics.getAcquire(blocks.segment(topCell), blocks.offset(topCell) + (extra / leafFanout) * Long.BYTES);
        if (leaf == PointerWord.NULL) {
            return PointerWord.NULL;
        }
        long leafCell = PointerWord.cellIndex(leaf);
        return Atomics.getAcquire(blocks.segment(leafCell), blocks.offset(leafCell) + (extra % leafFanout) * Long.BYTES);
    }

    /**
     * The append of generated code to an existing list whose next element's chunk exists: takes
     * the next index with a compare-and-set on the length, as {@link #publish} does once that
     * chunk exists, and returns it; {@code -1}, having changed nothing, when the protocol must
     * run instead (the chunk is missing, or the list is full: the protocol throws). Never locks
     * and allocates nothing; a lost compare-and-set reads the length again.
     */
    public static long tryAppend(MemorySegment segment, long header, int chunkSize, int capacity, CheckedCells blocks,
                                 int leafFanout) {
        return tryAppendRun(segment, header, chunkSize, capacity, blocks, leafFanout, 1);
    }

    /**
     * As {@link #tryAppend}, a run at once: takes indices {@code [e, e + k)} with one
     * compare-and-set of the length from {@code e} to {@code e + k}, where {@code e} is the length
     * read, whose chunk exists, and {@code k = }{@link #runLength runLength(e, max, ...)} (the run
     * stays inside that chunk and the capacity); returns {@code e}, or {@code -1}, having changed
     * nothing, when the chunk is missing or the list is full. A reader that sees the new length
     * finds the chunk of every index below it, as after {@code k} single appends; the elements'
     * values are stored after, as a single append stores its one.
     */
    public static long tryAppendRun(MemorySegment segment, long header, int chunkSize, int capacity, CheckedCells blocks,
                                    int leafFanout, long max) {
        long lengthOffset = header + DynamicHeader.LENGTH_OFFSET;
        while (true) {
            long element = Atomics.getVolatile(segment, lengthOffset);
            if (element >= capacity
                    || chunkReference(segment, header, element / chunkSize, blocks, leafFanout) == PointerWord.NULL) {
                return -1;
            }
            if (Atomics.compareAndSet(segment, lengthOffset, element, element + runLength(element, max, chunkSize,
                    capacity))) {
                return element;
            }
        }
    }

    /** Indices a run from {@code element} takes: at most {@code max}, inside element's chunk and the capacity. */
    public static long runLength(long element, long max, int chunkSize, int capacity) {
        return Math.min(max, Math.min(capacity - element, chunkSize - element % chunkSize));
    }

    private long chunkReference(MemorySegment segment, long header, long chunk) {
        return chunkReference(segment, header, chunk, blocks, node.directoryLeafFanout());
    }

    @Override
    public boolean lookup(Location at, long container, long index) {
        if (index >= length(at.segment, container)) {
            return false;
        }
        long reference = chunkReference(at.segment, container, index / node.chunkSize());
        if (reference == PointerWord.NULL) {
            return false; // inside the length, but never written: reads zero
        }
        long cell = PointerWord.cellIndex(reference);
        at.set(chunks.segment(cell), chunks.offset(cell) + elementOffset(index));
        return true;
    }

    @Override
    public boolean isActive(MemorySegment segment, long container, long index) {
        return index < length(segment, container);
    }

    @Override
    public int activateInline(Location at, long container, long index, boolean mayStore) {
        return INLINE_REFUSED; // a list step may need memory or find the list full
    }

    @Override
    public int plan(Location at, long container, long index, ActivationRun activation) {
        long element = index;
        if (activation.append()) {
            element = length(at.segment, container);
            if (element >= node.capacity()) {
                throw new DynamicListFullException(node.snode().path(), node.capacity());
            }
        }
        int missing = missingReferences(at.segment, container, element / node.chunkSize());
        return activation.reservation().needChunk(node, element, missing) ? PLAN_LIST_NEEDS : PLAN_COMPLETE;
    }

    /**
     * The list step of an existing list: makes sure the element's chunk exists (publishing
     * reserved blocks under the header lock; nothing is allocated while it is held), then takes
     * the next index (append) or raises the length past the element (a write).
     */
    @Override
    public long publish(Location at, long container, long index, int step, ActivationRun activation) {
        MemorySegment segment = at.segment;
        Reservation reservation = activation.reservation();
        long lengthOffset = container + DynamicHeader.LENGTH_OFFSET;
        long element;
        long reference;
        while (true) {
            element = activation.append() ? Atomics.getVolatile(segment, lengthOffset) : index;
            if (element >= node.capacity()) {
                // Only appends get here. What this call published before (mask bits on the path, a
                // chunk that other appends have filled) is what the appends that filled the list needed.
                throw new DynamicListFullException(node.snode().path(), node.capacity());
            }
            long chunk = element / node.chunkSize();
            int chunkState = ensureChunk(segment, container, chunk, reservation);
            if (chunkState == RETIRED_LIST) {
                // The list of a bitmasked cell active again: reopened with its length emptied (a late
                // append may have raised it after the release), under the lock.
                if (reopen(segment, container + DynamicHeader.LOCK_OFFSET, DynamicHeader.LOCK_RETIRED, 1, 0,
                        container + DynamicHeader.LENGTH_OFFSET, step, container, activation)) {
                    continue;
                }
                return REPLAN;
            }
            if (chunkState == CHUNK_NOT_RESERVED) {
                if (!reservation.changed) {
                    return REPLAN;
                }
                // This call has set a mask bit above and the list moved on to a chunk it did not
                // plan for (other appends took the planned indices): reserve it now.
                reservation.needChunk(node, element, missingReferences(segment, container, chunk));
                activation.reserveList(this);
                continue;
            }
            // Read before the index is taken: a deactivation of the list may empty the header at
            // any moment (the caller's race), and the element then lands in the recycled chunk,
            // whose memory is not reused before collection.
            reference = chunkReference(segment, container, chunk);
            if (reference == PointerWord.NULL) {
                continue; // the list was emptied since ensureChunk
            }
            if (!activation.append()) {
                raiseLength(segment, lengthOffset, element, reservation);
                break;
            }
            if (Atomics.compareAndSet(segment, lengthOffset, element, element + 1)) {
                reservation.changed = true;
                break;
            }
        }
        long cell = PointerWord.cellIndex(reference);
        at.set(chunks.segment(cell), chunks.offset(cell) + elementOffset(element));
        return element;
    }

    /** A write at {@code element}: raises the length past it unless it is there already. */
    private static void raiseLength(MemorySegment segment, long lengthOffset, long element, Reservation reservation) {
        while (true) {
            long length = Atomics.getVolatile(segment, lengthOffset);
            if (length > element) {
                return;
            }
            if (Atomics.compareAndSet(segment, lengthOffset, length, element + 1)) {
                reservation.changed = true;
                return;
            }
        }
    }

    /**
     * Generated code's publication of chunk {@code chunk} of the list at (segment, header), with
     * the directory blocks on its way, from cells its caller allocated before calling
     * ({@code top} and {@code leaf} directory blocks, {@code cell} a chunk; -1 where it has none;
     * see {@code NodeTree.appendToNewChunk}). Under the header lock, as {@link #ensureChunk}
     * publishes a reservation's cells: when every reference still missing on the way has a cell
     * here, publishes those (the others were published meanwhile) and returns their
     * {@link Reservation}{@code .NEED_*} bits (0: none was missing any more), for the caller to
     * hand the rest back; publishes nothing and returns {@link #CELLS_MISSING} when one has none
     * (a clear emptied the list since the caller looked), or {@link #LIST_RETIRED} when the list is
     * retired (the cell holding it is being released). Nothing is allocated and nothing can fail
     * while the lock is held.
     */
    public int publishChunk(MemorySegment segment, long header, long chunk, long top, long leaf, long cell) {
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
            if (Atomics.getAcquire(segment, lock) == DynamicHeader.LOCK_RETIRED) {
                return LIST_RETIRED;
            }
            Thread.onSpinWait(); // held for a few stores by another appender, never for an allocation
        }
        try {
            int missing = missingReferences(segment, header, chunk);
            if (((missing & Reservation.NEED_TOP) != 0 && top < 0) || ((missing & Reservation.NEED_LEAF) != 0 && leaf < 0)
                    || ((missing & Reservation.NEED_CHUNK) != 0 && cell < 0)) {
                return CELLS_MISSING;
            }
            if (chunk < DynamicHeader.INLINE_CHUNKS) {
                if (missing != 0) {
                    Atomics.setRelease(segment, header + DynamicHeader.inlineChunkOffset((int) chunk),
                            PointerWord.encode(cell));
                }
                return missing;
            }
            long extra = chunk - DynamicHeader.INLINE_CHUNKS;
            int leafFanout = node.directoryLeafFanout();
            long topSlotOffset = header + DynamicHeader.DIRECTORY_OFFSET;
            if ((missing & Reservation.NEED_TOP) != 0) {
                Atomics.setRelease(segment, topSlotOffset, PointerWord.encode(top));
            }
            long topCell = PointerWord.cellIndex(Atomics.getAcquire(segment, topSlotOffset));
            long leafSlotOffset = blocks.offset(topCell) + (extra / leafFanout) * Long.BYTES;
            if ((missing & Reservation.NEED_LEAF) != 0) {
                Atomics.setRelease(blocks.segment(topCell), leafSlotOffset, PointerWord.encode(leaf));
            }
            long leafCell = PointerWord.cellIndex(Atomics.getAcquire(blocks.segment(topCell), leafSlotOffset));
            if ((missing & Reservation.NEED_CHUNK) != 0) {
                Atomics.setRelease(blocks.segment(leafCell), blocks.offset(leafCell) + (extra % leafFanout) * Long.BYTES,
                        PointerWord.encode(cell));
            }
            return missing;
        } finally {
            Atomics.setRelease(segment, lock, 0);
        }
    }

    /** Which of the references on the way to chunk {@code chunk} are missing (Reservation.NEED_* bits); never locks. */
    public int missingReferences(MemorySegment segment, long header, long chunk) {
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
    private int ensureChunk(MemorySegment segment, long header, long chunk, Reservation reservation) {
        if (missingReferences(segment, header, chunk) == 0) {
            return CHUNK_PRESENT;
        }
        int published = publishChunk(segment, header, chunk, reservation.cellOrNone(reservation.topSlot()),
                reservation.cellOrNone(reservation.leafSlot()), reservation.cellOrNone(reservation.chunkSlot()));
        if (published == LIST_RETIRED) {
            return RETIRED_LIST; // the cell holding the list is being released under us
        }
        if (published == CELLS_MISSING) {
            return CHUNK_NOT_RESERVED;
        }
        if ((published & Reservation.NEED_TOP) != 0) {
            reservation.used(reservation.topSlot());
        }
        if ((published & Reservation.NEED_LEAF) != 0) {
            reservation.used(reservation.leafSlot());
        }
        if ((published & Reservation.NEED_CHUNK) != 0) {
            reservation.used(reservation.chunkSlot());
        }
        reservation.changed |= published != 0;
        return CHUNK_PRESENT;
    }

    /** A fresh list inside reserved cells: the element's chunk reference (and directory), and the length. */
    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        Reservation reservation = activation.reservation();
        MemorySegment segment = at.segment;
        long element = activation.append() ? 0 : index;
        long chunk = element / node.chunkSize();
        long chunkCell = reservation.cell(reservation.chunkSlot());
        reservation.buildsWith(reservation.chunkSlot());
        if (chunk < DynamicHeader.INLINE_CHUNKS) {
            reservation.built(segment, container + DynamicHeader.inlineChunkOffset((int) chunk),
                    PointerWord.encode(chunkCell));
        } else {
            long extra = chunk - DynamicHeader.INLINE_CHUNKS;
            int leafFanout = node.directoryLeafFanout();
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
        at.set(chunks.segment(chunkCell), chunks.offset(chunkCell) + elementOffset(element));
        return element;
    }

    /** An empty list at rest ({@link #containerAtRest}): its deactivation would change nothing. */
    @Override
    public boolean inactiveAtRest(MemorySegment segment, long container, long index) {
        return containerAtRest(segment, container);
    }

    /**
     * The lock retired (released before: {@link #clear} returns at once), or free with the
     * header empty: length zero, no chunk reference, no directory. A held lock may be an append
     * publishing a chunk, and a list of length zero may hold a chunk (published for an index not
     * taken yet), which a clear recycles.
     */
    @Override
    public boolean containerAtRest(MemorySegment segment, long header) {
        long lock = Atomics.getAcquire(segment, header + DynamicHeader.LOCK_OFFSET);
        if (lock == DynamicHeader.LOCK_RETIRED) {
            return true;
        }
        if (lock != 0 || Atomics.getAcquire(segment, header + DynamicHeader.LENGTH_OFFSET) != 0
                || Atomics.getAcquire(segment, header + DynamicHeader.DIRECTORY_OFFSET) != PointerWord.NULL) {
            return false;
        }
        for (int n = 0; n < DynamicHeader.INLINE_CHUNKS; n++) {
            if (Atomics.getAcquire(segment, header + DynamicHeader.inlineChunkOffset(n)) != PointerWord.NULL) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        boolean active = length(segment, container) > 0
                || Atomics.getAcquire(segment, container + DynamicHeader.inlineChunkOffset(0)) != 0;
        clear(segment, container, false);
        return active;
    }

    @Override
    public void release(MemorySegment segment, long container, boolean retire) {
        clear(segment, container, retire);
    }

    /**
     * Recycles every chunk and directory block of a list and empties its header. With
     * {@code retire} (the cell that holds the header is being released) the lock is left
     * {@link DynamicHeader#LOCK_RETIRED}, so that an append racing with the release cannot
     * publish a chunk there, where nothing would ever release it.
     */
    private void clear(MemorySegment segment, long header, boolean retire) {
        long lock = header + DynamicHeader.LOCK_OFFSET;
        while (!Atomics.compareAndSet(segment, lock, 0, 1)) {
            if (Atomics.getAcquire(segment, lock) == DynamicHeader.LOCK_RETIRED) {
                return; // released already
            }
            Thread.onSpinWait();
        }
        try {
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

    /** Visits, chunk by chunk, the indices below the length whose chunk exists. */
    @Override
    public long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level) {
        long length = length(segment, container);
        int chunkSize = node.chunkSize();
        long visited = 0;
        for (long first = 0; first < length; first += chunkSize) {
            long reference = chunkReference(segment, container, first / chunkSize);
            if (reference == PointerWord.NULL) {
                continue;
            }
            long chunk = PointerWord.cellIndex(reference);
            MemorySegment chunkSegment = chunks.segment(chunk);
            long base = chunks.offset(chunk);
            long end = Math.min(length, first + chunkSize);
            for (long index = first; index < end; index++) {
                visitor.visit(level, index, chunkSegment, base + elementOffset(index), chunk);
            }
            visited += end - first;
        }
        return visited;
    }

    /** The list's length: the iteration visits every index below it. */
    @Override
    public long scanCost(MemorySegment segment, long container) {
        return length(segment, container);
    }

    /** False: a list's elements are iterated, never looked up one by one by a box. */
    @Override
    public boolean looksUpByIndex() {
        return false;
    }
}
