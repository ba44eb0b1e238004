package io.snode.runtime.internal.memory;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The thread caches of one {@link NodeManager} (like Netty's {@code PoolThreadCache}): each
 * thread that allocates keeps a small stack of free cell indices, refilled a batch at a time.
 *
 * <h2>Thread caches and exact undo (implementation notes)</h2>
 * A cache is an {@code int} stack whose top is the next cell to hand out. A refill happens only
 * when the stack is empty and fills it in one step; the cache records where the batch came from
 * (the cursor moved from {@code start} to {@code end}, or data-list growth from {@code start} to {@code end}
 * with the chunk counts of the three lists before it). A pop leaves the popped value in its slot,
 * so a later {@code unallocate(i)} whose slot above the top still holds {@code i} is an exact LIFO
 * reversal ({@link Cache#push}); when such reversals bring the cache back to the state right
 * after the refill ({@link Cache#backAtRefill}), the manager undoes the refill itself: the
 * free-list cursor is moved back by compare-and-set (which fails, harmlessly, if another thread
 * took entries since: cursors only grow between collections), or, under the growth lock, the
 * data list is shrunk back and the chunks created are freed if the data list's length is still
 * the batch's end. Any other push forgets the refill record.
 *
 * <p>A cache's fields are written by its own thread only, except during the manager's exclusive
 * operations (drain, collection), whose exclusion gives the happens-before edges, and once its
 * thread has ended (below); metrics read {@link Cache#size} racily.
 *
 * <h2>Caches of threads that ended</h2>
 * A thread that ends leaves its cached cells behind (up to twice the batch; a thread per task or
 * a pool whose idle threads expire would otherwise hold a batch per thread that ever allocated
 * until the next collection, and a memory cap would refuse growth with most of its cells there).
 * Two paths take them over: a thread's first allocation looks at up to {@value #NEW_CACHE_CHECKS}
 * of the oldest caches (taken from the head of the queue, put back at its tail while their thread
 * lives) and starts with the cells of the first whose thread has ended; and a refill whose growth
 * the cap or the allocator refused looks at every cache before it gives up ({@link #takeOverEnded}).
 * A cache is taken over only by the thread that removed it from the queue (a compare-and-set
 * of the queue's node: one thread wins) after {@code Thread.isAlive()} returned false, which
 * orders the ended thread's last writes to the cache before the reads that move its cells. The
 * move is between two Java arrays and allocates nothing, so it cannot fail halfway; while a
 * cache is out of the queue the metrics may miss its cells (they may be stale by the work in
 * flight) and no collection runs (it excludes allocation). Cells cached by threads that live
 * are never taken: they wait until their thread allocates again or the next collection.
 */
final class ThreadCaches {
    static final byte NO_REFILL = 0;
    static final byte REFILL_FROM_FREE_LIST = 1;
    static final byte REFILL_FROM_GROWTH = 2;

    /** Oldest caches a thread's first allocation looks at for one whose thread ended. */
    static final int NEW_CACHE_CHECKS = 4;

    private final ThreadLocal<Cache> caches;
    /**
     * Every cache handed to a thread and not pruned or taken over, oldest first; iterated by
     * collection and metrics.
     */
    private final ConcurrentLinkedQueue<Cache> all = new ConcurrentLinkedQueue<>();

    ThreadCaches(int stackCapacity) {
        this.caches = ThreadLocal.withInitial(() -> newCache(stackCapacity));
    }

    /**
     * The calling thread's new cache, holding the cells of the first cache among the oldest
     * {@value #NEW_CACHE_CHECKS} whose thread ended (the caches of live threads looked at go to
     * the tail).
     */
    private Cache newCache(int stackCapacity) {
        Cache cache = new Cache(Thread.currentThread(), stackCapacity);
        for (int n = 0; n < NEW_CACHE_CHECKS; n++) {
            Cache oldest = all.poll();
            if (oldest == null) {
                break;
            }
            if (oldest.thread.isAlive()) {
                all.offer(oldest);
            } else {
                cache.takeCells(oldest);
                break;
            }
        }
        all.offer(cache);
        return cache;
    }

    /**
     * Moves into the calling thread's empty {@code cache} the cells of a cache whose thread
     * ended, dropping the empty caches of ended threads it passes; false when no such cache holds
     * a cell. Concurrent with allocation on other threads; linear in the caches.
     */
    boolean takeOverEnded(Cache cache) {
        for (Cache other : all) {
            if (other != cache && !other.thread.isAlive() && all.remove(other)) {
                if (other.size > 0) {
                    cache.takeCells(other);
                    return true;
                }
            }
        }
        return false;
    }

    /** The calling thread's cache. */
    Cache get() {
        return caches.get();
    }

    /** Cells held by every cache; exact when no thread allocates. */
    long cachedCells() {
        long cached = 0;
        for (Cache cache : all) {
            // Benign race: another thread's cache size, read plain; stale at worst while it allocates.
            cached += cache.size;
        }
        return cached;
    }

    /**
     * Moves every cached cell into {@code freeList}, whose untaken entries are
     * {@code [cursor, length)}: in the order the cache would have handed them out (top of the
     * stack first), the first ones into taken slots just below the cursor, the rest after the end.
     * Forgets every refill record and drops the caches of threads that ended. Exclusive.
     *
     * @return the new cursor (the free list's length is set)
     */
    long drainInto(ListManager freeList, long cursor) {
        long length = freeList.size();
        for (Iterator<Cache> caches = all.iterator(); caches.hasNext(); ) {
            Cache cache = caches.next();
            int n = cache.size;
            int below = (int) Math.min(cursor, n);
            cursor -= below;
            for (int i = 0; i < below; i++) {
                freeList.setInt(cursor + i, cache.stack[n - 1 - i]);
            }
            for (int i = below; i < n; i++) {
                freeList.setInt(length++, cache.stack[n - 1 - i]);
            }
            cache.size = 0;
            cache.popped = 0;
            cache.forgetRefill();
            if (!cache.thread.isAlive()) {
                caches.remove();
            }
        }
        freeList.setSize(length);
        return cursor;
    }

    /** Reverses {@code a[0, n)} in place. */
    static void reverse(int[] a, int n) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /** Forgets every cache (the manager is closing). */
    void clear() {
        all.clear();
        caches.remove();
    }

    /**
     * One thread's cells. Padded on both sides: after a garbage collection has moved them, the
     * caches of two threads may sit next to each other, and {@link #size} is written at every
     * allocation (without padding, two threads allocating at once slowed each other down).
     */
    private abstract static class CacheFields extends Padding.Before {
        final Thread thread;
        /** Free cell indices; [0, size) are cached, the top is handed out next. */
        final int[] stack;
        int size;
        /** Pops since the last refill, minus exact LIFO push-backs. */
        int popped;
        byte refill = NO_REFILL;
        long refillStart;
        long refillEnd;
        int dataChunksBefore;
        int freeChunksBefore;
        int recycledChunksBefore;

        CacheFields(Thread thread, int capacity) {
            this.thread = thread;
            this.stack = new int[capacity];
        }
    }

    @SuppressWarnings("unused")
    static final class Cache extends CacheFields {
        long q00, q01, q02, q03, q04, q05, q06, q07;
        long q10, q11, q12, q13, q14, q15, q16, q17;

        Cache(Thread thread, int capacity) {
            super(thread, capacity);
        }

        void refilled(byte kind, long start, long end, int dataChunks, int freeChunks, int recycledChunks, int n) {
            refill = kind;
            refillStart = start;
            refillEnd = end;
            dataChunksBefore = dataChunks;
            freeChunksBefore = freeChunks;
            recycledChunksBefore = recycledChunks;
            popped = 0;
            size = n;
        }

        void forgetRefill() {
            refill = NO_REFILL;
        }

        /** This empty cache takes {@code ended}'s cells (in its order) and forgets its refill record. */
        void takeCells(Cache ended) {
            int n = ended.size;
            System.arraycopy(ended.stack, 0, stack, 0, n);
            ended.size = 0;
            size = n;
            popped = 0;
            forgetRefill();
        }

        /**
         * Puts {@code index} back on top; false, changing nothing, when the stack is full. A pop
         * leaves the popped index in its slot: if the slot holds this index, this undoes the
         * last pop, else the refill record is forgotten.
         */
        boolean push(int index) {
            int top = size;
            if (top == stack.length) {
                return false;
            }
            boolean undoesLastPop = popped > 0 && stack[top] == index;
            stack[top] = index;
            size = top + 1;
            if (undoesLastPop) {
                popped--;
            } else {
                forgetRefill();
            }
            return true;
        }

        /** Whether every pop since the recorded refill was undone: the refill itself may be. */
        boolean backAtRefill() {
            return popped == 0 && refill != NO_REFILL;
        }
    }
}
