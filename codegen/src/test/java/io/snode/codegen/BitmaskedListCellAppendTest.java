package io.snode.codegen;

import static io.snode.codegen.testing.AllocationRefusals.isRefusal;
import static io.snode.codegen.testing.AllocationRefusals.refusedAtAllocation;
import static io.snode.codegen.testing.Disassembly.method;
import static io.snode.codegen.testing.ListAppends.append;
import static io.snode.codegen.testing.ListAppends.lists;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.testing.HeapAllocations;
import io.snode.codegen.testing.ListAppends.Lists;
import io.snode.codegen.testing.ListAppends;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.RuntimeOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Appends to the list of a bitmasked cell whose bit is clear (the list's parent step is
 * bitmasked, or only dense steps lie between them): the generated append publishes the list's
 * first chunk and then sets the bit itself ({@code GeneratedCalls.activateListCell}) instead of
 * going to the runtime's append from the root (its coordinates' array, a {@code Location}, an
 * {@code Activation}), and a bulk append does the same before its runs
 * ({@code NodeTree.locateOrActivateListBlock}); where the upper (pointer) cell above the bitmasked
 * cell is inactive too, both publish its new block with the cell's bit set and the list's first
 * chunk in it ({@code GeneratedCalls.activateListCellBlock}); a retired list (its cell deactivated before)
 * still goes there, to be reopened. Nothing is allocated on the Java heap; a refused first chunk (memory cap, allocator
 * fault) leaves the cell (and a new upper cell) inactive and nothing in use; a lost race for the chunk (or the block) hands it back;
 * with threads, refusals and deactivations, the calls that returned are what the lists hold.
 */
class BitmaskedListCellAppendTest {
    /** A list in each bitmasked cell: 4^3 upper cells of 4^3 bitmasked cells. */
    static final Layout CELLS = Layout.parse("pointer(ijk,4).bitmasked(ijk,4).dynamic(l,40,8).place(i32 id)");
    /** 2^3 lists below a dense level in each bitmasked cell. */
    static final Layout DENSE = Layout.parse("pointer(ijk,4).bitmasked(ijk,2).dense(ijk,2).dynamic(l,40,8).place(i32 id)");
    /** A dense level between the upper cells and the bitmasked ones: a list in each bitmasked cell. */
    static final Layout ABOVE = Layout.parse("pointer(ijk,4).dense(ijk,2).bitmasked(ijk,2).dynamic(l,40,8).place(i32 id)");

    private static Layout layout(String name) {
        return switch (name) {
            case "cells" -> CELLS;
            case "dense" -> DENSE;
            default -> ABOVE;
        };
    }

    private static SNode bitmasked(Layout layout) {
        return layout == ABOVE ? layout.snode(3) : layout.snode(2);
    }

    private static SNode upper(Layout layout) {
        return layout.snode(1);
    }

    private static SNode list(Layout layout) {
        return layout.field("id").snode();
    }

    private static long cellsInUse(SNodeRuntime rt, SNode snode) {
        return rt.memoryStats().of(snode).cells().cellsInUse();
    }



    /** The bitmasked cell of list (i, j, k), in the bitmasked SNode's coordinates. */
    private static int[] cellOf(Layout layout, int i, int j, int k) {
        int shift = layout == DENSE ? 1 : 0;
        return new int[] {i >> shift, j >> shift, k >> shift};
    }

    @ParameterizedTest
    @ValueSource(strings = {"cells", "dense", "above"})
    void theGeneratedAppendActivatesTheBitmaskedCellItself(String name) {
        try (SNodeRuntime rt = SNodeRuntime.compile(layout(name))) {
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static append_id(IIII)J")).containsSubsequence("GeneratedCalls.maskBit (",
                    "GeneratedCalls.tryAppend (", "GeneratedCalls.activateListCellBlock (",
                    "GeneratedCalls.activateListCell (", "GeneratedCalls.appendAt (");
        }
    }

