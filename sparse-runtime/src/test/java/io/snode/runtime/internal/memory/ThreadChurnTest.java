package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Threads that allocate and end: a thread per task, virtual threads, pools whose idle threads
 * expire. Until 12-07 the cells cached by a thread that had ended waited for the next collection:
 * 20,000 short-lived threads that each wrote one block held 16 times the cells in use, and a
 * memory cap refused writes with most of its cells in the caches of dead threads.
 */
class ThreadChurnTest {

    private static final String OWNER = "root.pointer";

    private final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);

    @AfterEach
    void closePool() {
        pool.close();
    }

    private static Thread start(boolean virtual, Runnable task) {
        return virtual ? Thread.ofVirtual().start(task) : Thread.ofPlatform().start(task);
    }

    private static void join(Thread thread) throws InterruptedException {
        thread.join(10_000);
        assertThat(thread.isAlive()).as("thread ended within 10 s").isFalse();
    }

    /**
     * Starts {@code threads} threads that, all alive at once, take one cell of {@code cells} each
     * and end (leaving the rest of their batches cached); returns their cells.
     */
    private static Set<Integer> cellsOfThreadsThatEnded(NodeManager cells, int threads, boolean virtual)
            throws InterruptedException {
        CyclicBarrier together = new CyclicBarrier(threads);
        Set<Integer> theirs = ConcurrentHashMap.newKeySet();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            started.add(start(virtual, () -> {
                try {
                    together.await(10, TimeUnit.SECONDS); // all alive when they allocate
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                theirs.add(cells.allocate());
            }));
        }
        for (Thread thread : started) {
            join(thread);
        }
        return theirs;
    }

    /** A thread that starts after another ended takes over that thread's cached cells. */
    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void aThreadPerAllocationHoldsNoMoreThanOneBatchBeyondTheCellsInUse(boolean virtual) throws Exception {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 16);
        Set<Integer> got = ConcurrentHashMap.newKeySet();
        for (int t = 0; t < 1_000; t++) {
            join(start(virtual, () -> got.add(cells.allocate())));
        }
        NodeManagerMetrics m = cells.metrics();
        assertThat(got).hasSize(1_000);
        assertThat(m.cellsInUse()).isEqualTo(1_000);
        // Before: 16 cells allocated per thread (16,000).
        assertThat(m.cellsAllocated()).isLessThanOrEqualTo(1_000 + cells.cacheBatch());
        assertThat(m.cellsAllocated()).isEqualTo(m.cellsInUse() + m.cellsFree() + m.cellsRecycled());
    }

    /**
     * Threads alive at once that each take a cell and end leave their batches behind; a thread
     * whose growth the cap refuses takes those cells before it gives up, so the cap refuses only
     * once every cell it allows is in use.
     */
    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void theCapRefusesOnlyWhenNoEndedThreadHoldsCells(boolean virtual) throws Exception {
        // Room for the first chunk of each list (3 x 4 KiB): 64 cells of 64 bytes.
        try (MemoryPool small = new MemoryPool(3 * 4096)) {
            NodeManager cells = new NodeManager(small, OWNER, 64, 8, 8);
            Set<Integer> got = new HashSet<>();
            got.add(cells.allocate()); // this thread's cache: 7 cells left
            int threads = 6;
            Set<Integer> theirs = cellsOfThreadsThatEnded(cells, threads, virtual);
            assertThat(theirs).hasSize(threads);
            got.addAll(theirs);
            while (true) {
                try {
                    assertThat(got.add(cells.allocate())).as("a cell handed out twice").isTrue();
                } catch (MemoryCapExceededException refused) {
                    break;
                }
            }
            NodeManagerMetrics m = cells.metrics();
            // Before: refused with 6 x 7 cells in the caches of the ended threads.
            assertThat(m.cellsCached()).isZero();
            assertThat(m.cellsInUse()).isEqualTo(64).isEqualTo(got.size()).isEqualTo(m.cellsAllocated());
        }
    }

    /**
     * As under the cap, with the growth refused by an allocator fault that is an Error (the
     * {@link OutOfMemoryError} that {@code Arena.allocate} throws): the cells that ended threads
     * left cached serve first, and only then does the fault reach the caller. Before 12-07 an
     * Error went straight to the caller with 6 x 7 cells in the caches of ended threads.
     */
    @Test
    void anAllocatorFaultThatIsAnErrorIsServedByTheCellsOfEndedThreadsFirst() throws Exception {
        FaultInjectingAllocator allocator = new FaultInjectingAllocator();
        try (MemoryPool faulty = new MemoryPool(allocator, MemoryPool.UNLIMITED)) {
            NodeManager cells = new NodeManager(faulty, OWNER, 64, 8, 8);
            Set<Integer> got = new HashSet<>();
            got.add(cells.allocate()); // this thread's cache: 7 cells left
            got.addAll(cellsOfThreadsThatEnded(cells, 6, false));
            allocator.failAtRequestWithError(1); // the next chunk fails, and so does every later one
            while (true) {
                try {
                    assertThat(got.add(cells.allocate())).as("a cell handed out twice").isTrue();
                } catch (FaultInjectingAllocator.InjectedError refused) {
                    break;
                }
                if (allocator.failuresInjected() > 0) {
                    allocator.failAtRequestWithError(1);
                }
            }
            NodeManagerMetrics m = cells.metrics();
            assertThat(allocator.failuresInjected()).as("growths refused").isPositive();
            // Before: refused with 6 x 7 cells in the caches of the ended threads.
            assertThat(m.cellsCached()).as("cells left in caches").isZero();
            assertThat(m.cellsInUse()).isEqualTo(got.size()).isEqualTo(m.cellsAllocated());
        }
    }

    /**
     * Many short-lived threads, some of them at once, allocate, recycle and unallocate while a
     * cap or injected allocator faults refuse growth now and then: every cell returned is distinct
     * and nothing is lost (after the threads end and a collection, every allocated cell is in use
     * or free; one thread then gets every free cell before the cap or the fault refuses growth).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cap", "fault"})
    void shortLivedThreadsUnderRefusalsLoseNoCell(String refusal) throws Exception {
        FaultInjectingAllocator allocator = new FaultInjectingAllocator();
        boolean cap = refusal.equals("cap");
        try (MemoryPool limited = new MemoryPool(allocator, cap ? 6 * 4096 : MemoryPool.UNLIMITED)) {
            NodeManager cells = new NodeManager(limited, OWNER, 64, 8, 8);
            Set<Integer> inUse = ConcurrentHashMap.newKeySet();
            AtomicInteger refused = new AtomicInteger();
            java.util.Queue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
            int rounds = 40;
            int perRound = 8;
            for (int round = 0; round < rounds; round++) {
                if (!cap && round % 3 == 0) {
                    allocator.failAtRequest(1);
                }
                CountDownLatch done = new CountDownLatch(perRound);
                CyclicBarrier together = new CyclicBarrier(perRound);
                List<Thread> started = new ArrayList<>();
                for (int t = 0; t < perRound; t++) {
                    int seed = round * perRound + t;
                    started.add(start(seed % 2 == 0, () -> {
                        try {
                            together.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 1 + seed % 5; n++) {
                                int cell = cells.allocate();
                                if (n == 1) {
                                    cells.unallocate(cell); // never published
                                } else {
                                    assertThat(inUse.add(cell)).as("cell %d handed out twice", cell).isTrue();
                                }
                            }
                        } catch (MemoryCapExceededException | FaultInjectingAllocator.InjectedFailure e) {
                            refused.incrementAndGet();
                        } catch (Throwable e) {
                            failures.add(e);
                        } finally {
                            done.countDown();
                        }
                    }));
                }
                assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
                for (Thread thread : started) {
                    join(thread);
                }
                allocator.disarm();
                if (round % 10 == 9) { // give some back between launches, as deactivations do
                    Integer[] some = inUse.toArray(Integer[]::new);
                    for (int i = 0; i < some.length; i += 3) {
                        inUse.remove(some[i]);
                        cells.recycle(some[i]);
                    }
                    cells.collect();
                }
            }
            assertThat(failures).isEmpty();
            // Growths were refused (a faulted one may have been served by an ended thread's cells).
            assertThat(cap ? refused.get() : allocator.failuresInjected()).isPositive();
            NodeManagerMetrics m = cells.metrics();
            assertThat(m.cellsInUse()).isEqualTo(inUse.size());
            assertThat(m.cellsAllocated()).isEqualTo(m.cellsInUse() + m.cellsFree() + m.cellsRecycled());

            cells.collect();
            if (!cap) {
                allocator.failAtRequest(1); // the next growth fails (the loop ends at the first refusal)
            }
            long free = cells.metrics().cellsFree();
            long taken = 0;
            try {
                while (true) {
                    assertThat(inUse.add(cells.allocate())).isTrue();
                    taken++;
                }
            } catch (MemoryCapExceededException | FaultInjectingAllocator.InjectedFailure expected) {
                // growth refused once the free cells were gone
            }
            assertThat(taken).isGreaterThanOrEqualTo(free);
            assertThat(cells.metrics().cellsInUse()).isEqualTo(inUse.size());
        }
    }

    /** A refusal with no ended thread's cells to take still changes nothing. */
    @Test
    void aRefusalWithNothingToTakeOverStillChangesNothing() throws Exception {
        try (MemoryPool small = new MemoryPool(3 * 4096)) {
            NodeManager cells = new NodeManager(small, OWNER, 64, 8, 8);
            for (int i = 0; i < 64; i++) {
                cells.allocate();
            }
            NodeManagerMetrics before = cells.metrics();
            join(start(false, () -> assertThatThrownBy(cells::allocate).isInstanceOf(MemoryCapExceededException.class)));
            assertThatThrownBy(cells::allocate).isInstanceOf(MemoryCapExceededException.class);
            assertThat(cells.metrics()).isEqualTo(before);
        }
    }
}
