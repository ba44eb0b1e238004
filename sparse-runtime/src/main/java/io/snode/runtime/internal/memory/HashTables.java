package io.snode.runtime.internal.memory;

import io.snode.runtime.HashHeader;
import io.snode.runtime.HashTableMetric;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The tables of one hash SNode (see {@link HashHeader}): each is one piece of memory from the
 * pool, named in a header by an id of this registry, so a header holds a plain {@code long}
 * and a corrupted one gives an exception, never a wild access.
 *
 * <p><b>Life of a table.</b> {@link #reserve} takes the memory (the memory cap refuses here)
 * and gives it an id that nothing refers to yet; {@link #unreserve} gives both back at once.
 * A table published in a header and later replaced by a resize, or dropped when its header's
 * cell is released, is {@link #retire retired}: readers on other threads that loaded its id
 * before it was replaced may still probe it, so its memory is freed only by
 * {@link #freeRetired}, which the runtime calls at each collection, when nothing else runs.
 * Only then can its id be handed out again.
 *
 * <p><b>Readers</b> ({@link #segment}) take no lock: an id is published (a release store of
 * the header's table word) only after {@link #reserve} stored its segment here, and growth of
 * the registry copies every stored segment into the new array before it is visible. Writers
 * (reserve, unreserve, retire) synchronize on this object.
 */
public final class HashTables {
    private final MemoryPool.Owner owner;
    private final MemoryPool pool;
    /** Segments by id; id 0 is never used (a header's "no table"). */
    private volatile MemorySegment[] byId = new MemorySegment[16];
    private int nextId = 1;
    private final List<Long> freeIds = new ArrayList<>();
    private final List<Long> retired = new ArrayList<>();
    private long tablesHeld;
    private long bytesHeld;
    private long retiredBytes;
    private long tablesFreed;

    public HashTables(MemoryPool pool, String ownerName) {
        this.pool = pool;
        this.owner = pool.owner(ownerName);
    }

    /**
     * A new empty table of {@code capacity} entries (a power of two between
     * {@link HashHeader#MIN_CAPACITY} and {@link HashHeader#MAX_CAPACITY}), its capacity
     * written; nothing refers to it yet.
     *
     * @throws io.snode.api.MemoryCapExceededException when the pool's cap refuses the memory
     */
    public long reserve(int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < HashHeader.MIN_CAPACITY
                || capacity > HashHeader.MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity=" + capacity + " must be a power of two between "
                    + HashHeader.MIN_CAPACITY + " and " + HashHeader.MAX_CAPACITY);
        }
        long bytes = HashHeader.tableBytes(capacity);
        MemorySegment table = pool.allocateChunk(owner, bytes);
        table.set(ValueLayout.JAVA_LONG, HashHeader.CAPACITY_OFFSET, capacity);
        synchronized (this) {
            long id = freeIds.isEmpty() ? nextId++ : freeIds.removeLast();
            if (id >= byId.length) {
                byId = Arrays.copyOf(byId, (int) Math.max(id + 1, byId.length * 2L));
            }
            byId[(int) id] = table;
            tablesHeld++;
            bytesHeld += bytes;
            return id;
        }
    }

    /** Gives back a reserved table that was never published. */
    public void unreserve(long id) {
        MemorySegment table;
        synchronized (this) {
            table = take(id);
            freeIds.add(id);
        }
        pool.freeChunk(table);
    }

    /** The table named {@code id} in a header. */
    public MemorySegment segment(long id) {
        MemorySegment[] tables = byId;
        MemorySegment table = id > 0 && id < tables.length ? tables[(int) id] : null;
        if (table == null) {
            throw new IllegalStateException("table id=" + id + " names no table of " + owner.name());
        }
        return table;
    }

    /** A published table that no header names any more: freed at the next {@link #freeRetired}. */
    public synchronized void retire(long id) {
        retired.add(id);
        retiredBytes += byId[(int) id].byteSize();
    }

    /**
     * Frees every retired table. Only while nothing reads or writes this node (a collection).
     *
     * @return the bytes freed
     */
    public long freeRetired() {
        List<MemorySegment> free = new ArrayList<>();
        long bytes;
        synchronized (this) {
            for (long id : retired) {
                free.add(take(id));
                freeIds.add(id);
            }
            tablesFreed += retired.size();
            retired.clear();
            bytes = retiredBytes;
            retiredBytes = 0;
        }
        for (MemorySegment table : free) {
            pool.freeChunk(table);
        }
        return bytes;
    }

    private MemorySegment take(long id) {
        MemorySegment table = segment(id);
        byId[(int) id] = null;
        tablesHeld--;
        bytesHeld -= table.byteSize();
        return table;
    }

    /** What the tables hold now; reads the live count of every table in use. */
    public synchronized HashTableMetric metrics() {
        long entries = 0;
        long live = 0;
        MemorySegment[] tables = byId;
        for (int id = 1; id < tables.length; id++) {
            if (tables[id] != null && !retired.contains((long) id)) {
                entries += tables[id].get(ValueLayout.JAVA_LONG, HashHeader.CAPACITY_OFFSET);
                live += tables[id].get(ValueLayout.JAVA_LONG, HashHeader.LIVE_OFFSET);
            }
        }
        return new HashTableMetric(tablesHeld, bytesHeld, entries, live, retired.size(), retiredBytes, tablesFreed);
    }
}
