package io.snode.codegen;

import static io.snode.codegen.testing.AllocationRefusals.refuse;
import static io.snode.codegen.testing.AllocationRefusals.refusedAtAllocation;
import static io.snode.codegen.testing.AllocationRefusals.stamp;
import static io.snode.codegen.testing.Disassembly.method;
import static io.snode.codegen.testing.ListAppends.lists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.testing.AllocationRefusals;
import io.snode.codegen.testing.HeapAllocations;
import io.snode.codegen.testing.ListAppends.Lists;
import io.snode.runtime.DynamicListFullException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A generated append that needs memory stays in the generated method and its runtime calls,
 * with nothing allocated on the Java heap: where the next element's chunk is missing
 * ({@code GeneratedCalls.tryAppend} goes on to {@code NodeTree.appendToNewChunk}: the chunk and
 * the directory blocks on the way are allocated, then published under the list's header lock)
 * and where the list's block itself is new (the last pointer word is inactive:
 * {@code GeneratedCalls.activateListBlock} publishes a new block whose list already holds its
 * first chunk). Only a busy or retired word, a retired list, a full list or an inactive level
 * further up go on to the runtime's append from the root. A refusal (memory cap, injected
 * allocator fault) publishes nothing; a lost race hands its cells back and appends into the
 * winner's list; a parent released under the append sends it to the root; threads with refusals
 * and a full list among them leave exactly the appends that returned, and every cell of theirs.
 */
class NewListChunkAppendTest {
    /** Lists of at most 40 elements in chunks of 8 (two inline, then a directory of two leaf blocks of two). */
    private static final Layout LISTS = Layout.parse("pointer(ijk,4).pointer(ijk,4).dynamic(l,40,8).place(i32 id)");
    /** The same lists, 16^3 under each upper cell: room for 512 new blocks under one. */
    private static final Layout WIDE_LISTS =
            Layout.parse("pointer(ijk,16).pointer(ijk,16).dynamic(l,40,8).place(i32 id)");



    private static long chunksInUse(SNodeRuntime rt, SNode list) {
        return rt.memoryStats().of(list).cells().cellsInUse();
    }

    private static long directoryBlocksInUse(SNodeRuntime rt, SNode list) {
        return rt.memoryStats().of(list).directories().cellsInUse();
    }

    private static long cellsInUse(SNodeRuntime rt, SNode pointer) {
        return rt.memoryStats().of(pointer).cells().cellsInUse();
    }

    /** Append {@code n} (0 to 19) to list {@code b} (0 to 511). */
    private interface AppendStep {
        void append(int n, int b) throws Throwable;
    }

    /**
     * Three passes, each over an emptied and collected runtime: {@code upper} (untimed: the upper
     * cell, from the root), then 20 rounds of {@code append} to each of 512 lists; returns the
     * bytes the thread allocated on the Java heap during the last pass's appends, after two passes
     * compiled the code and filled the free lists.
     */
    private static long allocatedInLastOfThreePasses(SNodeRuntime rt, HeapAllocations.Step upper, AppendStep append)
            throws Throwable {
        return HeapAllocations.inLastOfThreePasses(rt, upper, () -> {
            for (int n = 0; n < 20; n++) {
                for (int b = 0; b < 512; b++) {
                    append.append(n, b);
                }
            }
        });
    }

