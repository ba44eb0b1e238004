package io.snode.runtime.internal.node;

import io.snode.runtime.HashHeader;
import io.snode.runtime.HashTableFullException;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Location;
import io.snode.runtime.internal.Reservation;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A hash node: its container is a {@link HashHeader} naming an open-addressing table from cell
 * index to child cell (a {@link PointerWord}); child cells come from this node's node manager,
 * as a pointer node's do, and the table grows with the active cells, so the index space costs
 * nothing until it is used.
 *
 * <p><b>Reads</b> take no lock: they load the header's table id (acquire) and probe that
 * table. A published table only ever gains keys; the entries a reader can reach are complete
 * (a word is stored, with release, after the child's subtree was built), and a table that a
 * resize replaced stays readable, unchanged, until the next collection frees it
 * ({@link HashTables#retire}), because readers on other threads may still hold its id. So a
 * reader sees the old table or the new one, never a half-copied one.
 *
 * <p><b>Shared state and failure.</b> Every change to a header's table (inserting an entry,
 * deactivating one, a resize, releasing the container) happens under the header's lock word,
 * and nothing under the lock can fail for lack of memory: the child cell and any new table
 * (the first one, or a larger one when an insertion would pass the load bound) were reserved in
 * step 2 of the protocol ({@link #reserve}); when the table under the lock needs more than was
 * reserved (other threads filled it since the plan), the step hands everything back and plans
 * again ({@link #REPLAN}), having published nothing. An insertion builds the rest of the path
 * inside its reserved cell, then stores the key, then the word (release), so a reader sees the
 * cell inactive or with its subtree complete. A resize copies the live entries into the
 * reserved table, publishes its id with one release store, and retires the old table; the
 * tombstones (keys whose word went back to {@link PointerWord#NULL}) are dropped. A full index
 * of 2^21 active cells in one container refuses in step 1 ({@link HashTableFullException}),
 * before anything is reserved. A deactivation holds the lock while it releases the child's
 * subtree (the locks of hash nodes below are taken top-down, never the other way). Releasing
 * the enclosing cell leaves the lock {@link HashHeader#LOCK_RETIRED}: an activation that meets
 * it plans again from the root. If a release below throws, the lock is still given back in a
 * finally: the child may keep cells that are never recycled, but nothing stays locked.
 *
 * <p>Built inside a fresh reserved cell (below a pointer or hash word not published yet), the
 * header names a fresh reserved table holding the one entry, all recorded with
 * {@code Reservation.built}: a thread that loses the race zeroes them, leaving the table empty
 * with its capacity, still its own.
 */
public final class HashUnit extends NodeUnit {
    private static final long LOCK_FREE = 0;
    private static final long LOCK_HELD = 1;

    private final CheckedCells cells;
    private final HashTables tables;

    HashUnit(SNodePlan node, NodeUnits units, CheckedCells cells, HashTables tables) {
        super(node, units);
        this.cells = cells;
        this.tables = tables;
    }

    /** The allocator of this node's child cells. */
    public CheckedCells cells() {
        return cells;
    }

    /** The registry of this node's tables. */
    public HashTables tables() {
        return tables;
    }

    // ------------------------------------------------------------------ reading

    /**
     * The word of cell {@code index} in the hash container at {@code header} of {@code segment}:
     * {@link PointerWord#NULL} when the cell has no entry. Takes no lock (see the class comment).
     */
    public static long word(HashTables tables, MemorySegment segment, long header, long index) {
        long tableWord = Atomics.getAcquire(segment, header + HashHeader.TABLE_OFFSET);
        if (tableWord == 0) {
            return PointerWord.NULL;
        }
        MemorySegment table = tables.segment(HashHeader.tableId(tableWord));
        int bits = HashHeader.capacityBits(tableWord);
        int mask = (1 << bits) - 1;
        long key = index + 1;
        int slot = HashHeader.homeByBits(index, bits);
        for (int probes = 0; probes <= mask; probes++) {
            // A key never changes once set, so a plain load sees 0 or the key; the word is read
            // with acquire, so what it leads to was written before it was published.
            long found = table.get(ValueLayout.JAVA_LONG, HashHeader.keyOffset(slot));
            if (found == key) {
                return Atomics.getAcquire(table, HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            }
            if (found == 0) {
                return PointerWord.NULL;
            }
            slot = (slot + 1) & mask;
        }
        return PointerWord.NULL; // a full table: the load bound keeps this from happening
    }

    /**
     * The slot holding cell {@code index}'s key, or {@code -(empty slot) - 1} where a probe for it
     * ended: the slot an insertion would take.
     */
    static int slot(MemorySegment table, long index) {
        int capacity = capacity(table);
        int mask = capacity - 1;
        long key = index + 1;
        int slot = HashHeader.home(index, capacity);
        for (int probes = 0; probes < capacity; probes++) {
            long found = Atomics.getAcquire(table, HashHeader.keyOffset(slot));
            if (found == key) {
                return slot;
            }
            if (found == 0) {
                return -slot - 1;
            }
            slot = (slot + 1) & mask;
        }
        throw new IllegalStateException("hash table of capacity " + capacity + " has no empty slot");
    }

    /** The id of the table the header at {@code container} names (acquire), 0 for none. */
    private static long tableId(MemorySegment segment, long container) {
        long word = Atomics.getAcquire(segment, container + HashHeader.TABLE_OFFSET);
        return word == 0 ? 0 : HashHeader.tableId(word);
    }

    private static int capacity(MemorySegment table) {
        return (int) table.get(ValueLayout.JAVA_LONG, HashHeader.CAPACITY_OFFSET);
    }

    private static long count(MemorySegment table, int offset) {
        return table.get(ValueLayout.JAVA_LONG, offset);
    }

    @Override
    public boolean lookup(Location at, long container, long index) {
        long word = word(tables, at.segment, container, index);
        if (!PointerWord.isActive(word)) {
            return false;
        }
        enter(at, word);
        return true;
    }

    private void enter(Location at, long word) {
        long cell = PointerWord.cellIndex(word);
        at.set(cells.segment(cell), cells.offset(cell));
    }

    @Override
    public boolean isActive(MemorySegment segment, long container, long index) {
        return PointerWord.isActive(word(tables, segment, container, index));
    }

    @Override
    public int activateInline(Location at, long container, long index, boolean mayStore) {
        return lookup(at, container, index) ? INLINE_UNCHANGED : INLINE_REFUSED;
    }

    // ------------------------------------------------------------------ the activation protocol

    /**
     * Step 1: active, or inactive with the table it needs recorded: the first table, or a larger
     * one when a new key would pass the load bound.
     *
     * @throws HashTableFullException when the container holds as many cells as the largest table may
     */
    @Override
    public int plan(Location at, long container, long index, ActivationRun activation) {
        long id = tableId(at.segment, container);
        if (id == 0) {
            activation.reservation().needTable(HashHeader.MIN_CAPACITY);
            return PLAN_INACTIVE;
        }
        MemorySegment table = tables.segment(id);
        int slot = slot(table, index);
        if (slot >= 0) {
            long word = Atomics.getAcquire(table, HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            if (PointerWord.isActive(word)) {
                enter(at, word);
                return PLAN_ACTIVE;
            }
        }
        activation.reservation().needTable(slot >= 0 ? 0 : growth(table));
        return PLAN_INACTIVE;
    }

    /** The capacity a new key needs in {@code table}: 0 when it fits, else the resize's. */
    private int growth(MemorySegment table) {
        int capacity = capacity(table);
        if (count(table, HashHeader.USED_OFFSET) + 1 <= HashHeader.maxUsed(capacity)) {
            return 0;
        }
        long live = count(table, HashHeader.LIVE_OFFSET) + 1;
        int wanted = HashHeader.capacityFor(live);
        if (wanted > HashHeader.MAX_CAPACITY) {
            throw new HashTableFullException(node.snode().path(), HashHeader.maxUsed(HashHeader.MAX_CAPACITY));
        }
        return wanted;
    }

    @Override
    public CheckedCells reservedCells() {
        return cells;
    }

    /**
     * Step 2 beyond the child cell: the planned step takes the table its plan asked for (if any);
     * a step below it is built fresh and takes a table of {@link HashHeader#MIN_CAPACITY}. A table
     * reserved before that is large enough is kept.
     */
    @Override
    public void reserve(int step, ActivationRun activation) {
        Reservation reservation = activation.reservation();
        int need = step == activation.first() ? reservation.tableNeed() : HashHeader.MIN_CAPACITY;
        if (need == 0) {
            return;
        }
        long held = reservation.table(step);
        if (held != 0 && capacity(tables.segment(held)) >= need) {
            return;
        }
        reservation.putTable(step, tables, activation.reserveTable(node.snode(), tables, need));
    }

    @Override
    public long publish(Location at, long container, long index, int step, ActivationRun activation) {
        if (step < activation.first()) {
            if (!lookup(at, container, index)) {
                return REPLAN; // deactivated since the plan
            }
            return GO_ON;
        }
        MemorySegment segment = at.segment;
        long lock = container + HashHeader.LOCK_OFFSET;
        if (!lock(segment, lock)) {
            return REPLAN; // the enclosing cell was released under us
        }
        try {
            return insert(at, segment, container, index, step, activation);
        } finally {
            Atomics.setRelease(segment, lock, LOCK_FREE);
        }
    }

    /** Under the header's lock: enters the cell if it is active, else inserts it (growing the table first). */
    private long insert(Location at, MemorySegment segment, long container, long index, int step,
                        ActivationRun activation) {
        Reservation reservation = activation.reservation();
        long id = tableId(segment, container);
        MemorySegment table = id == 0 ? null : tables.segment(id);
        int slot = table == null ? -1 : slot(table, index);
        if (slot >= 0) {
            long word = Atomics.getAcquire(table, HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            if (PointerWord.isActive(word)) {
                enter(at, word);
                return GO_ON; // another thread activated it first
            }
        }
        int need = table == null ? HashHeader.MIN_CAPACITY : slot >= 0 ? 0 : growth(table);
        if (need > 0) {
            long fresh = reservation.table(step);
            if (fresh == 0 || capacity(tables.segment(fresh)) < need) {
                return REPLAN; // the table filled since the plan: reserve a larger one first
            }
            MemorySegment grown = tables.segment(fresh);
            if (table != null) {
                copyLive(table, grown);
            }
            Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET,
                    HashHeader.tableWord(fresh, capacity(grown)));
            reservation.usedTable(step);
            if (id != 0) {
                tables.retire(id);
            }
            reservation.changed = true;
            table = grown;
            slot = slot(table, index);
        }
        long mine = reservation.cell(step);
        long result = activation.buildBelow(step, cells.segment(mine), cells.offset(mine));
        long key = HashHeader.keyOffset(slot >= 0 ? slot : -slot - 1);
        if (slot < 0) {
            Atomics.setRelease(table, key, index + 1);
            table.set(ValueLayout.JAVA_LONG, HashHeader.USED_OFFSET, count(table, HashHeader.USED_OFFSET) + 1);
        }
        Atomics.setRelease(table, key + HashHeader.WORD_OFFSET, PointerWord.encode(mine));
        table.set(ValueLayout.JAVA_LONG, HashHeader.LIVE_OFFSET, count(table, HashHeader.LIVE_OFFSET) + 1);
        reservation.used(step);
        reservation.usedBuilt();
        reservation.changed = true;
        return result;
    }

    /** Copies the live entries of {@code from} into the empty table {@code to}, nobody else seeing {@code to} yet. */
    private static void copyLive(MemorySegment from, MemorySegment to) {
        int capacity = capacity(from);
        long live = 0;
        for (int slot = 0; slot < capacity; slot++) {
            long key = from.get(ValueLayout.JAVA_LONG, HashHeader.keyOffset(slot));
            long word = from.get(ValueLayout.JAVA_LONG, HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            if (key != 0 && PointerWord.isActive(word)) {
                long at = HashHeader.keyOffset(-slot(to, key - 1) - 1);
                to.set(ValueLayout.JAVA_LONG, at, key);
                to.set(ValueLayout.JAVA_LONG, at + HashHeader.WORD_OFFSET, word);
                live++;
            }
        }
        to.set(ValueLayout.JAVA_LONG, HashHeader.USED_OFFSET, live);
        to.set(ValueLayout.JAVA_LONG, HashHeader.LIVE_OFFSET, live);
    }

    /** In a fresh reserved cell: the header names the step's reserved table, which holds the one entry. */
    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        Reservation reservation = activation.reservation();
        long id = reservation.table(step);
        long child = reservation.cell(step);
        MemorySegment table = tables.segment(id);
        long key = HashHeader.keyOffset(HashHeader.home(index, capacity(table)));
        reservation.buildsWith(step);
        reservation.buildsWithTable(step);
        reservation.built(table, key, index + 1);
        reservation.built(table, key + HashHeader.WORD_OFFSET, PointerWord.encode(child));
        reservation.built(table, HashHeader.USED_OFFSET, 1);
        reservation.built(table, HashHeader.LIVE_OFFSET, 1);
        reservation.built(at.segment, container + HashHeader.TABLE_OFFSET,
                HashHeader.tableWord(id, capacity(table)));
        at.set(cells.segment(child), cells.offset(child));
        return GO_ON;
    }

    // ------------------------------------------------------------------ deactivation

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        long lock = container + HashHeader.LOCK_OFFSET;
        if (!lock(segment, lock)) {
            return false; // released: nothing is active in it
        }
        try {
            long id = tableId(segment, container);
            if (id == 0) {
                return false;
            }
            MemorySegment table = tables.segment(id);
            int slot = slot(table, index);
            return slot >= 0 && releaseEntry(table, slot);
        } finally {
            Atomics.setRelease(segment, lock, LOCK_FREE);
        }
    }

    /** Under the lock: releases the child of an active entry and leaves a tombstone. */
    private boolean releaseEntry(MemorySegment table, int slot) {
        long wordOffset = HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET;
        long word = Atomics.getAcquire(table, wordOffset);
        if (!PointerWord.isActive(word)) {
            return false;
        }
        long cell = PointerWord.cellIndex(word);
        try {
            units.releaseBelow(node, cells.segment(cell), cells.offset(cell));
            cells.recycle(cell);
        } finally {
            Atomics.setRelease(table, wordOffset, PointerWord.NULL);
            table.set(ValueLayout.JAVA_LONG, HashHeader.LIVE_OFFSET, count(table, HashHeader.LIVE_OFFSET) - 1);
        }
        return true;
    }

    /** Releases every entry, retires the table, and leaves the header empty (and retired with {@code retire}). */
    @Override
    public void release(MemorySegment segment, long container, boolean retire) {
        long lock = container + HashHeader.LOCK_OFFSET;
        if (!lock(segment, lock)) {
            return; // released before
        }
        try {
            long id = tableId(segment, container);
            if (id != 0) {
                MemorySegment table = tables.segment(id);
                try {
                    for (int slot = 0; slot < capacity(table); slot++) {
                        releaseEntry(table, slot);
                    }
                } finally {
                    Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET, 0);
                    tables.retire(id);
                }
            }
        } finally {
            Atomics.setRelease(segment, lock, retire ? HashHeader.LOCK_RETIRED : LOCK_FREE);
        }
    }

    /** Takes the header's lock; false (not taken) when the header is retired. */
    private static boolean lock(MemorySegment segment, long lock) {
        while (!Atomics.compareAndSet(segment, lock, LOCK_FREE, LOCK_HELD)) {
            if (Atomics.getAcquire(segment, lock) == HashHeader.LOCK_RETIRED) {
                return false;
            }
            Thread.onSpinWait(); // held for one insertion, resize or deactivation
        }
        return true;
    }

    // ------------------------------------------------------------------ iteration

    /**
     * The live entries of the table the header names now, in table order (not cell-index order:
     * the same order for the same history of the container); each word is read with acquire.
     */
    @Override
    public long forEachActive(MemorySegment segment, long container, ActiveCellVisitor visitor, int level) {
        long id = tableId(segment, container);
        if (id == 0) {
            return 0;
        }
        MemorySegment table = tables.segment(id);
        int capacity = capacity(table);
        long visited = 0;
        for (int slot = 0; slot < capacity; slot++) {
            long key = Atomics.getAcquire(table, HashHeader.keyOffset(slot));
            if (key == 0) {
                continue;
            }
            long word = Atomics.getAcquire(table, HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            if (PointerWord.isActive(word)) {
                long cell = PointerWord.cellIndex(word);
                visitor.visit(level, key - 1, cells.segment(cell), cells.offset(cell), cell);
                visited++;
            }
        }
        return visited;
    }
}
