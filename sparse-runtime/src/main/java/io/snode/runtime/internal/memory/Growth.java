package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Growth of a {@link NodeManager}'s three lists, which always grow together (the index lists
 * first, so that recycling and collection never allocate), and its exact undo. Growth is
 * blocking: one lock per manager, held while the chunks are allocated and zeroed, once per batch
 * of cells; a growth that fails (the memory cap, an allocator fault) frees the chunks it created
 * before it throws, so the lists read as before.
 */
final class Growth {
    private final NodeManager manager;
    private final MemoryPool pool;
    private final MemoryPool.Owner owner;
    private final ListManager data;
    private final ListManager freeList;
    private final ListManager recycled;
    private final long maxCells;
    private final int growthBatch;
    /** Serialises growth and the undo of growth of the three lists. */
    private final ReentrantLock growthLock = new ReentrantLock();

    Growth(NodeManager manager, ListManager data, ListManager freeList, ListManager recycled, long maxCells,
           int growthBatch) {
        this.manager = manager;
        this.pool = manager.owner().pool();
        this.owner = manager.owner();
        this.data = data;
        this.freeList = freeList;
        this.recycled = recycled;
        this.maxCells = maxCells;
        this.growthBatch = growthBatch;
    }

    /**
     * A growth from {@code cells} cells was refused by the cap for a chunk of {@code bytes}.
     * Growth from the same length asks for the same chunks in the same order, so while the pool
     * holds more than {@code cap - bytes} it would be refused again.
     */
    private record Refusal(long cells, long bytes) {
    }

    /** The latest refusal by the cap, or null; written under the growth lock, read without it. */
    private volatile Refusal lastRefusal;

    /**
     * Refuses a growth that would certainly be refused, before taking the growth lock: threads
     * that hit the cap at once do not queue on the lock to be told one at a time (a refused call
     * stays about as cheap under contention as alone; the manager then looks for the cells of
     * threads that ended, one look at each thread cache). Benign race: the data list's length and
     * the pool's bytes are read without the lock; if either moved, the slow path decides.
     */
    private void refuseAgainWithoutTheLock() {
        Refusal refusal = lastRefusal;
        if (refusal != null && refusal.cells() == data.size()) {
            long held = pool.bytesReserved();
            if (refusal.bytes() > pool.capBytes() - held) {
                throw new MemoryCapExceededException(owner.name(), held, refusal.bytes(), pool.capBytes());
            }
        }
    }

    /**
     * Fills the empty {@code cache} with up to a growth batch of new cells at the end of the data
     * list, growing the index lists with it; throws leaving everything unchanged.
     */
    void refill(ThreadCaches.Cache cache) {
        refuseAgainWithoutTheLock();
        growthLock.lock();
        try {
            manager.checkOpen();
            long start = data.size();
            if (start >= maxCells) {
                throw new IllegalStateException("node manager of " + owner.name() + " is full: cellsAllocated="
                        + start + " maxCells=" + maxCells);
            }
            long end = Math.min(maxCells, start + growthBatch);
            int dataChunks = data.chunkCount();
            int freeChunks = freeList.chunkCount();
            int recycledChunks = recycled.chunkCount();
            try {
                // Index lists first and always as long as the data list: collection and recycling never allocate.
                freeList.ensureCapacity(end);
                recycled.ensureCapacity(end);
                data.ensureCapacity(end);
            } catch (Throwable t) {
                trimAll(dataChunks, freeChunks, recycledChunks, t);
                if (t instanceof MemoryCapExceededException cap) {
                    lastRefusal = new Refusal(start, cap.bytesRequested());
                }
                throw t;
            }
            data.setSize(end);
            int n = (int) (end - start);
            for (int i = 0; i < n; i++) {
                cache.stack[n - 1 - i] = (int) (start + i);
            }
            cache.refilled(ThreadCaches.REFILL_FROM_GROWTH, start, end, dataChunks, freeChunks, recycledChunks, n);
        } finally {
            growthLock.unlock();
        }
    }

    /** Frees the chunks created after the given counts; failures are added to {@code cause} if there is one. */
    private void trimAll(int dataChunks, int freeChunks, int recycledChunks, Throwable cause) {
        ListManager[] lists = {data, freeList, recycled};
        int[] keep = {dataChunks, freeChunks, recycledChunks};
        RuntimeException failure = null;
        for (int i = 0; i < lists.length; i++) {
            try {
                lists[i].trimChunks(keep[i]);
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Undoes the growth that last refilled {@code cache}, which is exactly as that refill left
     * it, if the data list still ends where that growth ended it.
     */
    void undo(ThreadCaches.Cache cache) {
        growthLock.lock();
        try {
            if (data.size() == cache.refillEnd) {
                data.setSize(cache.refillStart);
                cache.size = 0;
                trimAll(cache.dataChunksBefore, cache.freeChunksBefore, cache.recycledChunksBefore, null);
            }
        } finally {
            growthLock.unlock();
        }
    }
}