    /**
     * Appends to random lists, with random bitmasked cells deactivated between the appends (their
     * lists retired: the next append reopens them through the runtime), over three rounds on an
     * emptied and collected runtime: every list holds the model's elements in order, the cells
     * with an element are active, the chunks the lengths need are in use, a full list refuses.
     */
    @ParameterizedTest
    @CsvSource({"cells, bind", "cells, accessor", "cells, bulk", "dense, bind", "dense, accessor", "dense, bulk",
            "above, bind", "above, bulk"})
    void appendsToInactiveCellsMatchTheModel(String name, String api) {
        Layout layout = layout(name);
        Random random = new Random(name.hashCode() * 31 + api.hashCode());
        SNode list = list(layout);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Lists lists = lists(rt, api);
            Lists reader = rt.bind(Lists.class);
            for (int round = 0; round < 3; round++) {
                Map<List<Integer>, List<Integer>> model = new HashMap<>();
                long full = 0;
                for (int n = 0; n < 1500; n++) {
                    boolean hot = random.nextInt(4) == 0;
                    int i = hot ? random.nextInt(2) : random.nextInt(8);
                    int j = hot ? 0 : random.nextInt(8);
                    int k = hot ? 0 : random.nextInt(4);
                    if (random.nextInt(40) == 0) {
                        int[] cell = cellOf(layout, i, j, k);
                        rt.generic().deactivate(bitmasked(layout), cell[0], cell[1], cell[2]);
                        model.keySet().removeIf(at -> Arrays.equals(cellOf(layout, at.get(0), at.get(1), at.get(2)), cell));
                    }
                    int id = round * 10_000 + n;
                    List<Integer> elements = model.computeIfAbsent(List.of(i, j, k), key -> new ArrayList<>());
                    if (elements.size() == 40) {
                        full++;
                        try {
                            append(rt, lists, api, i, j, k, id);
                            throw new AssertionError("list " + List.of(i, j, k) + " took a 41st element");
                        } catch (DynamicListFullException expected) {
                            continue;
                        }
                    }
                    assertThat(append(rt, lists, api, i, j, k, id)).as("list %s", List.of(i, j, k)).isEqualTo(elements.size());
                    elements.add(id);
                }
                long chunks = 0;
                long total = 0;
                for (Map.Entry<List<Integer>, List<Integer>> entry : model.entrySet()) {
                    List<Integer> at = entry.getKey();
                    List<Integer> elements = entry.getValue();
                    assertThat(rt.generic().length(list, at.get(0), at.get(1), at.get(2))).as("list %s", at)
                            .isEqualTo(elements.size());
                    for (int n = 0; n < elements.size(); n++) {
                        assertThat(reader.id(at.get(0), at.get(1), at.get(2), n)).isEqualTo(elements.get(n));
                    }
                    int[] cell = cellOf(layout, at.get(0), at.get(1), at.get(2));
                    if (!elements.isEmpty()) {
                        assertThat(rt.generic().isActive(bitmasked(layout), cell[0], cell[1], cell[2])).isTrue();
                    }
                    chunks += (elements.size() + 7) / 8;
                    total += elements.size();
                }
                assertThat(rt.count("id")).isEqualTo(total);
                assertThat(cellsInUse(rt, list)).as("chunks").isEqualTo(chunks);
                assertThat(full).as("appends to a full list, round %d", round).isPositive();
                rt.deactivateAll(layout.root());
                rt.gc();
                assertThat(cellsInUse(rt, list)).isZero();
            }
        }
    }

    /**
     * Appends to the lists of 512 inactive bitmasked cells, then more to the same lists, allocate
     * nothing on the Java heap: with {@code spread} 1, cells (i, j, k) below 8 in 8 upper cells
     * that the preparation activated (each cell took the runtime's append before
     * {@code activateListCell}); with {@code spread} 2, cells (2i, 2j, 2k) in 64 inactive upper
     * cells, whose first append makes the new block with its cell active and the list's first
     * chunk in it ({@code activateListCellBlock}; each took the runtime's append before). Counted
     * with the thread's allocated bytes after two passes that compiled the code and filled the
     * free lists.
     */
    @ParameterizedTest
    @CsvSource({"cells, 1, bind", "cells, 1, accessor", "cells, 2, bind", "cells, 2, accessor", "dense, 2, bind",
            "above, 2, bind", "above, 2, accessor"})
    void appendsToInactiveCellsAllocateNothingOnTheJavaHeap(String name, int spread, String api) throws Throwable {
        Layout layout = layout(name);
        SNode list = list(layout);
        int last = 7 * spread;
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Lists lists = lists(rt, api);
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> {
                for (int u = 0; spread == 1 && u < 8; u++) {
                    rt.generic().activate(upper(layout), u & 1, (u >> 1) & 1, u >> 2);
                }
            }, () -> {
                for (int n = 0; n < 3; n++) {
                    for (int c = 0; c < 512; c++) {
                        lists.appendId(spread * (c & 7), spread * ((c >> 3) & 7), spread * (c >> 6), c * 10 + n);
                    }
                }
            });
            assertThat(cellsInUse(rt, upper(layout))).as("upper cells").isEqualTo(spread == 1 ? 8 : 64);
            assertThat(cellsInUse(rt, list)).as("one chunk for each list").isEqualTo(512);
            assertThat(rt.generic().length(list, last, last, last)).isEqualTo(3);
            assertThat(lists.id(last, last, last, 2)).isEqualTo(511 * 10 + 2);
            int[] cell = cellOf(layout, last, last, last);
            assertThat(rt.generic().isActive(bitmasked(layout), cell[0], cell[1], cell[2])).isTrue();
            assertThat(rt.count("id")).isEqualTo(3 * 512);
            assertThat(allocated).as("bytes allocated for appends to 512 inactive cells").isLessThan(4096);
        }
    }

    /**
     * A refused new upper cell (its block's allocation, or its list's first chunk's) leaves the
     * upper cell inactive, no cell in use and no activation counted; after the refusals end the
     * same append succeeds with the cell active.
     */
    @ParameterizedTest
    @CsvSource({"cap, bind", "fault, bind", "cap, accessor", "fault, accessor", "cap, bulk", "fault, bulk"})
    void aRefusedNewUpperCellChangesNothing(String failure, String api) {
        SNode list = list(CELLS);
        SNode cell = bitmasked(CELLS);
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Lists lists = lists(rt, api);
            assertThat(append(rt, lists, api, 0, 0, 0, 1)).isZero();
            for (int nth = 1; nth <= 2; nth++) { // the block, then the list's first chunk
                refusedAtAllocation(rt, failure, nth, () -> append(rt, lists, api, 13, 9, 5, 7));
                assertThat(rt.generic().isActive(upper(CELLS), 3, 2, 1)).isFalse();
                assertThat(cellsInUse(rt, upper(CELLS))).isEqualTo(1);
                assertThat(cellsInUse(rt, list)).isEqualTo(1);
                assertThat(rt.count("id")).isEqualTo(1);
            }
            assertThat(append(rt, lists, api, 13, 9, 5, 7)).isZero();
            assertThat(append(rt, lists, api, 13, 9, 5, 8)).isEqualTo(1);
            assertThat(rt.generic().isActive(cell, 13, 9, 5)).isTrue();
            assertThat(rt.generic().isActive(cell, 13, 9, 4)).as("another cell of the new upper cell").isFalse();
            assertThat(cellsInUse(rt, upper(CELLS))).isEqualTo(2);
            assertThat(cellsInUse(rt, list)).isEqualTo(2);
            assertThat(rt.bind(Lists.class).id(13, 9, 5, 1)).isEqualTo(8);
        }
    }

    /**
     * The race made deterministic: while an append to the list of a cell in an inactive upper
     * cell allocates the new block, an append to another cell's list in the same upper cell (same
     * thread, from the allocation probe) publishes the block; the first loses, hands its block and
     * chunk back, and finds its own cell inactive in the winner's block: it activates it there
     * with its list's first chunk, and takes index 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor", "bulk"})
    void aLostRaceForTheNewUpperCellAppendsInTheWinnersBlock(String api) {
        SNode list = list(CELLS);
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Lists lists = lists(rt, api);
            Lists other = rt.bind(Lists.class);
            append(rt, lists, api, 0, 0, 0, 1);
            AtomicBoolean inside = new AtomicBoolean();
            AtomicLong winnersIndex = new AtomicLong(-1);
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    winnersIndex.set(other.appendId(13, 9, 6, 50));
                }
            });
            try {
                assertThat(append(rt, lists, api, 13, 9, 5, 51)).isZero();
            } finally {
                rt.generic().internalTree().probeAllocations(null);
            }
            assertThat(inside).isTrue();
            assertThat(winnersIndex).hasValue(0);
            assertThat(cellsInUse(rt, upper(CELLS))).as("the loser's block went back").isEqualTo(2);
            assertThat(cellsInUse(rt, list)).as("one chunk per list: the loser's first went back").isEqualTo(3);
            assertThat(other.id(13, 9, 6, 0)).isEqualTo(50);
            assertThat(other.id(13, 9, 5, 0)).isEqualTo(51);
            assertThat(rt.generic().length(list, 13, 9, 5)).isEqualTo(1);
            assertThat(rt.generic().length(list, 13, 9, 6)).isEqualTo(1);
            assertThat(rt.generic().isActive(bitmasked(CELLS), 13, 9, 5)).isTrue();
        }
    }

    /**
     * A bulk append to the 512 lists of 512 inactive bitmasked cells allocates what the same call
     * to the same, existing lists allocates (its grouping's arrays), within 16 bytes a list,
     * after two passes that compiled the code and filled the free lists: the cells as in
     * {@link #appendsToInactiveCellsAllocateNothingOnTheJavaHeap} (with {@code spread} 1, 8 new
     * upper cells; with 2, 64). Before, each inactive cell's first element (and then each new
     * upper cell's) went through the runtime's protocol.
     */
    @ParameterizedTest
    @CsvSource({"cells, 1", "cells, 2", "above, 2"})
    void aBulkAppendActivatesInactiveCellsWithNothingAllocatedPerCell(String name, int spread) throws Throwable {
        Layout layout = layout(name);
        int cells = 512;
        int last = 7 * spread;
        int[][] coordinates = new int[3][2 * cells];
        int[] values = new int[2 * cells];
        for (int n = 0; n < 2 * cells; n++) {
            int c = n % cells;
            coordinates[0][n] = spread * (c & 7);
            coordinates[1][n] = spread * ((c >> 3) & 7);
            coordinates[2][n] = spread * (c >> 6);
            values[n] = n;
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            long beyond = HeapAllocations.beyondARepeatInLastOfThreePasses(rt,
                    () -> assertThat(Bulk.appendAll(rt, "id", coordinates, values)).isEqualTo(values.length));
            assertThat(cellsInUse(rt, upper(layout))).isEqualTo(spread == 1 ? 8 : 64);
            assertThat(cellsInUse(rt, list(layout))).isEqualTo(cells);
            assertThat(rt.generic().length(list(layout), last, last, last)).isEqualTo(4);
            assertThat(rt.generic().getInt("id", last, last, last, 3)).isEqualTo(2 * cells - 1);
            assertThat(beyond).as("bytes for 512 inactive cells beyond the same call to existing lists")
                    .isLessThan(cells * 16L);
        }
    }

    /**
     * A refused first chunk leaves the cell inactive, nothing in use and no activation counted;
     * after the refusals end the same append succeeds. Then the cell is deactivated (its list
     * retired) and refused again on the way through the runtime, which reopens it after.
     */
    @ParameterizedTest
    @CsvSource({"cap, bind", "fault, bind", "cap, accessor", "fault, accessor", "cap, bulk", "fault, bulk"})
    void aRefusedFirstChunkChangesNothing(String failure, String api) {
        SNode list = list(CELLS);
        SNode cell = bitmasked(CELLS);
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Lists lists = lists(rt, api);
            assertThat(append(rt, lists, api, 0, 0, 0, 1)).isZero(); // the upper cell, from the root
            for (int round = 0; round < 2; round++) {
                refusedAtAllocation(rt, failure, 1, () -> append(rt, lists, api, 3, 2, 1, 7));
                assertThat(rt.generic().isActive(cell, 3, 2, 1)).isFalse();
                assertThat(cellsInUse(rt, list)).isEqualTo(1);
                assertThat(rt.count("id")).isEqualTo(1);
                assertThat(append(rt, lists, api, 3, 2, 1, 7)).isZero();
                assertThat(append(rt, lists, api, 3, 2, 1, 8)).isEqualTo(1);
                assertThat(rt.generic().isActive(cell, 3, 2, 1)).isTrue();
                assertThat(cellsInUse(rt, list)).isEqualTo(2);
                assertThat(rt.bind(Lists.class).id(3, 2, 1, 1)).isEqualTo(8);
                assertThat(rt.generic().deactivate(cell, 3, 2, 1)).isTrue(); // its list retired
                assertThat(cellsInUse(rt, list)).isEqualTo(1);
            }
        }
    }

    /**
     * The race made deterministic: while an append to the list of an inactive cell allocates its
     * first chunk, another append to the same list (same thread, from the allocation probe)
     * activates the cell and takes index 0; the first finds the chunk there, hands its own back
     * and takes index 1.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor"})
    void aLostRaceForTheFirstChunkAppendsInTheWinnersChunk(String api) {
        SNode list = list(CELLS);
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Lists lists = lists(rt, api);
            Lists other = rt.bind(Lists.class);
            lists.appendId(0, 0, 0, 1);
            AtomicBoolean inside = new AtomicBoolean();
            AtomicLong winnersIndex = new AtomicLong(-1);
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    winnersIndex.set(other.appendId(2, 2, 2, 50));
                }
            });
            try {
                assertThat(lists.appendId(2, 2, 2, 51)).isEqualTo(1);
            } finally {
                rt.generic().internalTree().probeAllocations(null);
            }
            assertThat(inside).isTrue();
            assertThat(winnersIndex).hasValue(0);
            assertThat(cellsInUse(rt, list)).as("one chunk per list: the loser's went back").isEqualTo(2);
            assertThat(other.id(2, 2, 2, 0)).isEqualTo(50);
            assertThat(other.id(2, 2, 2, 1)).isEqualTo(51);
            assertThat(rt.generic().length(list, 2, 2, 2)).isEqualTo(2);
        }
    }

    /**
     * Threads append through the generated method (or one-element bulk appends) to lists of
     * bitmasked cells, a quarter of them to four lists that fill up, under a memory cap that
     * refuses part of the calls and with faults injected at random allocations, while
     * another thread deactivates random bitmasked cells (and upper cells) over and over; then,
     * the deactivator stopped, they go on under the same refusals: what the race left plus every
     * append that returned in that phase is in the lists, at its index where it returned one (a
     * refused append, by the cap, a fault or a full list, added nothing), and after deactivating
     * everything and collecting no cell is in use.
     */
    @ParameterizedTest
    @CsvSource({"cells, bind", "dense, bind", "cells, bulk", "dense, bulk", "above, bind"})
    void threadsWithRefusalsAndDeactivationsKeepExactlyTheReturnedAppends(String name, String api) throws Exception {
        Layout layout = layout(name);
        SNode list = list(layout);
        int writers = 3;
        AtomicInteger injected = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger full = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            for (int round = 0; round < 6; round++) {
                try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withMemoryCap(1024 * 1024))) {
                    Lists lists = rt.bind(Lists.class);
                    AtomicBoolean faulting = new AtomicBoolean(true);
                    rt.generic().internalTree().probeAllocations(owner -> {
                        if (faulting.get() && ThreadLocalRandom.current().nextInt(8) == 0) {
                            injected.incrementAndGet();
                            throw new IllegalStateException("injected allocator fault");
                        }
                    });
                    CyclicBarrier start = new CyclicBarrier(writers + 1);
                    AtomicBoolean stop = new AtomicBoolean();
                    CountDownLatch deactivated = new CountDownLatch(1);
                    List<Future<?>> racing = new ArrayList<>();
                    for (int t = 0; t < writers; t++) {
                        int seed = round * 10 + t;
                        racing.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            start.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 8_000; n++) {
                                if (n == 4_000) {
                                    assertThat(deactivated.await(10, TimeUnit.SECONDS)).isTrue();
                                }
                                randomAppend(rt, lists, api, random, n, null, refused, full);
                            }
                            return null;
                        }));
                    }
                    int deactivatorSeed = round;
                    Future<?> deactivator = pool.submit(() -> {
                        Random random = new Random(deactivatorSeed);
                        start.await(10, TimeUnit.SECONDS);
                        for (int rounds = 0; !stop.get(); rounds++) {
                            for (int c = 0; c < 8; c++) {
                                int[] cell = cellOf(layout, random.nextInt(16), random.nextInt(16), random.nextInt(16));
                                rt.generic().deactivate(bitmasked(layout), cell[0], cell[1], cell[2]);
                            }
                            if (rounds % 16 == 15) {
                                rt.generic().deactivate(layout.snode(1), random.nextInt(4), random.nextInt(4), random.nextInt(4));
                            }
                            deactivated.countDown();
                        }
                        return null;
                    });
                    for (Future<?> future : racing) {
                        future.get(60, TimeUnit.SECONDS);
                    }
                    stop.set(true);
                    deactivator.get(10, TimeUnit.SECONDS);

                    long[] before = new long[16 * 16 * 16];
                    for (int at = 0; at < before.length; at++) {
                        before[at] = rt.generic().length(list, at >> 8, (at >> 4) & 15, at & 15);
                    }
                    CyclicBarrier again = new CyclicBarrier(writers);
                    List<Future<List<long[]>>> done = new ArrayList<>();
                    for (int t = 0; t < writers; t++) {
                        int seed = round * 10 + t + 5;
                        done.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            List<long[]> mine = new ArrayList<>();
                            again.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 4_000; n++) {
                                randomAppend(rt, lists, api, random, 100_000 + seed * 10_000 + n, mine, refused, full);
                            }
                            return mine;
                        }));
                    }
                    Map<Integer, List<Integer>> ids = new HashMap<>();
                    for (Future<List<long[]>> future : done) {
                        for (long[] append : future.get(60, TimeUnit.SECONDS)) {
                            int at = (int) append[0];
                            ids.computeIfAbsent(at, key -> new ArrayList<>()).add((int) append[2]);
                            if (append[1] >= 0) { // the generated append's index
                                assertThat(append[1]).as("round %d: an index after the race's elements", round)
                                        .isGreaterThanOrEqualTo(before[at]);
                                assertThat(lists.id(at >> 8, (at >> 4) & 15, at & 15, (int) append[1]))
                                        .as("round %d: element %d of list %d", round, append[1], at).isEqualTo((int) append[2]);
                            }
                        }
                    }
                    faulting.set(false);
                    for (int at = 0; at < before.length; at++) {
                        List<Integer> expected = ids.getOrDefault(at, List.of()).stream().sorted().toList();
                        long length = rt.generic().length(list, at >> 8, (at >> 4) & 15, at & 15);
                        assertThat(length).as("round %d: length of list %d", round, at).isEqualTo(before[at] + expected.size());
                        List<Integer> found = new ArrayList<>();
                        for (long e = before[at]; e < length; e++) {
                            found.add(lists.id(at >> 8, (at >> 4) & 15, at & 15, (int) e));
                        }
                        assertThat(found.stream().sorted().toList()).as("round %d: new elements of list %d", round, at)
                                .isEqualTo(expected);
                    }
                    rt.generic().internalTree().probeAllocations(null);
                    rt.deactivateAll(layout.root());
                    rt.gc();
                    for (SNode snode : List.of(layout.snode(1), list)) {
                        assertThat(cellsInUse(rt, snode)).as("round %d: cells of %s", round, snode.path()).isZero();
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(injected.get()).as("faults injected").isPositive();
        assertThat(refused.get() - injected.get()).as("appends refused by the cap").isPositive();
        assertThat(full.get()).as("appends refused by a full list").isPositive();
    }

    /**
     * One append of {@code id} through {@code api} to a random list (one of the first four in four
     * calls), recorded in {@code returned} (when given) as (list, index, id) if it returned
     * normally (index -1 for a bulk append, which returns none), counted in {@code refused} if the
     * cap or a fault refused it and in {@code full} if the list was full.
     */
    private static void randomAppend(SNodeRuntime rt, Lists lists, String api, Random random, int id, List<long[]> returned,
                               AtomicInteger refused, AtomicInteger full) {
        int at = random.nextInt(4) == 0 ? random.nextInt(4) : random.nextInt(16 * 16 * 16);
        try {
            long index = -1;
            if (api.equals("bulk")) {
                ListAppends.bulkAppend(rt, at >> 8, (at >> 4) & 15, at & 15, id);
            } else {
                index = lists.appendId(at >> 8, (at >> 4) & 15, at & 15, id);
            }
            if (returned != null) {
                returned.add(new long[] {at, index, id});
            }
        } catch (DynamicListFullException e) {
            full.incrementAndGet();
        } catch (MemoryCapExceededException | IllegalStateException thrown) {
            assertThat(isRefusal(thrown)).as("%s", thrown).isTrue();
            refused.incrementAndGet();
        }
    }

    @Test
    void aListOfAnInactiveCellBelowAnInactiveUpperCellActivatesBoth() {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Lists lists = rt.bind(Lists.class);
            assertThat(lists.appendId(15, 15, 15, 3)).isZero();
            assertThat(rt.generic().isActive(CELLS.snode(1), 3, 3, 3)).isTrue();
            assertThat(rt.generic().isActive(bitmasked(CELLS), 15, 15, 15)).isTrue();
            assertThat(lists.id(15, 15, 15, 0)).isEqualTo(3);
        }
    }
}
