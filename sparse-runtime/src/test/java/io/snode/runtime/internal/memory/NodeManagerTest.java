package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeManagerTest {

    private static final String OWNER = "root.pointer";

    private final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);

    @AfterEach
    void closePool() {
        pool.close();
    }

    /** Expected metrics for 64-byte cells. */
    private static NodeManagerMetrics m(long allocated, long inUse, long free, long cached, long recycled,
                                        long freeLength, long freeCursor, int chunks, long bytes, long cellBytes) {
        return new NodeManagerMetrics(OWNER, 64, allocated, inUse, free, cached, recycled, freeLength, freeCursor,
                chunks, bytes, cellBytes);
    }

    @Test
    void aNewManagerHoldsNoMemoryAndTheFirstCellCostsThreeSmallChunks() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8);
        assertThat(cells.cacheBatch()).isEqualTo(256);
        assertThat(cells.growthBatch()).isEqualTo(64);
        assertThat(cells.metrics()).isEqualTo(m(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));

        assertThat(cells.allocate()).isZero();

        // One growth batch of 64 cells (the first data chunk): one 4 KiB chunk per list.
        assertThat(cells.metrics()).isEqualTo(m(64, 1, 63, 63, 0, 0, 0, 3, 12_288, 4096));
        assertThat(pool.bytesReserved()).isEqualTo(12_288);
        assertThat(pool.owner(OWNER).bytesReserved()).isEqualTo(12_288);
    }

    @Test
    void scriptedCycleWithoutThreadCacheCountsExactly() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 1);
        assertThat(List.of(cells.allocate(), cells.allocate(), cells.allocate())).containsExactly(0, 1, 2);
        assertThat(cells.metrics()).isEqualTo(m(3, 3, 0, 0, 0, 0, 0, 3, 12_288, 4096));

        cells.recycle(1);
        assertThat(cells.metrics()).isEqualTo(m(3, 2, 0, 0, 1, 0, 0, 3, 12_288, 4096));

        cells.collect();
        assertThat(cells.metrics()).isEqualTo(m(3, 2, 1, 0, 0, 1, 0, 3, 12_288, 4096));

        assertThat(cells.allocate()).isEqualTo(1);
        assertThat(cells.metrics()).isEqualTo(m(3, 3, 0, 0, 0, 1, 1, 3, 12_288, 4096));
        assertThat(cells.allocate()).isEqualTo(3);
        assertThat(cells.metrics()).isEqualTo(m(4, 4, 0, 0, 0, 1, 1, 3, 12_288, 4096));

        cells.recycle(0);
        cells.recycle(2);
        assertThat(cells.metrics()).isEqualTo(m(4, 2, 0, 0, 2, 1, 1, 3, 12_288, 4096));
        cells.collect();
        assertThat(cells.metrics()).isEqualTo(m(4, 2, 2, 0, 0, 2, 0, 3, 12_288, 4096));
        assertThat(List.of(cells.allocate(), cells.allocate(), cells.allocate())).containsExactly(0, 2, 4);
        assertThat(cells.metrics()).isEqualTo(m(5, 5, 0, 0, 0, 2, 2, 3, 12_288, 4096));
    }

    @Test
    void scriptedCycleWithThreadCacheCountsExactly() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 8);
        assertThat(cells.allocate()).isZero();
        assertThat(cells.metrics()).isEqualTo(m(8, 1, 7, 7, 0, 0, 0, 3, 12_288, 4096));
        assertThat(List.of(cells.allocate(), cells.allocate())).containsExactly(1, 2);
        assertThat(cells.metrics()).isEqualTo(m(8, 3, 5, 5, 0, 0, 0, 3, 12_288, 4096));

        cells.recycle(1);
        assertThat(cells.metrics()).isEqualTo(m(8, 2, 5, 5, 1, 0, 0, 3, 12_288, 4096));

        cells.collect();
        // Cached cells 3..7 drained into the free list, then the recycled cell 1.
        assertThat(cells.metrics()).isEqualTo(m(8, 2, 6, 0, 0, 6, 0, 3, 12_288, 4096));
        List<Integer> freeList = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            freeList.add(cells.freeList().getInt(i));
        }
        assertThat(freeList).containsExactly(3, 4, 5, 6, 7, 1);

        assertThat(cells.allocate()).isEqualTo(3);
        assertThat(cells.metrics()).isEqualTo(m(8, 3, 5, 5, 0, 6, 6, 3, 12_288, 4096));
        for (int expected : new int[] {4, 5, 6, 7, 1, 8}) {
            assertThat(cells.allocate()).isEqualTo(expected);
        }
        assertThat(cells.metrics()).isEqualTo(m(16, 9, 7, 7, 0, 6, 6, 3, 12_288, 4096));
    }

    @Test
    void freeCellsAreReusedBeforeTheDataListGrows() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 4);
        for (int i = 0; i < 10; i++) {
            cells.allocate();
        }
        long allocated = cells.metrics().cellsAllocated();
        for (int i : new int[] {2, 5, 7}) {
            cells.recycle(i);
        }
        cells.collect();
        long free = cells.metrics().cellsFree();
        assertThat(free).isEqualTo(allocated - 10 + 3);

        Set<Integer> reused = new HashSet<>();
        for (long i = 0; i < free; i++) {
            reused.add(cells.allocate());
        }
        assertThat(reused).contains(2, 5, 7).hasSize((int) free);
        assertThat(cells.metrics().cellsAllocated()).isEqualTo(allocated);
        assertThat(cells.allocate()).isEqualTo((int) allocated);
    }

    @Test
    void recycledCellsKeepTheirContentsUntilCollectThenReadZeroWhenReused() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 1);
        int[] got = new int[5];
        for (int i = 0; i < got.length; i++) {
            got[i] = cells.allocate();
            assertThat(readsZero(cells, got[i])).isTrue();
            fill(cells, got[i], (byte) (i + 1));
        }
        cells.recycle(got[1]);
        cells.recycle(got[3]);
        // Not reused before collection: a reader still holding the index sees the old contents.
        assertThat(cellByte(cells, got[1])).isEqualTo((byte) 2);

        cells.collect();

        assertThat(readsZero(cells, got[1])).isTrue();
        assertThat(readsZero(cells, got[3])).isTrue();
        assertThat(cellByte(cells, got[0])).isEqualTo((byte) 1);
        assertThat(Set.of(cells.allocate(), cells.allocate())).containsExactlyInAnyOrder(got[1], got[3]);
    }

    @Test
    void capExceededDuringGrowthLeavesCountersAndChunksUnchanged() {
        try (MemoryPool small = new MemoryPool(4 * 4096)) {
            NodeManager cells = new NodeManager(small, OWNER, 64, 8, 8);
            // Three 4 KiB chunks for the first cells; the second data chunk (128 cells, 8 KiB) exceeds the cap.
            for (int i = 0; i < 64; i++) {
                cells.allocate();
            }
            NodeManagerMetrics before = cells.metrics();
            MemoryPool.PoolMetrics poolBefore = small.metrics();

            assertThatThrownBy(cells::allocate).isInstanceOf(MemoryCapExceededException.class)
                    .hasMessageContaining("owner=" + OWNER).hasMessageContaining("bytesRequested=8192");

            assertThat(cells.metrics()).isEqualTo(before);
            assertThat(small.metrics()).isEqualTo(poolBefore);
            // Recycled cells still come back after collection, without growth.
            cells.recycle(10);
            cells.collect();
            assertThat(cells.allocate()).isEqualTo(10);
        }
    }

    /**
     * A refusal by the cap is remembered (so that refused calls need not queue on the growth
     * lock), but only while it would still be refused: once the pool has room again, growth
     * succeeds.
     */
    @Test
    void aRefusedGrowthIsRefusedAgainUntilThePoolHasRoomAgain() {
        try (MemoryPool small = new MemoryPool(7 * 4096)) {
            NodeManager other = new NodeManager(small, "other", 64, 8, 8);
            other.allocate();
            NodeManager cells = new NodeManager(small, OWNER, 64, 8, 8);
            for (int i = 0; i < 64; i++) {
                cells.allocate();
            }
            NodeManagerMetrics before = cells.metrics();
            for (int attempt = 0; attempt < 3; attempt++) {
                assertThatThrownBy(cells::allocate).isInstanceOf(MemoryCapExceededException.class)
                        .hasMessageContaining("owner=" + OWNER).hasMessageContaining("bytesRequested=8192");
                assertThat(cells.metrics()).isEqualTo(before);
            }
            other.close();
            assertThat(cells.allocate()).isEqualTo(64);
        }
    }

    @Test
    void failureInjectedAtEveryAllocatorRequestLeavesEverythingUnchanged() {
        List<Integer> reference = new ArrayList<>();
        NodeManagerMetrics referenceEnd;
        MemoryPool.PoolMetrics referencePoolEnd;
        FaultInjectingAllocator plain = new FaultInjectingAllocator();
        try (MemoryPool p = new MemoryPool(plain, MemoryPool.UNLIMITED)) {
            NodeManager cells = new NodeManager(p, OWNER, 64, 8, 4);
            runScript(cells, reference, plain, p);
            referenceEnd = cells.metrics();
            referencePoolEnd = p.metrics();
        }
        long requests = plain.requests();
        assertThat(requests).as("allocator requests of the script").isGreaterThanOrEqualTo(9);

        for (long n = 1; n <= requests; n++) {
            FaultInjectingAllocator allocator = new FaultInjectingAllocator();
            allocator.failAtRequest(n);
            List<Integer> handedOut = new ArrayList<>();
            try (MemoryPool p = new MemoryPool(allocator, MemoryPool.UNLIMITED)) {
                NodeManager cells = new NodeManager(p, OWNER, 64, 8, 4);
                int failures = runScript(cells, handedOut, allocator, p);
                assertThat(failures).as("failures injected at request %d", n).isEqualTo(1);
                assertThat(handedOut).isEqualTo(reference);
                assertThat(cells.metrics()).isEqualTo(referenceEnd);
                assertThat(p.metrics()).isEqualTo(referencePoolEnd);
            }
            assertThat(allocator.liveSegments()).isZero();
        }
    }

    /**
     * Allocates 1500 cells, recycles every third, collects, allocates 700 more. Each step that
     * fails with an injected failure must leave the metrics as they were; the step is then retried
     * without the failure. Returns the number of failures seen.
     */
    private static int runScript(NodeManager cells, List<Integer> handedOut, FaultInjectingAllocator allocator,
                                 MemoryPool pool) {
        int[] failures = {0};
        IntSupplier allocate = () -> {
            NodeManagerMetrics before = cells.metrics();
            MemoryPool.PoolMetrics poolBefore = pool.metrics();
            try {
                return cells.allocate();
            } catch (FaultInjectingAllocator.InjectedFailure e) {
                failures[0]++;
                assertThat(cells.metrics()).isEqualTo(before);
                assertThat(pool.metrics()).isEqualTo(poolBefore);
                allocator.disarm();
                return cells.allocate();
            }
        };
        for (int i = 0; i < 1500; i++) {
            int cell = allocate.getAsInt();
            assertThat(readsZero(cells, cell)).isTrue();
            fill(cells, cell, (byte) 9);
            handedOut.add(cell);
        }
        for (int i = 0; i < 1500; i += 3) {
            cells.recycle(handedOut.get(i));
        }
        cells.collect();
        for (int i = 0; i < 700; i++) {
            int cell = allocate.getAsInt();
            assertThat(readsZero(cells, cell)).isTrue();
            handedOut.add(cell);
        }
        return failures[0];
    }

    @Test
    void unallocateRightAfterTheFirstAllocateRestoresEverythingAndFreesTheNewChunks() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8);
        NodeManagerMetrics before = cells.metrics();

        int cell = cells.allocate();
        fill(cells, cell, (byte) 3);
        cells.unallocate(cell);

        assertThat(cells.metrics()).isEqualTo(before);
        assertThat(pool.metrics()).isEqualTo(new MemoryPool.PoolMetrics(MemoryPool.UNLIMITED, 0, 0, 0));
        assertThat(cells.allocate()).isEqualTo(cell);
        assertThat(readsZero(cells, cell)).isTrue();
    }

    @Test
    void unallocateInReverseOrderUndoesAllocationsThatCrossedChunksAndRefills() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 2);
        for (int i = 0; i < 63; i++) {
            cells.allocate();
        }
        NodeManagerMetrics before = cells.metrics();
        MemoryPool.PoolMetrics poolBefore = pool.metrics();

        // Cell 63 is the last of the first data chunk; 64 and 65 need a new chunk and another refill.
        int a = cells.allocate();
        int b = cells.allocate();
        int c = cells.allocate();
        assertThat(List.of(a, b, c)).containsExactly(63, 64, 65);
        assertThat(cells.metrics().chunks()).isEqualTo(before.chunks() + 1);
        cells.unallocate(c);
        cells.unallocate(b);
        cells.unallocate(a);

        assertThat(cells.metrics()).isEqualTo(before);
        assertThat(pool.metrics()).isEqualTo(poolBefore);
    }

    @Test
    void unallocateUndoesARefillFromTheFreeList() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 4);
        for (int i = 0; i < 12; i++) {
            cells.allocate();
        }
        for (int i = 0; i < 12; i++) {
            cells.recycle(i);
        }
        cells.collect();
        NodeManagerMetrics before = cells.metrics();
        assertThat(before.freeListLength()).isEqualTo(12);

        int cell = cells.allocate();
        assertThat(cells.metrics().freeListCursor()).isEqualTo(4);
        cells.unallocate(cell);

        assertThat(cells.metrics()).isEqualTo(before);
    }

    @Test
    void unallocateOutOfOrderKeepsTheCellFreeAndNeverHandsItOutTwice() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 4);
        int a = cells.allocate();
        int b = cells.allocate();
        fill(cells, a, (byte) 5);

        cells.unallocate(a);

        NodeManagerMetrics after = cells.metrics();
        assertThat(after.cellsInUse()).isEqualTo(1);
        assertThat(after.cellsAllocated()).isEqualTo(after.cellsInUse() + after.cellsFree() + after.cellsRecycled());
        Set<Integer> next = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            int cell = cells.allocate();
            assertThat(readsZero(cells, cell)).isTrue();
            next.add(cell);
        }
        assertThat(next).contains(a).doesNotContain(b).hasSize(10);
    }

    @Test
    void unallocateAfterAnotherThreadGrewKeepsTheCellInTheCacheAndLosesNothing() throws Exception {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 1);
        int mine = cells.allocate();
        int[] theirs = new int[1];
        Thread other = new Thread(() -> theirs[0] = cells.allocate());
        other.start();
        other.join(10_000);
        assertThat(other.isAlive()).isFalse();

        cells.unallocate(mine);

        // Not exact (the data list cannot shrink under the other thread's cell), but nothing is lost.
        assertThat(cells.metrics()).isEqualTo(m(2, 1, 1, 1, 0, 0, 0, 3, 12_288, 4096));
        assertThat(cells.allocate()).isEqualTo(mine);
        assertThat(theirs[0]).isNotEqualTo(mine);
        cells.recycle(mine);
        cells.recycle(theirs[0]);
        cells.collect();
        assertThat(cells.metrics()).isEqualTo(m(2, 0, 2, 0, 0, 2, 0, 3, 12_288, 4096));
    }

    @Test
    void collectDrainsTheCachesOfThreadsThatEnded() throws Exception {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 8);
        Thread worker = new Thread(cells::allocate);
        worker.start();
        worker.join(10_000);
        assertThat(worker.isAlive()).isFalse();
        assertThat(cells.metrics()).isEqualTo(m(8, 1, 7, 7, 0, 0, 0, 3, 12_288, 4096));

        cells.collect();

        assertThat(cells.metrics()).isEqualTo(m(8, 1, 7, 0, 0, 7, 0, 3, 12_288, 4096));
        Set<Integer> mine = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            mine.add(cells.allocate());
        }
        assertThat(mine).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void cellIndicesOutsideTheManagerAreRejected() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 1);
        cells.allocate();
        assertThatThrownBy(() -> cells.recycle(1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("index=1");
        assertThatThrownBy(() -> cells.recycle(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cells.unallocate(7)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new NodeManager(pool, OWNER, 64, 8, NodeManager.MAX_CACHE_BATCH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cacheBatch=" + (NodeManager.MAX_CACHE_BATCH + 1));
    }

    @Test
    void collectRefusesADoubleRecycleAndChangesNothing() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8, 1);
        cells.allocate();
        cells.recycle(0);
        cells.recycle(0);
        NodeManagerMetrics before = cells.metrics();
        assertThatThrownBy(cells::collect).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recycled twice");
        assertThat(cells.metrics()).isEqualTo(before);
    }

    @Test
    void useAfterCloseThrowsIllegalStateNeverCrashes() {
        NodeManager cells = new NodeManager(pool, OWNER, 64, 8);
        int cell = cells.allocate();
        MemorySegment chunk = cells.cellChunk(cell);
        cells.close();

        assertThat(pool.bytesReserved()).isZero();
        assertThatThrownBy(cells::allocate).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> cells.recycle(cell)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(cells::collect).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> chunk.get(ValueLayout.JAVA_LONG, cells.cellOffset(cell)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cells.cellChunk(cell)).isInstanceOf(IllegalStateException.class);
        cells.close();
    }

    @Test
    void closingThePoolMakesItsManagersThrowIllegalState() {
        MemoryPool other = new MemoryPool(MemoryPool.UNLIMITED);
        NodeManager cells = new NodeManager(other, OWNER, 64, 8);
        int cell = cells.allocate();
        MemorySegment chunk = cells.cellChunk(cell);
        other.close();

        assertThatThrownBy(cells::allocate).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> chunk.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        cells.close();
    }

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 8, 32})
    void concurrentAllocationsGetDistinctZeroedCellsAndTheCountersAddUp(int threads) throws Exception {
        NodeManager cells = new NodeManager(pool, OWNER, 16, 8);
        int perThread = 20_000;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            // Round 1: allocate, mark, recycle every other cell, unallocate some right away.
            List<int[]> round1 = runConcurrently(executor, threads, t -> {
                int[] kept = new int[perThread];
                for (int i = 0; i < perThread; i++) {
                    int cell = cells.allocate();
                    assertThat(readsZero(cells, cell)).isTrue();
                    cells.cellChunk(cell).set(ValueLayout.JAVA_INT, cells.cellOffset(cell), t + 1);
                    if (i % 7 == 0) {
                        int spare = cells.allocate();
                        cells.unallocate(spare);
                    }
                    kept[i] = cell;
                }
                for (int i = 0; i < perThread; i += 2) {
                    cells.recycle(kept[i]);
                }
                return kept;
            });
            Set<Integer> all = new HashSet<>();
            for (int t = 0; t < threads; t++) {
                for (int cell : round1.get(t)) {
                    assertThat(all.add(cell)).as("cell %d handed out twice", cell).isTrue();
                    assertThat(cells.cellChunk(cell).get(ValueLayout.JAVA_INT, cells.cellOffset(cell))).isEqualTo(t + 1);
                }
            }
            long total = (long) threads * perThread;
            NodeManagerMetrics afterRound1 = cells.metrics();
            assertThat(afterRound1.cellsRecycled()).isEqualTo(total / 2);
            assertThat(afterRound1.cellsInUse()).isEqualTo(total - total / 2);
            assertThat(afterRound1.cellsAllocated())
                    .isEqualTo(afterRound1.cellsInUse() + afterRound1.cellsFree() + afterRound1.cellsRecycled());
            assertThat(afterRound1.cellsCached()).isLessThanOrEqualTo((long) threads * 2 * cells.cacheBatch());

            cells.collect();
            NodeManagerMetrics collected = cells.metrics();
            assertThat(collected.cellsRecycled()).isZero();
            assertThat(collected.cellsCached()).isZero();
            assertThat(collected.cellsFree()).isEqualTo(afterRound1.cellsFree() + afterRound1.cellsRecycled());
            assertThat(collected.cellsInUse()).isEqualTo(afterRound1.cellsInUse());

            // Round 2: reused cells read zero and never collide with cells still in use.
            Set<Integer> stillInUse = new HashSet<>();
            for (int[] kept : round1) {
                for (int i = 1; i < kept.length; i += 2) {
                    stillInUse.add(kept[i]);
                }
            }
            List<int[]> round2 = runConcurrently(executor, threads, t -> {
                int[] got = new int[perThread / 2];
                for (int i = 0; i < got.length; i++) {
                    got[i] = cells.allocate();
                    assertThat(readsZero(cells, got[i])).isTrue();
                }
                return got;
            });
            Set<Integer> second = new HashSet<>();
            for (int[] got : round2) {
                for (int cell : got) {
                    assertThat(second.add(cell)).as("cell %d handed out twice", cell).isTrue();
                    assertThat(stillInUse.contains(cell)).as("cell %d is still in use", cell).isFalse();
                }
            }
            NodeManagerMetrics end = cells.metrics();
            assertThat(end.cellsInUse()).isEqualTo(total);
            assertThat(end.cellsAllocated()).isEqualTo(end.cellsInUse() + end.cellsFree() + end.cellsRecycled());
            // Reuse before growth: round 2 needed no more cells than round 1 freed, so at most
            // the cached remainders (per thread) came from growth.
            assertThat(end.cellsAllocated() - collected.cellsAllocated())
                    .isLessThanOrEqualTo((long) threads * cells.cacheBatch());
        } finally {
            executor.shutdownNow();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private interface Work {
        int[] run(int thread) throws Exception;
    }

    private static List<int[]> runConcurrently(ExecutorService executor, int threads, Work work) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        CountDownLatch done = new CountDownLatch(threads);
        List<Future<int[]>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(executor.submit(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                    return work.run(thread);
                } finally {
                    done.countDown();
                }
            }));
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        List<int[]> results = new ArrayList<>();
        for (Future<int[]> f : futures) {
            results.add(f.get(1, TimeUnit.SECONDS));
        }
        return results;
    }

    static boolean readsZero(NodeManager cells, int cell) {
        MemorySegment chunk = cells.cellChunk(cell);
        long offset = cells.cellOffset(cell);
        for (long i = 0; i < cells.cellStride(); i++) {
            if (chunk.get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }

    static void fill(NodeManager cells, int cell, byte value) {
        cells.cellChunk(cell).asSlice(cells.cellOffset(cell), cells.cellSize()).fill(value);
    }

    private static byte cellByte(NodeManager cells, int cell) {
        return cells.cellChunk(cell).get(ValueLayout.JAVA_BYTE, cells.cellOffset(cell));
    }
}
