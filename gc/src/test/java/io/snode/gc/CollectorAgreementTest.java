package io.snode.gc;

import static io.snode.gc.ManagerStates.freeEntries;
import static io.snode.gc.ManagerStates.isZero;
import static io.snode.gc.ManagerStates.memory;
import static io.snode.gc.ManagerStates.recycledEntries;
import static io.snode.gc.ManagerStates.sorted;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.runtime.Collector;
import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.memory.NodeManagerMetrics;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The serial collector, parallel ones (tiny grains, so every state is cut into many tasks;
 * vector and scalar kernels; recycling order and sorted refill) and the runtime's
 * {@link Collector#SERIAL} agree on 1,000 random states: the same free-list
 * multiset (serial: the same order as {@code NodeManager.collect}), the same memory, and every
 * recycled cell reads zero; reused cells come out zeroed.
 */
class CollectorAgreementTest {

    private static final int STATES = 1_000;
    private static final ExecutorService OTHER = Executors.newSingleThreadExecutor();

    @AfterAll
    static void shutdown() throws InterruptedException {
        OTHER.shutdown();
        assertThat(OTHER.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void serialParallelAndTheRuntimesCollectorAgreeOnRandomStates() {
        try (SerialCollector serial = ThreePhaseCollector.serial();
             ParallelCollector parallel = ParallelCollector.builder().parallelism(3).copyGrain(1).zeroGrainBytes(1)
                     .sortRecycledAtLeast(Long.MAX_VALUE).build();
             ParallelCollector sorting = ParallelCollector.builder().parallelism(2).copyGrain(2).zeroGrainBytes(64)
                     .sortRecycledAtLeast(1).build();
             ParallelCollector scalarParallel = ParallelCollector.builder().parallelism(2).copyGrain(3)
                     .zeroGrainBytes(100).vectorization(Vectorization.SCALAR).build()) {
            long recycledSeen = 0;
            long overlapCases = 0;
            long disjointCases = 0;
            for (long seed = 0; seed < STATES; seed++) {
                // One pool per state; a pool of its own per manager would only cost time.
                try (MemoryPool pool = new MemoryPool(MemoryAllocator.arenaPerChunk(), MemoryPool.UNLIMITED)) {
                    NodeManager reference = ManagerStates.random(pool, seed, OTHER);
                    NodeManager bySerial = ManagerStates.random(pool, seed, OTHER);
                    NodeManager byParallel = ManagerStates.random(pool, seed, OTHER);
                    NodeManager byScalar = ManagerStates.random(pool, seed, OTHER);
                    NodeManager bySorting = ManagerStates.random(pool, seed, OTHER);
                    assertThat(memory(bySerial)).isEqualTo(memory(reference));

                    NodeManagerMetrics before = reference.metrics();
                    int[] recycled = recycledEntries(reference, before.cellsRecycled());
                    recycledSeen += recycled.length;
                    if (before.freeListCursor() > 0 && before.freeListLength() > before.freeListCursor()) {
                        if (2 * before.freeListCursor() > before.freeListLength()) {
                            disjointCases++;
                        } else {
                            overlapCases++;
                        }
                    }

                    Collector.SERIAL.collect(List.of(reference));
                    serial.collect(List.of(bySerial));
                    parallel.collect(List.of(byParallel));
                    scalarParallel.collect(List.of(byScalar));
                    sorting.collect(List.of(bySorting));

                    String state = "seed=" + seed + " before=" + before;
                    NodeManagerMetrics after = reference.metrics();
                    assertThat(bySerial.metrics()).as(state).isEqualTo(after);
                    assertThat(byParallel.metrics()).as(state).isEqualTo(after);
                    assertThat(byScalar.metrics()).as(state).isEqualTo(after);
                    assertThat(bySorting.metrics()).as(state).isEqualTo(after);
                    assertThat(freeEntries(bySerial)).as(state).containsExactly(freeEntries(reference));
                    assertThat(sorted(freeEntries(byParallel))).as(state).containsExactly(sorted(freeEntries(reference)));
                    assertThat(sorted(freeEntries(byScalar))).as(state).containsExactly(sorted(freeEntries(reference)));
                    assertThat(sorted(freeEntries(bySorting))).as(state).containsExactly(sorted(freeEntries(reference)));
                    int[] sortingFree = freeEntries(bySorting);
                    int[] appended = java.util.Arrays.copyOfRange(sortingFree, sortingFree.length - recycled.length,
                            sortingFree.length);
                    assertThat(appended).as(state + " appended in index order").containsExactly(sorted(recycled));
                    byte[] expected = memory(reference);
                    assertThat(memory(bySerial)).as(state).isEqualTo(expected);
                    assertThat(memory(byParallel)).as(state).isEqualTo(expected);
                    assertThat(memory(byScalar)).as(state).isEqualTo(expected);
                    assertThat(memory(bySorting)).as(state).isEqualTo(expected);
                    for (int cell : recycled) {
                        assertThat(isZero(byParallel, cell)).as(state + " cell=" + cell).isTrue();
                    }
                    assertThat(parallel.lastStatistics().cellsReclaimed()).isEqualTo(recycled.length);
                    assertThat(parallel.lastStatistics().bytesZeroed()).isEqualTo(recycled.length * reference.cellStride());

                    // Reuse: every cell handed out now reads zero in every byte.
                    long free = after.cellsFree();
                    for (long i = 0; i < free; i++) {
                        int cell = byParallel.allocate();
                        assertThat(isZero(byParallel, cell)).as(state + " reused cell=" + cell).isTrue();
                    }
                }
            }
            // The random states cover what they are meant to cover.
            assertThat(recycledSeen).isGreaterThan(10_000);
            assertThat(overlapCases).isGreaterThan(50);
            assertThat(disjointCases).isGreaterThan(50);
        }
    }
}
