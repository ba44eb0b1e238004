package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.FailingAllocator;
import io.snode.codegen.testing.HeapAllocations;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Bulk list appends ({@link Bulk#append}, {@link Bulk#appendAll}) against a model of single
 * appends: each list holds its elements in the order of the call's arrays, the lists are filled in
 * coordinate order, and a refusal (a full list, the memory cap, an allocator fault) leaves exactly
 * the elements before the refused one appended, which the exception lists; with threads, every
 * element of a call that returned and every element a refused call lists is there once, in each
 * thread's order, and nothing else.
 */
class BulkAppendTest {
    /** Lists at the 8 x 8 cells of a pointer node. */
    static String layout(int capacity, int chunk) {
        return "pointer(ij,8).dynamic(l," + capacity + "," + chunk + ").place(i32 v)";
    }

    @Property(tries = 60)
    void appendAllEqualsSingleAppendsInGroupedOrder(@ForAll @IntRange(min = 1, max = 40) int chunk,
                                                    @ForAll @IntRange(min = 1, max = 300) int capacity,
                                                    @ForAll @IntRange(min = 0, max = 3000) int elements,
                                                    @ForAll @IntRange(min = 1, max = 8) int extent,
                                                    @ForAll long seed) {
        Layout layout = Layout.parse(layout(Math.max(capacity, chunk), chunk));
        int cap = Math.max(capacity, chunk);
        Random random = new Random(seed);
        int[][] lists = new int[2][elements];
        int[] values = new int[elements];
        for (int n = 0; n < elements; n++) {
            lists[0][n] = random.nextInt(extent);
            lists[1][n] = random.nextInt(extent);
            values[n] = 1000 + n;
        }
        // The model: lists in coordinate order, each list's elements in array order, until one is full.
        Integer[] grouped = new Integer[elements];
        Arrays.setAll(grouped, n -> n);
        Arrays.sort(grouped, Comparator.<Integer>comparingInt(n -> lists[0][n]).thenComparingInt(n -> lists[1][n]));
        Map<Integer, List<Integer>> model = new HashMap<>();
        Integer refused = null;
        for (int n : grouped) {
            List<Integer> list = model.computeIfAbsent(lists[0][n] * 8 + lists[1][n], key -> new ArrayList<>());
            if (list.size() == cap) {
                refused = n;
                break;
            }
            list.add(values[n]);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            long before = rt.count("v");
            Throwable thrown = catchThrowable(() -> Bulk.appendAll(rt, "v", lists, values));
            if (refused == null) {
                assertThat(thrown).isNull();
            } else {
                assertThat(thrown).isInstanceOf(BulkAppendException.class)
                        .hasCauseInstanceOf(DynamicListFullException.class);
                BulkAppendException partial = (BulkAppendException) thrown;
                assertThat(partial.refused()).isEqualTo(refused);
                int[] appended = model.values().stream().flatMap(List::stream).mapToInt(v -> v - 1000).sorted()
                        .toArray();
                assertThat(partial.appended()).isEqualTo(appended);
            }
            assertListsEqual(rt, model);
            long total = model.values().stream().mapToLong(List::size).sum();
            assertThat(rt.count("v")).as("a launch after the appends sees them").isEqualTo(before + total);
        }
    }

    /**
     * Lists whose coordinates do not pack into one key with the element's index (a parent index
     * space of 4096^3: 36 bits): grouped by comparing coordinates instead, with the same result.
     */
    @Test
    void listsOfAWideIndexSpaceGroupTheSameWay() {
        Layout layout = Layout.parse("pointer(ijk,64).pointer(ijk,64).dynamic(l,5000,8).place(i32 v)");
        int[][] corners = {{0, 0, 0}, {4095, 4095, 4095}, {4095, 0, 1}, {1, 0, 4095}, {2048, 17, 3000}};
        Random random = new Random(11);
        int elements = 5000;
        int[][] lists = new int[3][elements];
        int[] values = new int[elements];
        Map<Integer, List<Integer>> model = new HashMap<>();
        for (int n = 0; n < elements; n++) {
            int corner = random.nextInt(corners.length);
            for (int c = 0; c < 3; c++) {
                lists[c][n] = corners[corner][c];
            }
            values[n] = n;
            model.computeIfAbsent(corner, key -> new ArrayList<>()).add(n);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            assertThat(Bulk.appendAll(rt, "v", lists, values)).isEqualTo(elements);
            SNode list = layout.snode(3);
            for (int corner = 0; corner < corners.length; corner++) {
                int[] at = corners[corner];
                List<Integer> got = new ArrayList<>();
                for (long n = 0; n < rt.generic().length(list, at); n++) {
                    got.add(rt.generic().getInt("v", at[0], at[1], at[2], (int) n));
                }
                assertThat(got).as("list %s", Arrays.toString(at)).isEqualTo(model.get(corner));
            }
        }
    }

    @Test
    void appendToOneListKeepsTheOrderAndStopsAtAFullList() {
        Layout layout = Layout.parse(layout(100, 7));
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode list = layout.snode(2);
            rt.generic().appendInt("v", -1, 3, 4); // a partly filled chunk first
            int[] values = new int[60];
            Arrays.setAll(values, n -> n);
            assertThat(Bulk.append(rt, "v", new int[] {3, 4}, values)).isEqualTo(60);
            assertThat(rt.generic().length(list, 3, 4)).isEqualTo(61);
            assertThat(rt.generic().getInt("v", 3, 4, 0)).isEqualTo(-1);
            for (int n = 0; n < 60; n++) {
                assertThat(rt.generic().getInt("v", 3, 4, n + 1)).isEqualTo(n);
            }
            BulkAppendException full = (BulkAppendException) catchThrowable(
                    () -> Bulk.append(rt, "v", new int[] {3, 4}, values));
            assertThat(full).hasCauseInstanceOf(DynamicListFullException.class)
                    .hasMessageContaining("appended 39 of 60 elements of field v; element 39 (list [3, 4])");
            assertThat(full.appended()).hasSize(39).startsWith(0, 1).endsWith(38);
            assertThat(full.isAppended(38)).isTrue();
            assertThat(full.isAppended(39)).isFalse();
            assertThat(rt.generic().length(list, 3, 4)).isEqualTo(100);
            assertThat(rt.generic().getInt("v", 3, 4, 99)).isEqualTo(38);
        }
    }

    /**
     * A bulk append that fills many chunks of an existing list publishes each new chunk itself
     * ({@code NodeTree.publishNextChunk}) and allocates nothing on the Java heap per chunk:
     * counted with the thread's allocated bytes over 80,000 elements (10,000 chunks of 8) in one
     * call, after two passes that compiled the code and filled the free lists. Each new chunk
     * took the runtime's single append before (a {@code Location} aside, an {@code Activation}
     * with its {@code Reservation}): about 3 MB for the call.
     */
    @Test
    void aBulkAppendMakesItsListsNewChunksWithNothingAllocatedPerChunk() throws Throwable {
        Layout layout = Layout.parse(layout(1 << 20, 8));
        int[] values = new int[80_000];
        Arrays.setAll(values, n -> n * 3);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> rt.generic().appendInt("v", -1, 5, 6), () -> {
                assertThat(Bulk.append(rt, "v", new int[] {5, 6}, values)).isEqualTo(values.length);
            });
            SNode list = layout.snode(2);
            assertThat(rt.generic().length(list, 5, 6)).isEqualTo(values.length + 1);
            assertThat(rt.generic().getInt("v", 5, 6, 0)).isEqualTo(-1);
            assertThat(rt.generic().getInt("v", 5, 6, 80_000)).isEqualTo(79_999 * 3);
            assertThat(rt.memoryStats().of(list).cells().cellsInUse()).isEqualTo(10_001);
            assertThat(allocated).as("bytes allocated for a call that makes 10,000 chunks").isLessThan(16_384);
        }
    }

    /**
     * A bulk append to new lists whose parent step is a pointer makes each list's block with its
     * first chunk itself ({@code NodeTree.locateOrActivateListBlock}) and allocates nothing on the
     * Java heap per list: {@code appendAll} of two elements to each of 4,096 new lists allocates
     * what the same call to the same, existing lists allocates (its grouping's arrays), within 16
     * bytes a list, after two passes that compiled the code and filled the free lists. Each new
     * list took the runtime's append before (an {@code Activation} with its {@code Reservation}).
     */
    @Test
    void aBulkAppendMakesNewListsBlocksWithNothingAllocatedPerList() throws Throwable {
        Layout layout = Layout.parse("pointer(ij,64).dynamic(l,1024,8).place(i32 v)");
        int lists = 4096;
        int[][] coordinates = new int[2][2 * lists];
        int[] values = new int[2 * lists];
        for (int n = 0; n < 2 * lists; n++) {
            coordinates[0][n] = (n % lists) >> 6;
            coordinates[1][n] = (n % lists) & 63;
            values[n] = n;
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            long beyond = HeapAllocations.beyondARepeatInLastOfThreePasses(rt,
                    () -> assertThat(Bulk.appendAll(rt, "v", coordinates, values)).isEqualTo(values.length));
            SNode list = layout.snode(2);
            assertThat(rt.memoryStats().of(layout.snode(1)).cells().cellsInUse()).isEqualTo(lists);
            assertThat(rt.memoryStats().of(list).cells().cellsInUse()).isEqualTo(lists);
            assertThat(rt.generic().length(list, 63, 63)).isEqualTo(4);
            assertThat(rt.generic().getInt("v", 63, 63, 1)).isEqualTo(2 * lists - 1);
            assertThat(rt.generic().getInt("v", 63, 63, 3)).isEqualTo(2 * lists - 1);
            assertThat(beyond).as("bytes for 4,096 new lists beyond the same call to existing ones")
                    .isLessThan(lists * 16L);
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsAppended() {
        Layout layout = Layout.parse("pointer(ij,8).dynamic(l,100,8).place(i32 v, f32 w)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            int[][] lists = {{1, 2, 8}, {0, 0, 0}};
            assertThatThrownBy(() -> Bulk.appendAll(rt, "v", lists, new int[] {1, 2, 3}))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("the list of element 2");
            assertThatThrownBy(() -> Bulk.appendAll(rt, "v", new int[][] {{1}}, new int[] {1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes 2 coordinates");
            assertThatThrownBy(() -> Bulk.appendAll(rt, "v", new int[][] {{1}, {1, 2}}, new int[] {1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("lists[1] has 2 coordinates; the values have 1");
            assertThatThrownBy(() -> Bulk.append(rt, "v", new int[] {1, 1}, new float[] {1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("field v is i32; got f32 values (pass an int[])");
            assertThat(rt.count("v")).isZero();
            // A list element with two fields: the other one reads zero.
            assertThat(Bulk.append(rt, "w", new int[] {1, 1}, new float[] {1.5f, 2.5f})).isEqualTo(2);
            assertThat(rt.generic().getFloat("w", 1, 1, 1)).isEqualTo(2.5f);
            assertThat(rt.generic().getInt("v", 1, 1, 1)).isZero();
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("dense(ij,4).place(i32 v)"))) {
            assertThatThrownBy(() -> Bulk.append(rt, "v", new int[] {1, 1}, new int[] {1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dynamic SNodes");
        }
    }

    @Test
    void whenTheCapRefusesAChunkTheElementsBeforeItAreAppendedAndListed() {
        Layout layout = Layout.parse(layout(5000, 16));
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        long cap;
        try (SNodeRuntime probe = SNodeRuntime.compile(layout, options)) {
            probe.generic().appendInt("v", 0, 0, 0);
            cap = probe.memoryStats().bytesReserved() + 1; // the first chunks, not many more
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(cap))) {
            int elements = 64 * 4000;
            int[][] lists = new int[2][elements];
            int[] values = new int[elements];
            Random random = new Random(7);
            for (int n = 0; n < elements; n++) {
                lists[0][n] = random.nextInt(8);
                lists[1][n] = random.nextInt(8);
                values[n] = n;
            }
            Throwable thrown = catchThrowable(() -> Bulk.appendAll(rt, "v", lists, values));
            assertThat(thrown).isInstanceOf(BulkAppendException.class).hasCauseInstanceOf(MemoryCapExceededException.class);
            BulkAppendException partial = (BulkAppendException) thrown;
            assertThat(partial.appended().length).isPositive().isLessThan(elements);
            assertThat(partial.isAppended(partial.refused())).isFalse();
            assertListsHoldExactly(rt, lists, values, List.of(partial.appended()));
        }
    }

    /**
     * The fault as a RuntimeException, and as the OutOfMemoryError that {@code Arena.allocate}
     * throws when the system has no memory left: either way the call reports what it appended.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"IllegalStateException", "OutOfMemoryError"})
    void anInjectedAllocatorFaultLeavesAPrefixOfTheGroupedOrder(String fault) {
        Layout layout = Layout.parse(layout(1 << 16, 16));
        FailingAllocator failing = new FailingAllocator(() -> fault.equals("OutOfMemoryError")
                ? new OutOfMemoryError("injected failure") : new IllegalStateException("injected failure"));
        AtomicInteger countdown = failing.countdown;
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
            rt.generic().appendInt("v", -5, 7, 7);
            countdown.set(1); // the next piece of memory a manager requests fails
            int elements = 64 * 4000;
            int[][] lists = new int[2][elements];
            int[] values = new int[elements];
            for (int n = 0; n < elements; n++) { // 8 lists, (7, 7) not among them
                lists[0][n] = (n * 5) % 8;
                lists[1][n] = (n * 3) % 8;
                values[n] = n;
            }
            Throwable thrown = catchThrowable(() -> Bulk.appendAll(rt, "v", lists, values));
            assertThat(thrown).isInstanceOf(BulkAppendException.class).hasRootCauseMessage("injected failure");
            BulkAppendException partial = (BulkAppendException) thrown;
            assertThat(partial.appended().length).isPositive().isLessThan(elements);
            assertThat(rt.generic().getInt("v", 7, 7, 0)).isEqualTo(-5);
            int[][] withFirst = {append(lists[0], 7), append(lists[1], 7)};
            int[] valuesWithFirst = append(values, -5);
            int[] appended = append(partial.appended(), elements);
            assertListsHoldExactly(rt, withFirst, valuesWithFirst, List.of(appended));
        }
    }

    /**
     * Four threads append to the same 64 lists at once (three in bulk, one element at a time),
     * under a cap that refuses some of them: every element of a call that returned, and every
     * element a refused call lists, is in its list once, after the elements its thread appended
     * to that list before it; nothing else is.
     */
    @Test
    void threadsAppendingUnderACapLoseNothingThatReturnedAndAddNothingElse() throws Exception {
        Layout layout = Layout.parse(layout(1 << 16, 16));
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        long cap;
        try (SNodeRuntime probe = SNodeRuntime.compile(layout, options)) {
            for (int n = 0; n < 64 * 600; n++) {
                probe.generic().appendInt("v", n, n % 8, n / 8 % 8);
            }
            cap = probe.memoryStats().bytesReserved();
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(cap))) {
            threadsAgainstTheModel(rt, MemoryCapExceededException.class);
        }
    }

    /** As under a cap, with lists of 1,000 elements that fill up (80,000 elements for 64 lists). */
    @Test
    void threadsAppendingToListsThatFillUpLoseNothingThatReturnedAndAddNothingElse() throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(layout(1000, 16)))) {
            threadsAgainstTheModel(rt, DynamicListFullException.class);
        }
    }

    /** As under a cap, with the node managers' next request for memory failing while the threads run. */
    @Test
    void threadsAppendingThroughAnAllocatorFaultLoseNothingThatReturnedAndAddNothingElse() throws Exception {
        FailingAllocator failing = new FailingAllocator(() -> new IllegalStateException("injected failure"));
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(layout(1 << 16, 16)),
                RuntimeOptions.DEFAULT.withAllocator(failing))) {
            failing.countdown.set(1);
            threadsAgainstTheModel(rt, IllegalStateException.class);
        }
    }

    /**
     * Four threads append to the 64 lists of {@code rt} at once (three in bulk, one element at a
     * time, stopping at its call's first refusal) until some calls are refused with {@code refusal}:
     * the lists then hold exactly the elements of the calls that returned and those the refused
     * calls list, each once and in its thread's order.
     */
    private static void threadsAgainstTheModel(SNodeRuntime rt, Class<? extends RuntimeException> refusal)
            throws Exception {
        Layout layout = rt.layout();
        int threads = 4;
        int calls = 10;
        int perCall = 2000;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int[][][] lists = new int[threads * calls][][];
        int[][] values = new int[threads * calls][];
        List<Future<List<int[]>>> kept = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Random random = new Random(thread);
            for (int c = 0; c < calls; c++) {
                int call = thread * calls + c;
                lists[call] = new int[2][perCall];
                values[call] = new int[perCall];
                for (int n = 0; n < perCall; n++) {
                    lists[call][0][n] = random.nextInt(8);
                    lists[call][1][n] = random.nextInt(8);
                    values[call][n] = call * perCall + n;
                }
            }
            kept.add(pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                List<int[]> appended = new ArrayList<>();
                for (int c = 0; c < calls; c++) {
                    int call = thread * calls + c;
                    if (thread == 0) { // one element at a time, stopping at the first refusal
                        int n = 0;
                        try {
                            for (; n < perCall; n++) {
                                rt.generic().appendInt("v", values[call][n], lists[call][0][n], lists[call][1][n]);
                            }
                        } catch (RuntimeException refused) {
                            assertThat(refused).isInstanceOf(refusal); // elements 0..n-1 were appended
                        }
                        int[] done = new int[n];
                        Arrays.setAll(done, m -> m);
                        appended.add(done);
                        continue;
                    }
                    try {
                        Bulk.appendAll(rt, "v", lists[call], values[call]);
                        int[] all = new int[perCall];
                        Arrays.setAll(all, m -> m);
                        appended.add(all);
                    } catch (BulkAppendException refused) {
                        assertThat(refused).hasCauseInstanceOf(refusal);
                        appended.add(refused.appended());
                    }
                }
                return appended;
            }));
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
        // Expected per list: each thread's appended elements in its call order.
        Map<Integer, Set<Integer>> expected = new HashMap<>();
        Map<Integer, Integer> thread = new HashMap<>();
        long total = 0;
        int refusedCalls = 0;
        for (int t = 0; t < threads; t++) {
            List<int[]> appended = kept.get(t).get();
            for (int c = 0; c < calls; c++) {
                int call = t * calls + c;
                int[] done = appended.get(c);
                refusedCalls += done.length < perCall ? 1 : 0;
                for (int n : done) {
                    int value = values[call][n];
                    expected.computeIfAbsent(lists[call][0][n] * 8 + lists[call][1][n], key -> new HashSet<>())
                            .add(value);
                    thread.put(value, t);
                    total++;
                }
            }
        }
        assertThat(refusedCalls).as("calls refused (%s)", refusal.getSimpleName()).isPositive();
        assertThat(total).as("elements appended").isPositive();
        SNode list = layout.snode(2);
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                long length = rt.generic().length(list, i, j);
                Set<Integer> want = expected.getOrDefault(i * 8 + j, Set.of());
                Set<Integer> seen = new HashSet<>();
                int[] last = new int[threads];
                Arrays.fill(last, -1);
                for (long n = 0; n < length; n++) {
                    int value = rt.generic().getInt("v", i, j, (int) n);
                    assertThat(want).as("list [%d, %d] element %d", i, j, n).contains(value);
                    assertThat(seen.add(value)).as("element %d once", value).isTrue();
                    int t = thread.get(value);
                    assertThat(value).as("thread %d's order in list [%d, %d]", t, i, j).isGreaterThan(last[t]);
                    last[t] = value;
                }
                assertThat(seen).as("list [%d, %d]", i, j).isEqualTo(want);
            }
        }
    }

    private static int[] append(int[] array, int value) {
        int[] out = Arrays.copyOf(array, array.length + 1);
        out[array.length] = value;
        return out;
    }

    /** Each list of the 8 x 8 holds exactly the model's values, in order. */
    private static void assertListsEqual(SNodeRuntime rt, Map<Integer, List<Integer>> model) {
        SNode list = rt.layout().snode(2);
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                List<Integer> want = model.getOrDefault(i * 8 + j, List.of());
                List<Integer> got = new ArrayList<>();
                for (long n = 0; n < rt.generic().length(list, i, j); n++) {
                    got.add(rt.generic().getInt("v", i, j, (int) n));
                }
                assertThat(got).as("list [%d, %d]", i, j).isEqualTo(want);
            }
        }
    }

    /** The lists hold exactly elements {@code appended} (indices into the arrays), each list in index order. */
    private static void assertListsHoldExactly(SNodeRuntime rt, int[][] lists, int[] values, List<int[]> appended) {
        Map<Integer, List<Integer>> model = new HashMap<>();
        for (int[] indices : appended) {
            int[] sorted = indices.clone();
            Arrays.sort(sorted);
            for (int n : sorted) {
                model.computeIfAbsent(lists[0][n] * 8 + lists[1][n], key -> new ArrayList<>()).add(values[n]);
            }
        }
        assertListsEqual(rt, model);
    }
}
