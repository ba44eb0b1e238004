package io.snode.runtime.internal.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * of the oldest caches (the new cache enters the queue first; the caches of live threads looked at
 * move to its tail, added there before they leave the head) and starts with the cells of the first
 * whose thread has ended; and a refill whose growth the cap or the allocator refused looks at every
 * cache that holds cells before it gives up ({@link #takeOverEnded}). A cache is taken over only by
 * the thread whose compare-and-set of its {@code claimed} flag succeeds, after
 * {@code Thread.isAlive()} returned false, which orders the ended thread's last writes to the cache
 * before the reads that move its cells (a virtual thread that unmounts stays alive). The move is
 * between two Java arrays and allocates nothing, so it cannot fail halfway. The queue is only the
 * registry: a claimed cache's entry is dropped by whoever meets it, and a failure while a live cache
 * moves to the tail (an OutOfMemoryError for the queue's node) leaves it in twice, never out (a
 * collection then drains it twice, the second time empty; until then the metrics count its cells
 * twice). Metrics read sizes racily and are exact only when no thread allocates; no collection runs
 * meanwhile (it excludes allocation). Cells cached by threads that live are never taken: they wait
 * until their thread allocates again or the next collection.
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
     * the tail, so that later looks pass them). The new cache enters the queue first: a failure
     * afterwards (an OutOfMemoryError of the queue's node) loses no cache and no cell.
     */
    private Cache newCache(int stackCapacity) {
        Cache cache = new Cache(Thread.currentThread(), stackCapacity);
        all.offer(cache);
        Iterator<Cache> oldest = all.iterator();
        for (int n = 0; n < NEW_CACHE_CHECKS && oldest.hasNext(); n++) {
            Cache other = oldest.next();
            if (other == cache) {
                break;
            }
            if (other.claimed) {
                oldest.remove(); // taken over already: only its queue entry is left
            } else if (other.thread.isAlive()) {
                // To the tail, then its first entry out: each thread that moves it adds one entry
                // and removes one (so two moving it at once leave one), and a failure of the offer
                // leaves it where it was. (The iterator's remove would not do: two threads moving
                // the same entry would both "remove" it and leave two.)
                all.offer(other);
                all.remove(other);
            } else if (other.claim()) {
                oldest.remove();
                cache.takeCells(other);
                break;
            }
        }
        return cache;
    }

    /**
     * Moves into the calling thread's empty {@code cache} the cells of a cache whose thread
     * ended, dropping the queue entries of the ended caches it takes or finds taken; false when
     * no such cache holds a cell. Concurrent with allocation on other threads; linear in the
     * caches (one {@code isAlive} per cache that holds cells).
     */
    boolean takeOverEnded(Cache cache) {
        for (Iterator<Cache> caches = all.iterator(); caches.hasNext(); ) {
            Cache other = caches.next();
            if (other.claimed) {
                caches.remove();
            } else if (other != cache && other.size > 0 && !other.thread.isAlive() && other.claim()) {
                // The size read before isAlive() may be stale; takeCells reads it again after.
                caches.remove();
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
        /**
         * Set once, by the one thread that takes this cache's cells over after its thread ended
         * ({@link Cache#claim}); a claimed cache is never used again, only dropped from the queue.
         */
        volatile boolean claimed;

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

        private static final VarHandle CLAIMED;

        static {
            try {
                CLAIMED = MethodHandles.lookup().findVarHandle(CacheFields.class, "claimed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /**
         * Claims this cache, whose thread has ended (the caller saw {@code isAlive()} false,
         * which orders that thread's writes to it before the caller's reads): true for exactly
         * one caller.
         */
        boolean claim() {
            return CLAIMED.compareAndSet(this, false, true);
        }

        /** This empty cache takes the cells of {@code ended}, which the caller claimed, in its order, and forgets its refill record. */
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
