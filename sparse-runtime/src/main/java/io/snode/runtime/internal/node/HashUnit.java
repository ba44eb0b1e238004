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
 * it plans again from the root, or reopens it where it lies in a bitmasked cell that is active
 * again ({@link NodeUnit#reopen}). While an entry's subtree goes, its word is busy, so that no walk
 * arrives there. If a release below throws, the lock is still given back in a
 * finally: the child may keep cells that are never recycled, but nothing stays locked. A
 * deactivation that leaves a large table at most a sixteenth live shrinks it before it gives the
 * lock back ({@link #shrink}): the one reservation made under the lock, and one whose refusal
 * (the memory cap, an allocator fault) changes nothing but leaving the table as it is; the
 * deactivation has happened either way. An {@link Error} from that reservation leaves the same
 * state and reaches the caller. A load's {@link #reserveEntries} (a table sized for the cells
 * it will insert) makes the other reservation under the lock: its refusal leaves the table as
 * it was and reaches the load (which fails as when an insertion is refused); it activates
 * nothing, and publishes the larger table as a resize does. A deactivation that finds no live entry
 * of its key ({@link #inactiveAtRest}) looks without the lock and changes nothing.
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
        MemorySegment table = tables.segment(tableWord);
        long base = tables.base(tableWord);
        int bits = HashHeader.capacityBits(tableWord);
        int mask = (1 << bits) - 1;
        long key = index + 1;
        int slot = HashHeader.homeByBits(index, bits);
        for (int probes = 0; probes <= mask; probes++) {
            // A key never changes once set, so a plain load sees 0 or the key; the word is read
            // with acquire, so what it leads to was written before it was published.
            long found = table.get(ValueLayout.JAVA_LONG, base + HashHeader.keyOffset(slot));
            if (found == key) {
                return Atomics.getAcquire(table, base + HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET);
            }
            if (found == 0) {
                return PointerWord.NULL;
            }
            slot = (slot + 1) & mask;
        }
        return PointerWord.NULL; // a full table: the load bound keeps this from happening
    }

    /**
     * The slot holding cell {@code index}'s key in the table at {@code base} of {@code table},
     * or {@code -(empty slot) - 1} where a probe for it ended: the slot an insertion would take.
     */
    static int slot(MemorySegment table, long base, long index) {
        int capacity = capacity(table, base);
        int mask = capacity - 1;
        long key = index + 1;
        int slot = HashHeader.home(index, capacity);
        for (int probes = 0; probes < capacity; probes++) {
            long found = Atomics.getAcquire(table, base + HashHeader.keyOffset(slot));
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

    /** The table word of the header at {@code container} (acquire): 0 for none. */
    private static long tableWord(MemorySegment segment, long container) {
        return Atomics.getAcquire(segment, container + HashHeader.TABLE_OFFSET);
    }

    private static int capacity(MemorySegment table, long base) {
        return (int) table.get(ValueLayout.JAVA_LONG, base + HashHeader.CAPACITY_OFFSET);
    }

    private static long count(MemorySegment table, long base, int offset) {
        return table.get(ValueLayout.JAVA_LONG, base + offset);
    }

    private static void setCount(MemorySegment table, long base, int offset, long value) {
        table.set(ValueLayout.JAVA_LONG, base + offset, value);
    }

    /** Byte offset of slot {@code slot}'s word in the table at {@code base}. */
    private static long wordAt(long base, int slot) {
        return base + HashHeader.keyOffset(slot) + HashHeader.WORD_OFFSET;
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
        long tableWord = tableWord(at.segment, container);
        if (tableWord == 0) {
            activation.reservation().needTable(HashHeader.MIN_CAPACITY);
            return PLAN_INACTIVE;
        }
        MemorySegment table = tables.segment(tableWord);
        long base = tables.base(tableWord);
        int slot = slot(table, base, index);
        if (slot >= 0) {
            long word = Atomics.getAcquire(table, wordAt(base, slot));
            if (PointerWord.isActive(word)) {
                enter(at, word);
                return PLAN_ACTIVE;
            }
        }
        activation.reservation().needTable(growth(table, base, slot < 0));
        return PLAN_INACTIVE;
    }

    /**
     * The capacity one more active cell needs in the table at {@code base}: 0 when it fits (a
     * tombstone's key, {@code newKey} false, takes no entry), else the resize's.
     *
     * @throws HashTableFullException when the container holds {@link HashHeader#MAX_LIVE} active cells
     */
    private int growth(MemorySegment table, long base, boolean newKey) {
        long live = count(table, base, HashHeader.LIVE_OFFSET) + 1;
        if (live > HashHeader.MAX_LIVE) {
            throw new HashTableFullException(node.snode().path(), HashHeader.MAX_LIVE);
        }
        if (!newKey || count(table, base, HashHeader.USED_OFFSET) + 1 <= HashHeader.maxUsed(capacity(table, base))) {
            return 0;
        }
        return HashHeader.capacityFor(live);
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
        if (held != 0 && 1 << HashHeader.capacityBits(held) >= need) {
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
        while (!lock(segment, lock)) {
            // A header of a bitmasked cell active again is reopened (its table went with the release).
            if (!reopen(segment, lock, HashHeader.LOCK_RETIRED, LOCK_HELD, LOCK_FREE, -1, step, container, activation)) {
                return REPLAN; // the enclosing cell was released under us
            }
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
        long tableWord = tableWord(segment, container);
        MemorySegment table = tableWord == 0 ? null : tables.segment(tableWord);
        long base = tableWord == 0 ? 0 : tables.base(tableWord);
        int slot = table == null ? -1 : slot(table, base, index);
        if (slot >= 0) {
            long word = Atomics.getAcquire(table, wordAt(base, slot));
            if (PointerWord.isActive(word)) {
                enter(at, word);
                return GO_ON; // another thread activated it first
            }
        }
        int need = table == null ? HashHeader.MIN_CAPACITY : growth(table, base, slot < 0);
        if (need > 0) {
            long fresh = reservation.table(step);
            if (fresh == 0 || 1 << HashHeader.capacityBits(fresh) < need) {
                return REPLAN; // the table filled since the plan: reserve a larger one first
            }
            MemorySegment grown = tables.segment(fresh);
            long grownBase = tables.base(fresh);
            long live = table == null ? 0 : copyLive(table, base, grown, grownBase);
            Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET, fresh);
            reservation.usedTable(step);
            tables.published(fresh, live);
            if (tableWord != 0) {
                tables.retire(tableWord, live);
            }
            reservation.changed = true;
            table = grown;
            base = grownBase;
            slot = slot(table, base, index);
        }
        long mine = reservation.cell(step);
        long result = activation.buildBelow(step, cells.segment(mine), cells.offset(mine));
        long key = base + HashHeader.keyOffset(slot >= 0 ? slot : -slot - 1);
        if (slot < 0) {
            Atomics.setRelease(table, key, index + 1);
            setCount(table, base, HashHeader.USED_OFFSET, count(table, base, HashHeader.USED_OFFSET) + 1);
        }
        Atomics.setRelease(table, key + HashHeader.WORD_OFFSET, PointerWord.encode(mine));
        setCount(table, base, HashHeader.LIVE_OFFSET, count(table, base, HashHeader.LIVE_OFFSET) + 1);
        tables.liveEntries(1);
        reservation.used(step);
        reservation.usedBuilt();
        reservation.changed = true;
        return result;
    }

    /**
     * Gives the container at ({@code segment}, {@code container}) the table that {@code more}
     * insertions of new keys one by one would leave it with ({@link #capacityAfter}), at once:
     * for a load that knows how many cells of a container it will insert (a snapshot's records),
     * so that the table grows once instead of in stages whose outgrown tables wait for a
     * collection, and the load needs no more memory than the runtime it came from held after a
     * collection. Under the header's lock, as a growth: reserves the table (the memory cap or an
     * allocator fault refuse there, and then nothing has changed), copies the live entries into
     * it, publishes it with one release store of the header's table word and retires the old one
     * (readers that loaded the old word probe it, unchanged, until the next collection). It
     * activates nothing: a container without a table gets an empty one, which the insertions
     * then fill. A released container (its lock retired) is left alone.
     */
    public void reserveEntries(MemorySegment segment, long container, long more) {
        long lock = container + HashHeader.LOCK_OFFSET;
        if (!lock(segment, lock)) {
            return; // released: an insertion would reopen it with a table of its own
        }
        try {
            long tableWord = tableWord(segment, container);
            MemorySegment table = tableWord == 0 ? null : tables.segment(tableWord);
            long base = tableWord == 0 ? 0 : tables.base(tableWord);
            int capacity = table == null ? 0 : capacity(table, base);
            long used = table == null ? 0 : count(table, base, HashHeader.USED_OFFSET);
            long live = table == null ? 0 : count(table, base, HashHeader.LIVE_OFFSET);
            int wanted = capacityAfter(capacity, used, live, more);
            if (wanted <= capacity) {
                return;
            }
            long fresh = units.reserveTable(node.snode(), tables, wanted);
            MemorySegment grown = tables.segment(fresh);
            long grownBase = tables.base(fresh);
            long copied = 0;
            if (table == null) { // an empty table: the insertions fill it, as a first one's would
                setCount(grown, grownBase, HashHeader.USED_OFFSET, 0);
                setCount(grown, grownBase, HashHeader.LIVE_OFFSET, 0);
            } else {
                copied = copyLive(table, base, grown, grownBase);
            }
            Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET, fresh);
            tables.published(fresh, copied);
            if (tableWord != 0) {
                tables.retire(tableWord, copied);
            }
        } finally {
            Atomics.setRelease(segment, lock, LOCK_FREE);
        }
    }

    /**
     * The capacity of the table that {@code more} insertions of new keys one by one leave a
     * container with, whose table has {@code capacity} entries (0: none yet), {@code used} of
     * them used (live and tombstones) and {@code live} live: the first insertion into no table
     * takes one of {@link HashHeader#MIN_CAPACITY}, and an insertion past
     * {@link HashHeader#maxUsed} grows it to {@link HashHeader#capacityFor} the live entries
     * (dropping the tombstones), as {@link #growth} does. Where even the largest table would not
     * hold them, the largest (the insertions past its bound are refused as they would be).
     */
    static int capacityAfter(int capacity, long used, long live, long more) {
        if (more <= 0) {
            return capacity;
        }
        if (capacity == 0) {
            capacity = HashHeader.MIN_CAPACITY;
            used = 0;
            live = 0;
        }
        while (true) {
            long room = HashHeader.maxUsed(capacity) - used;
            if (more <= room) {
                return capacity;
            }
            more -= Math.max(0, room);
            live += Math.max(0, room);
            int next = HashHeader.capacityFor(live + 1);
            if (next > HashHeader.MAX_CAPACITY || capacity == HashHeader.MAX_CAPACITY) {
                return HashHeader.MAX_CAPACITY;
            }
            capacity = next;
            used = live;
        }
    }

    /**
     * Copies the live entries of one table into the empty table {@code to}, which nobody else sees
     * yet; returns how many.
     */
    private static long copyLive(MemorySegment from, long fromBase, MemorySegment to, long toBase) {
        int capacity = capacity(from, fromBase);
        long live = 0;
        for (int slot = 0; slot < capacity; slot++) {
            long key = from.get(ValueLayout.JAVA_LONG, fromBase + HashHeader.keyOffset(slot));
            long word = from.get(ValueLayout.JAVA_LONG, wordAt(fromBase, slot));
            if (key != 0 && PointerWord.isActive(word)) {
                long at = toBase + HashHeader.keyOffset(-slot(to, toBase, key - 1) - 1);
                to.set(ValueLayout.JAVA_LONG, at, key);
                to.set(ValueLayout.JAVA_LONG, at + HashHeader.WORD_OFFSET, word);
                live++;
            }
        }
        setCount(to, toBase, HashHeader.USED_OFFSET, live);
        setCount(to, toBase, HashHeader.LIVE_OFFSET, live);
        return live;
    }

    /** In a fresh reserved cell: the header names the step's reserved table, which holds the one entry. */
    @Override
    public long build(Location at, long container, long index, int step, ActivationRun activation) {
        Reservation reservation = activation.reservation();
        long tableWord = reservation.table(step);
        long child = reservation.cell(step);
        MemorySegment table = tables.segment(tableWord);
        long base = tables.base(tableWord);
        long key = base + HashHeader.keyOffset(HashHeader.homeByBits(index, HashHeader.capacityBits(tableWord)));
        reservation.buildsWith(step);
        reservation.buildsWithTable(step);
        reservation.built(table, key, index + 1);
        reservation.built(table, key + HashHeader.WORD_OFFSET, PointerWord.encode(child));
        reservation.built(table, base + HashHeader.USED_OFFSET, 1);
        reservation.built(table, base + HashHeader.LIVE_OFFSET, 1);
        reservation.built(at.segment, container + HashHeader.TABLE_OFFSET, tableWord);
        at.set(cells.segment(child), cells.offset(child));
        return GO_ON;
    }

    // ------------------------------------------------------------------ deactivation

    /**
     * No table, no entry of the key in it, or an entry whose word is null (a tombstone: a cell
     * deactivated before): {@link #deactivate} would find nothing to release and return false.
     * Not a busy word: another deactivation holds the entry while it releases the subtree
     * ({@link #releaseEntry} stores null only once the subtree is gone), and a deactivation
     * waits for it by taking the lock.
     */
    @Override
    public boolean inactiveAtRest(MemorySegment segment, long container, long index) {
        long tableWord = tableWord(segment, container);
        if (tableWord == 0) {
            return true;
        }
        MemorySegment table = tables.segment(tableWord);
        long base = tables.base(tableWord);
        int slot = slot(table, base, index);
        return slot < 0 || Atomics.getAcquire(table, wordAt(base, slot)) == PointerWord.NULL;
    }

    /**
     * The header retired (released before: {@link #release} returns at once), or its lock free
     * and no table: a table, even one of tombstones only, is retired by a release, and a held
     * lock may be an insertion publishing the first table.
     */
    @Override
    public boolean containerAtRest(MemorySegment segment, long container) {
        long lock = Atomics.getAcquire(segment, container + HashHeader.LOCK_OFFSET);
        return lock == HashHeader.LOCK_RETIRED || lock == LOCK_FREE && tableWord(segment, container) == 0;
    }

    @Override
    public boolean deactivate(MemorySegment segment, long container, long index) {
        long lock = container + HashHeader.LOCK_OFFSET;
        if (!lock(segment, lock)) {
            return false; // released: nothing is active in it
        }
        try {
            long tableWord = tableWord(segment, container);
            if (tableWord == 0) {
                return false;
            }
            MemorySegment table = tables.segment(tableWord);
            long base = tables.base(tableWord);
            int slot = slot(table, base, index);
            if (slot < 0 || !releaseEntry(table, base, slot)) {
                return false;
            }
            shrink(segment, container, tableWord, table, base);
            return true;
        } finally {
            Atomics.setRelease(segment, lock, LOCK_FREE);
        }
    }

    /**
     * A large table (more than {@link HashTables#SMALL_MAX_CAPACITY} entries) at most this
     * fraction live is replaced after a deactivation by one of {@link HashHeader#capacityFor}
     * its live entries (a quarter used, so at most half its size): the next collection gives the
     * large one back to the pool. A small table is kept: it is a cell of its size's node manager,
     * which keeps its memory under the cap until {@code close()} either way, and a smaller one
     * would be another cell of another manager. Between a shrink and the next growth the live
     * entries must at least double (a table after either is a quarter used), so a container
     * that churns around one size copies its table once per that many calls, not per call.
     */
    private static final int SHRINK_BELOW = 16;

    /**
     * Under the header's lock, after a deactivation left the table at {@code base} at most a
     * {@link #SHRINK_BELOW}th live: reserves the smaller table (as an activation reserves one;
     * the memory cap or an allocator fault refuse there), copies the live entries into it,
     * publishes it with one release store of the header's table word and retires the old one,
     * as a growth does; readers that loaded the old word probe the old table, unchanged, until
     * the next collection. When the reservation is refused nothing of this happens: the
     * deactivation stands, the table stays, and the next deactivation tries again.
     */
    private void shrink(MemorySegment segment, long container, long tableWord, MemorySegment table, long base) {
        int capacity = capacity(table, base);
        long live = count(table, base, HashHeader.LIVE_OFFSET);
        if (capacity <= HashTables.SMALL_MAX_CAPACITY || live * SHRINK_BELOW > capacity) {
            return;
        }
        long smaller;
        try {
            smaller = units.reserveTable(node.snode(), tables, HashHeader.capacityFor(live));
        } catch (RuntimeException | Error refused) {
            // The memory cap, an allocator fault (an Error too: Arena.allocate's OutOfMemoryError):
            // the table stays, and the deactivation, done already, returns normally.
            return;
        }
        long copied = copyLive(table, base, tables.segment(smaller), tables.base(smaller));
        Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET, smaller);
        tables.published(smaller, copied);
        tables.retire(tableWord, copied);
    }

    /** Under the lock: releases the child of an active entry and leaves a tombstone. */
    private boolean releaseEntry(MemorySegment table, long base, int slot) {
        long wordOffset = wordAt(base, slot);
        long word = Atomics.getAcquire(table, wordOffset);
        if (!PointerWord.isActive(word)) {
            return false;
        }
        long cell = PointerWord.cellIndex(word);
        // Busy while the subtree goes, as a pointer word is: a walk from the root no longer
        // arrives in the cell, so a retired container below it is not taken for a live one
        // ({@link ActivationRun#reachable}).
        Atomics.setRelease(table, wordOffset, PointerWord.BUSY);
        try {
            units.releaseBelow(node, cells.segment(cell), cells.offset(cell));
            cells.recycle(cell);
        } finally {
            Atomics.setRelease(table, wordOffset, PointerWord.NULL);
            setCount(table, base, HashHeader.LIVE_OFFSET, count(table, base, HashHeader.LIVE_OFFSET) - 1);
            tables.liveEntries(-1);
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
            long tableWord = tableWord(segment, container);
            if (tableWord != 0) {
                MemorySegment table = tables.segment(tableWord);
                long base = tables.base(tableWord);
                try {
                    for (int slot = 0; slot < capacity(table, base); slot++) {
                        releaseEntry(table, base, slot);
                    }
                } finally {
                    Atomics.setRelease(segment, container + HashHeader.TABLE_OFFSET, 0);
                    tables.retire(tableWord, count(table, base, HashHeader.LIVE_OFFSET));
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
        long tableWord = tableWord(segment, container);
        if (tableWord == 0) {
            return 0;
        }
        MemorySegment table = tables.segment(tableWord);
        long base = tables.base(tableWord);
        int capacity = capacity(table, base);
        long visited = 0;
        for (int slot = 0; slot < capacity; slot++) {
            long key = Atomics.getAcquire(table, base + HashHeader.keyOffset(slot));
            if (key == 0) {
                continue;
            }
            long word = Atomics.getAcquire(table, wordAt(base, slot));
            if (PointerWord.isActive(word)) {
                long cell = PointerWord.cellIndex(word);
                visitor.visit(level, key - 1, cells.segment(cell), cells.offset(cell), cell);
                visited++;
            }
        }
        return visited;
    }

    /** The entries of the container's table (0 with none): the iteration reads every one. */
    @Override
    public long scanCost(MemorySegment segment, long container) {
        long word = tableWord(segment, container);
        return word == 0 ? 0 : 1L << HashHeader.capacityBits(word);
    }
}
