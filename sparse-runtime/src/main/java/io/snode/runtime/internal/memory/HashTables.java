package io.snode.runtime.internal.memory;

import io.snode.runtime.HashHeader;
import io.snode.runtime.HashTableMetric;
import io.snode.runtime.internal.CheckedCells;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tables of one hash SNode (see {@link HashHeader}), named in a header by a table word:
 * log2 of the capacity in the top bits, and below them where the table lives.
 *
 * <ul>
 *   <li><b>Small tables</b> (up to {@link #SMALL_MAX_CAPACITY} entries) are cells of one node
 *       manager per capacity: the word holds the cell index. They come and go as cells do,
 *       with the managers' thread caches and free lists, so a layout with a hash node below a
 *       pointer (one table per pointer cell) pays no memory-pool call per table.</li>
 *   <li><b>Large tables</b> are one piece of pool memory each, named by an id of a registry:
 *       the word holds the id.</li>
 * </ul>
 * A header holds a plain {@code long} either way, and a corrupted one gives an exception, never
 * a wild access.
 *
 * <p><b>Life of a table.</b> {@link #reserve} takes the memory (the memory cap refuses here)
 * and nothing refers to it yet; {@link #unreserve} gives it back at once. A table published in
 * a header ({@link #published}) and later replaced by a resize, or dropped when its header's
 * cell is released, is {@link #retire retired}: readers on other threads that loaded its word
 * before may still probe it, so it is reused or freed only after the next collection: a small
 * one is recycled into its manager (the collector zeroes it), a large one is freed by
 * {@link #freeRetired}, which the runtime calls at each collection, when nothing else runs.
 *
 * <p><b>Readers</b> ({@link #segment}, {@link #base}) take no lock: a word is published (a
 * release store of the header's table word) only after {@link #reserve} stored what it names,
 * and growth of the registry copies every stored segment into the new array before it is
 * visible. Registry writers synchronize on this object.
 */
public final class HashTables {
    /** The largest small table: 2048 entries (32,800 bytes, one node-manager cell). */
    public static final int SMALL_MAX_CAPACITY = 2048;
    private static final int MIN_BITS = Integer.numberOfTrailingZeros(HashHeader.MIN_CAPACITY);
    private static final int SMALL_MAX_BITS = Integer.numberOfTrailingZeros(SMALL_MAX_CAPACITY);

    private final MemoryPool.Owner owner;
    private final MemoryPool pool;
    /** Per log2 capacity up to {@link #SMALL_MAX_BITS}: the manager of tables of that size. */
    private final CheckedCells[] small = new CheckedCells[SMALL_MAX_BITS + 1];
    /** Large tables by id; id 0 is never used. */
    private volatile MemorySegment[] byId = new MemorySegment[16];
    private int nextId = 1;
    private final List<Long> freeIds = new ArrayList<>();
    private final List<Long> retiredLarge = new ArrayList<>();
    private long tablesInUse;
    private long bytesInUse;
    private long entriesInUse;
    private long retired;
    private long retiredBytes;
    private long freed;
    private final LongAdder liveEntries = new LongAdder();

    public HashTables(MemoryPool pool, String ownerName) {
        this.pool = pool;
        this.owner = pool.owner(ownerName);
        for (int bits = MIN_BITS; bits <= SMALL_MAX_BITS; bits++) {
            small[bits] = new CheckedCells(pool, ownerName + " (" + (1 << bits) + ")",
                    HashHeader.tableBytes(1 << bits));
        }
    }

    /**
     * A new empty table of {@code capacity} entries (a power of two between
     * {@link HashHeader#MIN_CAPACITY} and {@link HashHeader#MAX_CAPACITY}), its capacity
     * written; nothing refers to it yet.
     *
     * @return its table word
     * @throws io.snode.api.MemoryCapExceededException when the pool's cap refuses the memory
     */
    public long reserve(int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < HashHeader.MIN_CAPACITY
                || capacity > HashHeader.MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two between "
                    + HashHeader.MIN_CAPACITY + " and " + HashHeader.MAX_CAPACITY);
        }
        int bits = Integer.numberOfTrailingZeros(capacity);
        long word;
        if (bits <= SMALL_MAX_BITS) {
            word = HashHeader.tableWord(small[bits].allocate(), capacity);
        } else {
            MemorySegment table = pool.allocateChunk(owner, HashHeader.tableBytes(capacity));
            synchronized (this) {
                long id = freeIds.isEmpty() ? nextId++ : freeIds.removeLast();
                if (id >= byId.length) {
                    byId = Arrays.copyOf(byId, (int) Math.max(id + 1, byId.length * 2L));
                }
                byId[(int) id] = table;
                word = HashHeader.tableWord(id, capacity);
            }
        }
        segment(word).set(ValueLayout.JAVA_LONG, base(word) + HashHeader.CAPACITY_OFFSET, capacity);
        return word;
    }

    /** Gives back a reserved table that was never published (its entries may have been written and zeroed). */
    public void unreserve(long word) {
        int bits = HashHeader.capacityBits(word);
        if (bits <= SMALL_MAX_BITS) {
            small[bits].unallocate(HashHeader.tableId(word));
            return;
        }
        MemorySegment table;
        synchronized (this) {
            table = takeLarge(HashHeader.tableId(word));
        }
        pool.freeChunk(table);
    }

    /** The memory holding the table {@code word} names (small: kept small, so that the JIT inlines it into probes). */
    public MemorySegment segment(long word) {
        int bits = HashHeader.capacityBits(word);
        return bits <= SMALL_MAX_BITS ? small[bits].segment(HashHeader.tableId(word)) : large(HashHeader.tableId(word));
    }

    private MemorySegment large(long id) {
        MemorySegment[] tables = byId;
        MemorySegment table = id > 0 && id < tables.length ? tables[(int) id] : null;
        if (table == null) {
            throw noTable(id);
        }
        return table;
    }

    private IllegalStateException noTable(long id) {
        return new IllegalStateException("table id=" + id + " names no large table of " + owner.name());
    }

    /** The byte offset of the table {@code word} names in {@link #segment}. */
    public long base(long word) {
        int bits = HashHeader.capacityBits(word);
        return bits <= SMALL_MAX_BITS ? small[bits].offset(HashHeader.tableId(word)) : 0;
    }

    /** A reserved table is now named by a header (with {@code live} live entries, copied or built in it). */
    public synchronized void published(long word, long live) {
        int capacity = 1 << HashHeader.capacityBits(word);
        tablesInUse++;
        bytesInUse += HashHeader.tableBytes(capacity);
        entriesInUse += capacity;
        liveEntries.add(live);
    }

    /** A published table that no header names any more: reused or freed after the next collection. */
    public synchronized void retire(long word, long live) {
        int capacity = 1 << HashHeader.capacityBits(word);
        tablesInUse--;
        bytesInUse -= HashHeader.tableBytes(capacity);
        entriesInUse -= capacity;
        liveEntries.add(-live);
        retired++;
        retiredBytes += HashHeader.tableBytes(capacity);
        if (HashHeader.capacityBits(word) <= SMALL_MAX_BITS) {
            small[HashHeader.capacityBits(word)].recycle(HashHeader.tableId(word));
        } else {
            retiredLarge.add(HashHeader.tableId(word));
        }
    }

    /** An entry of a published table became live ({@code +1}) or inactive ({@code -1}). */
    public void liveEntries(int change) {
        liveEntries.add(change);
    }

    /** The node managers of the small tables, for the collector (recycled tables are zeroed there). */
    public List<CheckedCells> managers() {
        List<CheckedCells> managers = new ArrayList<>();
        for (CheckedCells manager : small) {
            if (manager != null) {
                managers.add(manager);
            }
        }
        return managers;
    }

    /**
     * After a collection (the small retired tables were recycled cells and are reusable now):
     * frees every retired large table. Only while nothing reads or writes this node.
     */
    public void freeRetired() {
        List<MemorySegment> free = new ArrayList<>();
        synchronized (this) {
            for (long id : retiredLarge) {
                free.add(takeLarge(id));
            }
            retiredLarge.clear();
            freed += retired;
            retired = 0;
            retiredBytes = 0;
        }
        for (MemorySegment table : free) {
            pool.freeChunk(table);
        }
    }

    private MemorySegment takeLarge(long id) {
        MemorySegment table = large(id);
        byId[(int) id] = null;
        freeIds.add(id);
        return table;
    }

    /** What the tables hold now. */
    public synchronized HashTableMetric metrics() {
        return new HashTableMetric(tablesInUse + retired, bytesInUse + retiredBytes, entriesInUse, liveEntries.sum(),
                retired, retiredBytes, freed);
    }
}
