package io.snode.codegen;

import static io.snode.codegen.testing.AllocationRefusals.refusedAtAllocation;
import static io.snode.codegen.testing.Disassembly.method;
import static io.snode.codegen.testing.ListAppends.append;
import static io.snode.codegen.testing.ListAppends.lists;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.testing.HeapAllocations;
import io.snode.codegen.testing.ListAppends.Lists;
import io.snode.runtime.DynamicListFullException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Appends to the lists of a block that is a pointer's cell with dense levels between the pointer
 * and the lists (Taichi's {@code pointer -> dense -> dynamic}): where the block is new, the
 * generated append and the bulk append publish it themselves
 * ({@code GeneratedCalls.activateListBlock}, {@code NodeTree.locateOrActivateListBlock}, with the
 * list's header at its dense cell's offset in the block), as where the list's parent is the
 * pointer ({@link NewListChunkAppendTest}); the block's other lists stay empty, and an append to
 * one of them publishes its first chunk ({@code NodeTree.appendToNewChunk}). Nothing is allocated
 * on the Java heap; the elements and lengths are those of a model of the appends that returned; a
 * refused new block (memory cap, allocator fault) changes nothing; a lost race for the block hands
 * its cells back and appends in the winner's block. Threads with refusals:
 * {@link NewListChunkAppendTest#refusalsAndFullListsAmongThreadsLeaveExactlyTheAppendsThatReturned}.
 */
class DenseListBlockAppendTest {
    /** Blocks of 2^3 lists (a lower pointer cell holding a dense level), 4^3 x 2^3 blocks. */
    static final Layout LISTS = Layout.parse("pointer(ijk,4).pointer(ijk,2).dense(ijk,2).dynamic(l,40,8).place(i32 id)");
    /** 8^3 blocks of 2^3 lists under each upper cell. */
    static final Layout WIDE = Layout.parse("pointer(ijk,2).pointer(ijk,8).dense(ijk,2).dynamic(l,40,8).place(i32 id)");


    private static SNode lower(Layout layout) {
        return layout.snode(2);
    }

    private static SNode list(Layout layout) {
        return layout.field("id").snode();
    }

    private static long cellsInUse(SNodeRuntime rt, SNode snode) {
        return rt.memoryStats().of(snode).cells().cellsInUse();
    }



    @Test
    void theGeneratedAppendPublishesANewBlockBelowDenseLevelsItself() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            String code = rt.generatedCode().getFirst().disassembly();
            // the header's offset: the dense cell's index times its 40 bytes (one list header)
            assertThat(method(code, "public static append_id(IIII)J")).containsSubsequence("GeneratedCalls.tryAppend (",
                    "LDC 40L", "GeneratedCalls.activateListBlock (", "GeneratedCalls.appendAt (");
            assertThat(method(code, "public static appendZero_s4_dynamic(III)J")).containsSubsequence(
                    "GeneratedCalls.tryAppend (", "GeneratedCalls.activateListBlock (", "GeneratedCalls.append (");
        }
    }

    /**
     * Appends to random lists of few blocks (two of them filled past their 40 places), three
     * rounds each over an emptied and collected runtime: every list holds the model's elements in order, the lengths and the count are the
     * model's, exactly the blocks with a list that got an element and the chunks the lengths need
     * are in use; a full list refuses.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor", "bulk"})
    void appendsToNewBlocksAndTheirOtherListsMatchTheModel(String api) {
        Random random = new Random(api.hashCode());
        SNode list = list(LISTS);
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            for (int round = 0; round < 3; round++) {
                Map<List<Integer>, List<Integer>> model = new HashMap<>();
                long full = 0;
                for (int n = 0; n < 900; n++) {
                    boolean hot = random.nextInt(4) == 0; // two lists of one block get about 110 appends each
                    int i = hot ? random.nextInt(2) : random.nextInt(6);
                    int j = hot ? 0 : random.nextInt(6);
                    int k = hot ? 0 : random.nextInt(3);
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
                    assertThat(append(rt, lists, api, i, j, k, id)).isEqualTo(elements.size());
                    elements.add(id);
                }
                Set<List<Integer>> blocks = new HashSet<>();
                long chunks = 0;
                long total = 0;
                Lists reader = rt.bind(Lists.class);
                for (Map.Entry<List<Integer>, List<Integer>> entry : model.entrySet()) {
                    List<Integer> at = entry.getKey();
                    List<Integer> elements = entry.getValue();
                    assertThat(rt.generic().length(list, at.get(0), at.get(1), at.get(2))).as("list %s", at)
                            .isEqualTo(elements.size());
                    for (int n = 0; n < elements.size(); n++) {
                        assertThat(reader.id(at.get(0), at.get(1), at.get(2), n)).isEqualTo(elements.get(n));
                    }
                    blocks.add(List.of(at.get(0) >> 1, at.get(1) >> 1, at.get(2) >> 1));
                    chunks += (elements.size() + 7) / 8;
                    total += elements.size();
                }
                assertThat(rt.count("id")).isEqualTo(total);
                assertThat(cellsInUse(rt, lower(LISTS))).as("blocks").isEqualTo(blocks.size());
                assertThat(cellsInUse(rt, list)).as("chunks").isEqualTo(chunks);
                assertThat(full).as("appends to a full list, round %d", round).isPositive();
                rt.deactivateAll(LISTS.root());
                rt.gc();
                assertThat(cellsInUse(rt, lower(LISTS))).isZero();
                assertThat(cellsInUse(rt, list)).isZero();
            }
        }
    }

    /**
     * 512 new blocks under one upper cell, then appends to three more lists of each and more
     * elements to all four, allocate nothing on the Java heap: counted with the thread's allocated
     * bytes after two passes that compiled the code and filled the free lists. Each new block
     * took the runtime's append before (its coordinates' array, a {@code Location}, an
     * {@code Activation} with its {@code Reservation}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor"})
    void newBlocksBelowDenseLevelsAllocateNothingOnTheJavaHeap(String api) throws Throwable {
        SNode list = list(WIDE);
        try (SNodeRuntime rt = SNodeRuntime.compile(WIDE)) {
            Lists lists = lists(rt, api);
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> rt.generic().activate(WIDE.snode(1), 0, 0, 0),
                    () -> {
                        for (int n = 0; n < 20; n++) {
                            for (int b = 0; b < 512; b++) {
                                lists.appendId(2 * (b >> 6) + (n & 1), 2 * ((b >> 3) & 7) + ((n >> 1) & 1), 2 * (b & 7),
                                        b * 100 + n);
                            }
                        }
                    });
            assertThat(cellsInUse(rt, lower(WIDE))).isEqualTo(512);
            assertThat(cellsInUse(rt, list)).as("one chunk for each of 4 lists per block").isEqualTo(512 * 4);
            assertThat(rt.generic().length(list, 15, 15, 14)).isEqualTo(5);
            assertThat(lists.id(15, 15, 14, 4)).isEqualTo(511 * 100 + 19);
            assertThat(allocated).as("bytes allocated for 512 new blocks and 2048 new lists").isLessThan(4096);
        }
    }

    /**
     * A bulk append to the 4,096 lists of 512 new blocks allocates what the same call to the
     * same, existing lists allocates (its grouping's arrays), within 16 bytes a block, after two
     * passes that compiled the code and filled the free lists.
     */
    @Test
    void aBulkAppendMakesNewBlocksBelowDenseLevelsWithNothingAllocatedPerBlock() throws Throwable {
        int lists = 4096;
        int[][] coordinates = new int[3][2 * lists];
        int[] values = new int[2 * lists];
        for (int n = 0; n < 2 * lists; n++) {
            int at = n % lists;
            coordinates[0][n] = at >> 8;
            coordinates[1][n] = (at >> 4) & 15;
            coordinates[2][n] = at & 15;
            values[n] = n;
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(WIDE)) {
            long beyond = HeapAllocations.beyondARepeatInLastOfThreePasses(rt,
                    () -> assertThat(Bulk.appendAll(rt, "id", coordinates, values)).isEqualTo(values.length));
            assertThat(cellsInUse(rt, lower(WIDE))).isEqualTo(512);
            assertThat(cellsInUse(rt, list(WIDE))).isEqualTo(lists);
            assertThat(rt.generic().length(list(WIDE), 15, 15, 15)).isEqualTo(4);
            assertThat(rt.generic().getInt("id", 15, 15, 15, 3)).isEqualTo(2 * lists - 1);
            assertThat(beyond).as("bytes for 512 new blocks beyond the same call to existing lists")
                    .isLessThan(512 * 16L);
        }
    }

    /**
     * A refused new block (its cell's or its list's first chunk's allocation) leaves no cell in
     * use, no list longer and no activation counted; after the refusals end, the same append
     * succeeds, and one to another list of that block publishes that list's first chunk.
     */
    @ParameterizedTest
    @CsvSource({"cap, bind", "fault, bind", "cap, accessor", "fault, bulk", "cap, bulk"})
    void aRefusedNewBlockChangesNothing(String failure, String api) {
        SNode list = list(LISTS);
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            append(rt, lists, api, 0, 0, 0, 1); // block (0, 0, 0) and its upper cell, from the root
            for (int nth = 1; nth <= 2; nth++) { // the block's cell, then its list's first chunk
                refusedAtAllocation(rt, failure, nth, () -> append(rt, lists, api, 3, 2, 1, 7));
                assertThat(cellsInUse(rt, lower(LISTS))).isEqualTo(1);
                assertThat(cellsInUse(rt, list)).isEqualTo(1);
                assertThat(rt.generic().length(list, 3, 2, 1)).isZero();
                assertThat(rt.count("id")).isEqualTo(1);
            }
            assertThat(append(rt, lists, api, 3, 2, 1, 7)).isZero();
            assertThat(append(rt, lists, api, 2, 3, 0, 8)).as("another list of the block").isZero();
            assertThat(cellsInUse(rt, lower(LISTS))).isEqualTo(2);
            assertThat(cellsInUse(rt, list)).isEqualTo(3);
            assertThat(rt.bind(Lists.class).id(3, 2, 1, 0)).isEqualTo(7);
            assertThat(rt.bind(Lists.class).id(2, 3, 0, 0)).isEqualTo(8);
            assertThat(rt.bind(Lists.class).id(2, 2, 0, 0)).as("a list of the block never appended to").isZero();
            assertThat(rt.generic().length(list, 2, 2, 0)).isZero();
            assertThat(rt.count("id")).isEqualTo(3);
        }
    }

    /**
     * The race made deterministic: while an append to one list of a new block allocates, an
     * append to another list of the same block (same thread, from the allocation probe)
     * publishes the block; the first loses, hands its block and chunk back, and appends to its own
     * list in the winner's block, publishing that list's first chunk there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bind", "accessor", "bulk"})
    void aLostRaceForTheBlockAppendsInTheWinnersBlock(String api) {
        SNode list = list(LISTS);
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = lists(rt, api);
            Lists other = rt.bind(Lists.class);
            append(rt, lists, api, 0, 0, 0, 1);
            AtomicBoolean inside = new AtomicBoolean();
            AtomicLong winnersIndex = new AtomicLong(-1);
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    winnersIndex.set(other.appendId(3, 3, 1, 50)); // dense cell (1, 1, 1) of block (1, 1, 0)
                }
            });
            try {
                assertThat(append(rt, lists, api, 2, 2, 0, 51)).isZero(); // dense cell (0, 0, 0) of the same block
            } finally {
                rt.generic().internalTree().probeAllocations(null);
            }
            assertThat(inside).isTrue();
            assertThat(winnersIndex).hasValue(0);
            assertThat(cellsInUse(rt, lower(LISTS))).as("the loser's block went back").isEqualTo(2);
            assertThat(cellsInUse(rt, list)).as("one chunk per list: the loser's first went back").isEqualTo(3);
            assertThat(other.id(3, 3, 1, 0)).isEqualTo(50);
            assertThat(other.id(2, 2, 0, 0)).isEqualTo(51);
            assertThat(rt.generic().length(list, 2, 2, 0)).isEqualTo(1);
            assertThat(rt.generic().length(list, 3, 3, 1)).isEqualTo(1);
        }
    }
}