    @org.junit.jupiter.api.Test
    void theAppendPublishesNewChunksAndNewBlocksItselfAndCallsTheRuntimeOnlyAfter() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            String code = rt.generatedCode().getFirst().disassembly();
            String append = method(code, "public static append_id(IIII)J");
            assertThat(append).containsSubsequence("GeneratedCalls.tryAppend (", "GeneratedCalls.activateListBlock (",
                    "GeneratedCalls.appendAt (");
            assertThat(append.split("GeneratedCalls.tryAppend \\(", -1)).as("the append, emitted once").hasSize(2);
        }
        // A bitmasked level between the last pointer and the list: a new block goes to the runtime
        // (dense levels there do not: DenseListBlockAppendTest).
        try (SNodeRuntime rt = SNodeRuntime.compile(
                Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,2).dynamic(l,40,8).place(i32 id)"))) {
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static append_id(IIII)J")).contains("GeneratedCalls.tryAppend (")
                    .doesNotContain("activateListBlock");
        }
    }

    /**
     * Appends that make new blocks, new chunks and directory blocks allocate nothing on the Java
     * heap: counted with the thread's allocated bytes over 512 new lists of 20 elements each (a
     * new block, its first chunk, two more chunks, a directory's top and leaf block), after two
     * passes that compiled the code and filled the free lists. Each of those 2,560 appends that
     * need memory took the runtime's activation before: its coordinates' array, a
     * {@code Location}, an {@code Activation} with its {@code Reservation}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor"})
    void newBlocksAndNewChunksAllocateNothingOnTheJavaHeap(String api) throws Throwable {
        Layout layout = WIDE_LISTS;
        SNode list = layout.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Lists lists = lists(rt, api);
            long allocated = allocatedInLastOfThreePasses(rt, () -> lists.appendId(15, 15, 15, -1), (n, b) -> {
                lists.appendId(b >> 6, (b >> 3) & 7, b & 7, b * 100 + n);
            });
            assertThat(cellsInUse(rt, layout.snode(2))).isEqualTo(513);
            assertThat(chunksInUse(rt, list)).isEqualTo(512 * 3 + 1);
            assertThat(directoryBlocksInUse(rt, list)).isEqualTo(512 * 2);
            assertThat(lists.id(7, 7, 7, 19)).isEqualTo(511 * 100 + 19);
            assertThat(rt.generic().length(list, 7, 7, 7)).isEqualTo(20);
            assertThat(allocated).as("bytes allocated for 512 new blocks and 2048 new chunks").isLessThan(4096);
        }
    }

    /**
     * The layout's {@code appendZero_<node>} method (here through its method handle) takes its index
     * the same way, without a value: a new block, new chunks and directory blocks with nothing
     * allocated on the Java heap, the elements zero.
     */
    @org.junit.jupiter.api.Test
    void theAppendHandleMakesNewBlocksAndChunksWithNothingAllocated() throws Throwable {
        Layout layout = WIDE_LISTS;
        SNode list = layout.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            java.lang.invoke.MethodHandle append = rt.handle("appendZero_s3_dynamic");
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static appendZero_s3_dynamic(III)J")).containsSubsequence(
                    "GeneratedCalls.tryAppend (", "GeneratedCalls.activateListBlock (", "GeneratedCalls.append (");
            long allocated = allocatedInLastOfThreePasses(rt, () -> {
                long first = (long) append.invokeExact(15, 15, 15);
                assertThat(first).isZero();
            }, (n, b) -> {
                long index = (long) append.invokeExact(b >> 6, (b >> 3) & 7, b & 7);
                if (index != n) {
                    throw new AssertionError("list " + b + ": index " + index + " for append " + n);
                }
            });
            assertThat(cellsInUse(rt, layout.snode(2))).isEqualTo(513);
            assertThat(chunksInUse(rt, list)).isEqualTo(512 * 3 + 1);
            assertThat(directoryBlocksInUse(rt, list)).isEqualTo(512 * 2);
            assertThat(rt.generic().length(list, 7, 7, 7)).isEqualTo(20);
            assertThat(rt.count("id")).isEqualTo(512 * 20 + 1);
            assertThat(rt.bind(Lists.class).id(7, 7, 7, 19)).isZero();
            assertThat(allocated).as("bytes allocated for 512 new blocks and 2048 new chunks").isLessThan(4096);
        }
    }

    /**
     * A refused new block (its cell's or its first chunk's allocation) and a refused new chunk
     * (the chunk's, the directory's top or leaf block's allocation) leave no cell in use, no
     * length raised, no activation counted; after the refusals end, the same appends succeed.
     */
    @ParameterizedTest
    @CsvSource({"cap, bind", "fault, bind", "cap, accessor", "fault, accessor"})
    void aRefusedNewBlockOrNewChunkChangesNothing(String failure, String api) {
        SNode lower = LISTS.snode(2);
        SNode list = LISTS.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            lists.appendId(0, 0, 0, 1); // block (0, 0, 0) and its upper cell, from the root
            for (int nth = 1; nth <= 2; nth++) { // the block's cell, then its list's first chunk
                refusedAtAllocation(rt, failure, nth, () -> lists.appendId(1, 2, 3, 7));
                assertThat(cellsInUse(rt, lower)).isEqualTo(1);
                assertThat(chunksInUse(rt, list)).isEqualTo(1);
                assertThat(rt.generic().isActive(lower, 1, 2, 3)).isFalse();
            }
            assertThat(lists.appendId(1, 2, 3, 7)).isZero();
            for (int n = 1; n < 16; n++) {
                assertThat(lists.appendId(1, 2, 3, 7 + n)).isEqualTo(n);
            }
            // Element 16 needs the directory's top block, its first leaf block and a chunk.
            for (int nth = 1; nth <= 3; nth++) {
                refusedAtAllocation(rt, failure, nth, () -> lists.appendId(1, 2, 3, 99));
                assertThat(rt.generic().length(list, 1, 2, 3)).isEqualTo(16);
                assertThat(chunksInUse(rt, list)).isEqualTo(3);
                assertThat(directoryBlocksInUse(rt, list)).isZero();
            }
            assertThat(lists.appendId(1, 2, 3, 23)).isEqualTo(16);
            assertThat(chunksInUse(rt, list)).isEqualTo(4);
            assertThat(directoryBlocksInUse(rt, list)).isEqualTo(2);
            for (int n = 0; n <= 16; n++) {
                assertThat(lists.id(1, 2, 3, n)).isEqualTo(7 + n);
            }
            assertThat(rt.count("id")).isEqualTo(18);
        }
    }

    /**
     * The races made deterministic: while the first append to a new block (then to a new chunk)
     * allocates, a second append (same thread, from the allocation probe) publishes the block
     * (the chunk) and takes the first index there; the first loses, hands its cells back and
     * takes the next index in the winner's list.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor"})
    void aLostRaceAppendsIntoTheWinnersListAndHandsItsCellsBack(String api) {
        SNode lower = LISTS.snode(2);
        SNode list = LISTS.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            Lists other = rt.bind(Lists.class);
            lists.appendId(0, 0, 0, 1);
            AtomicBoolean inside = new AtomicBoolean();
            AtomicLong winnersIndex = new AtomicLong(-1);
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    winnersIndex.set(other.appendId(1, 1, 1, 50)); // the winner
                }
            });
            assertThat(lists.appendId(1, 1, 1, 51)).isEqualTo(1);
            assertThat(winnersIndex).hasValue(0);
            assertThat(cellsInUse(rt, lower)).as("the loser's block went back").isEqualTo(2);
            assertThat(chunksInUse(rt, list)).as("the loser's chunk went back").isEqualTo(2);
            for (int n = 2; n < 8; n++) {
                lists.appendId(1, 1, 1, 50 + n);
            }
            inside.set(false);
            assertThat(lists.appendId(1, 1, 1, 59)).as("after the winner's element 8").isEqualTo(9);
            assertThat(winnersIndex).hasValue(8);
            rt.generic().internalTree().probeAllocations(null);
            assertThat(chunksInUse(rt, list)).as("the loser's new chunk went back").isEqualTo(3);
            assertThat(lists.id(1, 1, 1, 0)).isEqualTo(50);
            assertThat(lists.id(1, 1, 1, 1)).isEqualTo(51);
            assertThat(lists.id(1, 1, 1, 8)).isEqualTo(50);
            assertThat(lists.id(1, 1, 1, 9)).isEqualTo(59);
            assertThat(rt.generic().length(list, 1, 1, 1)).isEqualTo(10);
        }
    }

    /**
     * The cell the append's walk stood in is released while the append allocates: the upper
     * cell (for a new block: the compare-and-set meets a retired word) or the block itself (for
     * a new chunk: the header lock is retired). The cells go back and the runtime's append from
     * the root makes a new path; the element is element 0 of a new list there, the old elements
     * are gone with their cells, and after a collection exactly the new cells are in use.
     */
    @ParameterizedTest
    @CsvSource({"block, bind", "block, accessor", "chunk, bind", "chunk, accessor"})
    void aCellReleasedUnderTheAppendSendsItToTheRoot(String what, String api) {
        SNode upper = LISTS.snode(1);
        SNode lower = LISTS.snode(2);
        SNode list = LISTS.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            for (int n = 0; n < 8; n++) {
                lists.appendId(1, 1, 1, n); // block (1, 1, 1) under upper cell (0, 0, 0), one full chunk
            }
            boolean block = what.equals("block");
            AtomicBoolean inside = new AtomicBoolean();
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    assertThat(block ? rt.generic().deactivate(upper, 0, 0, 0) : rt.generic().deactivate(lower, 1, 1, 1))
                            .isTrue();
                }
            });
            // block: a new block (2, 2, 2) under the same upper cell; chunk: element 8 of block (1, 1, 1)
            int at = block ? 2 : 1;
            assertThat(lists.appendId(at, at, at, 42)).isZero();
            rt.generic().internalTree().probeAllocations(null);
            assertThat(inside).isTrue();
            assertThat(lists.id(at, at, at, 0)).isEqualTo(42);
            assertThat(rt.generic().length(list, at, at, at)).isEqualTo(1);
            if (block) {
                assertThat(rt.generic().length(list, 1, 1, 1)).as("released with its upper cell").isZero();
            }
            rt.gc();
            assertThat(cellsInUse(rt, upper)).isEqualTo(1);
            assertThat(cellsInUse(rt, lower)).isEqualTo(1);
            assertThat(chunksInUse(rt, list)).isEqualTo(1);
            assertThat(directoryBlocksInUse(rt, list)).isZero();
        }
    }

    /**
     * Four threads append to the same 16 lists (new blocks under two upper cells, each list
     * filled past its 40 places) while the allocation probe refuses a third of the allocations
     * (memory cap or allocator fault), round after round; each thread moves to the next list after
     * {@code run} appends (runs of 5 keep a caching accessor on one list's block, so that its
     * appends skip the walk and use the chunk it remembers). Against the model of the appends that
     * returned: each has its own index, below the capacity, and its value there; every refusal is
     * a full list or the probe's; each list's length is the number of appends that returned to
     * it; exactly the blocks of those lists, the chunks their lengths need and their directory
     * blocks are in use; and after everything is deactivated and collected nothing is. In the
     * {@code dense} layout a dense level lies between the lower pointer and the lists, so that four
     * lists share each block and appends to different lists race for the same new block
     * ({@link DenseListBlockAppendTest}).
     */
    @ParameterizedTest
    @CsvSource({"cap, bind, lists, 1", "fault, bind, lists, 1", "cap, accessor, lists, 1", "cap, bind, dense, 1",
            "fault, accessor, dense, 1", "cap, accessor, lists, 5", "fault, accessor, lists, 5"})
    void refusalsAndFullListsAmongThreadsLeaveExactlyTheAppendsThatReturned(String failure, String api, String shape,
                                                                            int run) throws Exception {
        Layout layout = shape.equals("dense") ? DenseListBlockAppendTest.LISTS : LISTS;
        int denseShift = shape.equals("dense") ? 1 : 0; // a list's block: its coordinates >> denseShift
        int threads = 4;
        int lists = 16;
        int perThread = 300; // 16 lists x 40 places = 640 for 1,200 appends, a third of whose allocations are refused
        int rounds = 8;
        SNode upper = layout.snode(1);
        SNode lower = layout.snode(2);
        SNode list = layout.field("id").snode();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            long refusedByProbe = 0;
            long full = 0;
            for (int round = 0; round < rounds; round++) {
                refuse(rt, failure, AllocationRefusals::aThird);
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<List<long[]>>> results = new ArrayList<>();
                int[] fullCounts = new int[threads];
                int[] probeCounts = new int[threads];
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    Lists appender = lists(rt, api);
                    results.add(pool.submit(() -> {
                        List<long[]> returned = new ArrayList<>(); // {list, index, id}
                        start.await(30, TimeUnit.SECONDS);
                        for (int n = 0; n < perThread; n++) {
                            int target = (n / run + thread) % lists;
                            int id = thread * 100_000 + n + 1;
                            try {
                                returned.add(new long[] {target, appender.appendId(x(target), y(target), 0, id), id});
                            } catch (DynamicListFullException e) {
                                fullCounts[thread]++;
                            } catch (MemoryCapExceededException | IllegalStateException e) {
                                assertThat(e).satisfiesAnyOf(
                                        f -> assertThat(f).isInstanceOf(MemoryCapExceededException.class),
                                        f -> assertThat(f).hasMessageContaining("injected allocator fault"));
                                probeCounts[thread]++;
                            }
                        }
                        return returned;
                    }));
                }
                int[] lengths = new int[lists];
                Set<List<Long>> places = new HashSet<>();
                Lists reader = rt.bind(Lists.class);
                for (Future<List<long[]>> result : results) {
                    for (long[] append : result.get(60, TimeUnit.SECONDS)) {
                        int target = (int) append[0];
                        assertThat(append[1]).isBetween(0L, 39L);
                        assertThat(places.add(List.of(append[0], append[1])))
                                .as("round %d: index %s of list %s taken twice", round, append[1], append[0]).isTrue();
                        assertThat(reader.id(x(target), y(target), 0, (int) append[1])).isEqualTo((int) append[2]);
                        lengths[target]++;
                    }
                }
                rt.generic().internalTree().probeAllocations(null);
                for (int t = 0; t < threads; t++) {
                    refusedByProbe += probeCounts[t];
                    full += fullCounts[t];
                }
                Set<List<Integer>> blocks = new HashSet<>();
                long chunks = 0;
                long directory = 0;
                for (int target = 0; target < lists; target++) {
                    long length = rt.generic().length(list, x(target), y(target), 0);
                    assertThat(length).as("round %d: list %d", round, target).isEqualTo(lengths[target]);
                    if (length > 0) {
                        blocks.add(List.of(x(target) >> denseShift, y(target) >> denseShift));
                    }
                    chunks += (length + 7) / 8;
                    directory += length > 16 ? 1 + (length + 7 - 16) / 8 / 2 + ((length + 7 - 16) / 8 % 2) : 0;
                }
                assertThat(cellsInUse(rt, lower)).as("round %d: blocks", round).isEqualTo(blocks.size());
                assertThat(chunksInUse(rt, list)).as("round %d: chunks", round).isEqualTo(chunks);
                assertThat(directoryBlocksInUse(rt, list)).as("round %d: directory blocks", round).isEqualTo(directory);
                rt.deactivateAll(layout.root());
                rt.gc();
                assertThat(cellsInUse(rt, upper)).isZero();
                assertThat(cellsInUse(rt, lower)).isZero();
                assertThat(chunksInUse(rt, list)).isZero();
                assertThat(directoryBlocksInUse(rt, list)).isZero();
            }
            assertThat(refusedByProbe).as("appends the probe refused").isPositive();
            assertThat(full).as("appends to a full list").isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    /** List {@code target}'s block: 8 under each of two upper cells. */
    private static int x(int target) {
        return (target >> 3) * 4 + (target & 3);
    }

    private static int y(int target) {
        return (target >> 2) & 1;
    }
}
