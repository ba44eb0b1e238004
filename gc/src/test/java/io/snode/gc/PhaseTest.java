package io.snode.gc;

import static io.snode.gc.ManagerStates.build;
import static io.snode.gc.ManagerStates.entries;
import static io.snode.gc.ManagerStates.isZero;
import static io.snode.gc.ManagerStates.recycledEntries;
import static io.snode.gc.ManagerStates.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.gc.internal.CellIndexSort;
import io.snode.gc.internal.ManagerCollection;
import io.snode.gc.internal.ManagerCollection.Compaction;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.vectorization.GcKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Exact free-list contents after each phase, on hand-built states. */
class PhaseTest {

    private static final ForkJoinPool POOL = new ForkJoinPool(3);
    /** Three threads, one entry per task: every sub-range boundary is exercised. */
    private static final TaskRunner PARALLEL = TaskRunner.forkJoin(POOL);
    private static final GcKernels KERNELS = VectorizationProvider.getInstance().gcKernels();

    private final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);

    @AfterEach
    void closePool() {
        pool.close();
    }

    @AfterAll
    static void closeForkJoin() {
        POOL.shutdown();
    }

    /** Cells 0..19; free entries 10..19 in order. */
    private NodeManager twentyCells(int cursor, int... recycled) {
        return build(pool, "m", 16, 20, IntStream.rangeClosed(10, 19).toArray(), cursor, recycled);
    }

    private static ManagerCollection phase0(NodeManager m, Compaction compaction) {
        ManagerCollection c = ManagerCollection.begin(m);
        c.phase0(KERNELS, PARALLEL, compaction, 1);
        return c;
    }

    @Test
    void phase0WithoutOverlapCopiesTheTailAsItIs() {
        // Used U=6 > tail T=4: source [6, 10) and destination [0, 4) are disjoint.
        NodeManager m = twentyCells(6);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        assertThat(c.freeTail()).isEqualTo(4);
        assertThat(entries(m, 10)).containsExactly(16, 17, 18, 19, 14, 15, 16, 17, 18, 19);
        assertThat(c.statistics().freeEntriesMoved()).isEqualTo(4);
    }

    @Test
    void phase0WithOverlapMovesOnlyTheLastUsedEntriesIntoTheTakenSlots() {
        // U=2 <= T=8: a plain move would overlap; the last two entries go to [0, 2), [2, 8) stay.
        NodeManager m = twentyCells(2);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        assertThat(c.freeTail()).isEqualTo(8);
        assertThat(entries(m, 10)).containsExactly(18, 19, 12, 13, 14, 15, 16, 17, 18, 19);
        assertThat(sorted(entries(m, 8))).containsExactly(12, 13, 14, 15, 16, 17, 18, 19);
        assertThat(c.statistics().freeEntriesMoved()).isEqualTo(2);
    }

    @Test
    void phase0AtExactlyHalfUsedTakesTheOverlapBranchAndKeepsTheOrder() {
        NodeManager m = twentyCells(5);
        phase0(m, Compaction.OVERLAP_AWARE);
        assertThat(entries(m, 10)).containsExactly(15, 16, 17, 18, 19, 15, 16, 17, 18, 19);
    }

    @Test
    void orderedPhase0IsAForwardMemmove() {
        NodeManager m = twentyCells(2);
        phase0(m, Compaction.ORDERED);
        assertThat(entries(m, 10)).containsExactly(12, 13, 14, 15, 16, 17, 18, 19, 18, 19);
    }

    @Test
    void phase0WithNothingUsedOrNothingLeftMovesNothing() {
        NodeManager none = twentyCells(0);
        assertThat(phase0(none, Compaction.OVERLAP_AWARE).statistics().freeEntriesMoved()).isZero();
        assertThat(entries(none, 10)).containsExactly(10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        NodeManager all = twentyCells(10);
        ManagerCollection c = phase0(all, Compaction.OVERLAP_AWARE);
        assertThat(c.freeTail()).isZero();
        assertThat(c.statistics().freeEntriesMoved()).isZero();
    }

    @Test
    void phase0DrainsTheThreadCacheFirst() {
        // Batch 4: the first allocation takes free entries [0, 4) into the cache and hands out 5;
        // draining puts 6, 7, 8 back just below the cursor, which falls to 1.
        NodeManager m = new NodeManager(pool, "cached", 16, 8, 4);
        for (int i = 0; i < 12; i++) {
            assertThat(m.allocate()).isEqualTo(i);
        }
        int[] cells = {5, 6, 7, 8, 9, 10};
        for (int c : cells) {
            m.recycle(c);
        }
        m.collect();
        assertThat(m.allocate()).isEqualTo(5);
        assertThat(m.metrics().cellsCached()).isEqualTo(3);

        ManagerCollection c = ManagerCollection.begin(m);
        c.phase0(KERNELS, PARALLEL, Compaction.OVERLAP_AWARE, 1);
        // After the drain: [5, 6, 7, 8, 9, 10] with cursor 1; U=1 <= T=5: entry 5 (10) moves to 0.
        assertThat(c.freeTail()).isEqualTo(5);
        assertThat(entries(m, 6)).containsExactly(10, 6, 7, 8, 9, 10);
        assertThat(m.metrics().cellsCached()).isZero();
        assertThat(c.statistics().cachedCellsDrained()).isEqualTo(3);
    }

    @Test
    void phase1ShrinksTheFreeListResetsTheCursorAndClearsTheRecycledListLazily() {
        NodeManager m = twentyCells(6, 3, 1, 12);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        c.phase1();
        assertThat(m.freeListLength()).isEqualTo(4);
        assertThat(m.freeListCursor()).isZero();
        assertThat(m.recycledListLength()).isZero();
        assertThat(c.recycledCount()).isEqualTo(3);
        assertThat(recycledEntries(m, 3)).containsExactly(3, 1, 12);
        assertThat(entries(m, 4)).containsExactly(16, 17, 18, 19);
    }

    @Test
    void phase2AppendsTheRecycledEntriesInOrderAndZeroesOnlyThoseCells() {
        int[] recycled = {3, 1, 12, 4, 5, 0};
        NodeManager m = twentyCells(6, recycled);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        c.phase1();
        c.phase2(KERNELS, PARALLEL, 1);
        assertThat(m.freeListLength()).isEqualTo(10);
        assertThat(m.freeListCursor()).isZero();
        assertThat(entries(m, 10)).containsExactly(16, 17, 18, 19, 3, 1, 12, 4, 5, 0);
        for (int cell = 0; cell < 20; cell++) {
            int c0 = cell;
            boolean wasRecycled = IntStream.of(recycled).anyMatch(r -> r == c0);
            boolean wasFree = cell >= 16;
            assertThat(isZero(m, cell)).as("cell %d", cell).isEqualTo(wasRecycled || wasFree);
        }
        assertThat(c.statistics()).isEqualTo(new SNodeGcStatistics("m", 16, 6, 96, 0, 4, 10,
                c.statistics().phase0Nanos(), c.statistics().phase1Nanos(), c.statistics().phase2Nanos()));
        assertThat(m.metrics().cellsFree()).isEqualTo(10);
        assertThat(m.metrics().cellsRecycled()).isZero();
    }

    @Test
    void sortedPhase2AppendsTheRecycledEntriesInIndexOrder() {
        int[] recycled = {3, 1, 12, 4, 5, 0};
        NodeManager m = twentyCells(6, recycled);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        c.phase1();
        c.phase2(KERNELS, PARALLEL, 1, new CellIndexSort(), 2);
        assertThat(entries(m, 10)).containsExactly(16, 17, 18, 19, 0, 1, 3, 4, 5, 12);
        assertThat(recycledEntries(m, 6)).as("the recycled entries are not reordered").containsExactly(recycled);
        for (int cell : recycled) {
            assertThat(isZero(m, cell)).isTrue();
        }
        assertThat(isZero(m, 2)).isFalse();
        assertThat(isZero(m, 13)).isFalse();
    }

    @Test
    void belowTheSortThresholdRecyclingOrderIsKept() {
        NodeManager m = twentyCells(6, 3, 1, 12);
        ManagerCollection c = phase0(m, Compaction.OVERLAP_AWARE);
        c.phase1();
        c.phase2(KERNELS, PARALLEL, 1, new CellIndexSort(), 4);
        assertThat(entries(m, 7)).containsExactly(16, 17, 18, 19, 3, 1, 12);
    }

    @Test
    void theSameStateCollectedByAllThreePhasesMatchesNodeManagerCollect() {
        int[] recycled = {0, 9, 2, 13, 11};
        NodeManager ours = twentyCells(3, recycled);
        NodeManager reference = build(pool, "reference", 16, 20, IntStream.rangeClosed(10, 19).toArray(), 3, recycled);
        ManagerCollection c = ManagerCollection.begin(ours);
        c.phase0(KERNELS, TaskRunner.inline(), Compaction.ORDERED, 1);
        c.phase1();
        c.phase2(KERNELS, TaskRunner.inline(), 1);
        reference.collect();
        assertThat(ManagerStates.freeEntries(ours)).containsExactly(ManagerStates.freeEntries(reference));
        assertThat(ManagerStates.memory(ours)).isEqualTo(ManagerStates.memory(reference));
    }

    @Test
    void aCellRecycledTwiceIsRefusedBeforeAnythingChanges() {
        // 16 cells in use, 4 free: recycling every cell in use and one free cell makes 21 of 20.
        NodeManager m = twentyCells(6, IntStream.range(0, 16).toArray());
        m.recycle(17);
        int[] before = ManagerStates.freeEntries(m);
        assertThatThrownBy(() -> ManagerCollection.begin(m))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recycled twice");
        assertThat(ManagerStates.freeEntries(m)).containsExactly(before);
        assertThat(m.freeListCursor()).isEqualTo(6);
    }

    @Test
    void phasesMustRunInOrderOnce() {
        NodeManager m = twentyCells(6);
        ManagerCollection c = ManagerCollection.begin(m);
        assertThatThrownBy(c::phase1).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("phase 1").hasMessageContaining("phase 0 is next");
        c.phase0(KERNELS, PARALLEL, Compaction.OVERLAP_AWARE, 1);
        assertThatThrownBy(() -> c.phase0(KERNELS, PARALLEL, Compaction.OVERLAP_AWARE, 1))
                .isInstanceOf(IllegalStateException.class);
    }
}
