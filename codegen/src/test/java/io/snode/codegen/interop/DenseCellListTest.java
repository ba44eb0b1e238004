package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.FailingAllocator;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Bulk#writeCells} into a dense SNode, where a list at least as long as a slab's table
 * (the containers along the second and third coordinates: 32 x 32 here) finds its containers in
 * that table: threads write lists into one runtime at once while the memory cap or an injected
 * allocator fault refuses a container, against the model of the calls. A dense container's cells
 * are active with it, so the model is by value: a list that returned is written whole; one that
 * threw is written up to a prefix and nothing after it (each cell holds the value of its last
 * place in the prefix, or what it held before: zero). The lists are sorted (the path's own case:
 * the slab changes 32 times a list) or scattered (the slab changes nearly every cell), in
 * chunks of node memory (one segment each: the write ends its run of stores at every change of
 * segment) and, for the fault, in the chunks of a failing allocator. A list that threw must end
 * at a cell whose container is inactive: the cells resolved before the refusal are stored.
 */
class DenseCellListTest {
    static final String BLOCKS = BulkTest.BLOCKS;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void whenTheCapRefusesAContainerAPrefixOfTheListIsWrittenAndNothingAfter(boolean sorted) throws Exception {
        Layout layout = Layout.parse(BLOCKS);
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(BulkTest.reservedAfter(layout, 24)))) {
            int[] prefixes = racingLists(rt, MemoryCapExceededException.class, lists(sorted));
            assertThat(Arrays.stream(prefixes).filter(p -> p >= 0).count()).as("lists the cap refused").isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void whenAnInjectedAllocatorFaultRefusesAContainerAPrefixOfTheListIsWrittenAndNothingAfter(boolean sorted)
            throws Exception {
        Layout layout = Layout.parse(BLOCKS);
        FailingAllocator failing = new FailingAllocator(() -> new OutOfMemoryError("injected failure"));
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
            failing.countdown.set(3); // the third chunk request of the two lists fails, once
            int[] prefixes = racingLists(rt, OutOfMemoryError.class, lists(sorted));
            assertThat(Arrays.stream(prefixes).filter(p -> p >= 0).count()).as("lists the fault ended").isEqualTo(1);
        }
    }

    /**
     * Two lists of 6,000 cells, thread t's in the j rows [128 t, 128 t + 128) (so in blocks of
     * its own), i in [0, 256), k in [0, 16): some cells twice; sorted by (i, j, k) or not.
     */
    private static int[][][] lists(boolean sorted) {
        int[][][] lists = new int[2][][];
        for (int t = 0; t < lists.length; t++) {
            Random random = new Random(40 + t);
            int count = 6_000;
            int[][] cells = new int[count][];
            for (int n = 0; n < count; n++) {
                cells[n] = new int[] {random.nextInt(256), t * 128 + random.nextInt(128), random.nextInt(16)};
            }
            if (sorted) {
                Arrays.sort(cells, Comparator.<int[]>comparingInt(c -> c[0]).thenComparingInt(c -> c[1])
                        .thenComparingInt(c -> c[2]));
            }
            int[][] at = new int[3][count];
            for (int n = 0; n < count; n++) {
                for (int c = 0; c < 3; c++) {
                    at[c][n] = cells[n][c];
                }
            }
            lists[t] = at;
        }
        return lists;
    }

    /**
     * Threads write {@code lists} at once, thread t list t with value {@code t * length + n + 1}
     * for cell n (all positive, all different); checks each list against the model (see the
     * class comment) and returns per list -1 if its call returned, else its prefix's length.
     */
    private static int[] racingLists(SNodeRuntime rt, Class<? extends Throwable> failure, int[][][] lists)
            throws Exception {
        int threads = lists.length;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Boolean>> returned = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int[][] at = lists[t];
            float[] values = values(t, at[0].length);
            returned.add(pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                try {
                    Bulk.writeCells(rt, "phi", at, values);
                    return true;
                } catch (Throwable thrown) {
                    if (!failure.isInstance(thrown)) {
                        throw thrown;
                    }
                    return false;
                }
            }));
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
        int[] prefixes = new int[threads];
        for (int t = 0; t < threads; t++) {
            int[][] at = lists[t];
            int length = at[0].length;
            float[] values = values(t, length);
            int prefix = prefix(rt, at, values);
            if (returned.get(t).get()) {
                assertThat(prefix).as("list %d returned, so it is written whole", t).isEqualTo(length);
                prefixes[t] = -1;
            } else {
                prefixes[t] = prefix;
                // The refusal was the activation of the container of the cell after the prefix:
                // every cell before it whose container was active is written.
                assertThat(rt.generic().isActive(rt.layout().field("phi").snode(), at[0][prefix], at[1][prefix], at[2][prefix]))
                        .as("list %d ends (prefix %d of %d) at a cell whose container is inactive", t, prefix, length)
                        .isFalse();
            }
            // Every cell holds the value of its last place in the prefix, or zero if it has none there.
            Map<List<Integer>, Float> expected = new HashMap<>();
            for (int n = 0; n < length; n++) {
                List<Integer> cell = List.of(at[0][n], at[1][n], at[2][n]);
                if (n < prefix) {
                    expected.put(cell, values[n]);
                } else {
                    expected.putIfAbsent(cell, 0f);
                }
            }
            for (var entry : expected.entrySet()) {
                List<Integer> cell = entry.getKey();
                assertThat(rt.generic().getFloat("phi", cell.get(0), cell.get(1), cell.get(2)))
                        .as("list %d (prefix %d of %d), cell %s", t, prefix, length, cell)
                        .isEqualTo(entry.getValue());
            }
        }
        return prefixes;
    }

    private static float[] values(int thread, int length) {
        float[] values = new float[length];
        for (int n = 0; n < length; n++) {
            values[n] = thread * length + n + 1;
        }
        return values;
    }

    /**
     * The prefix the runtime holds: the first cell n that holds neither its own value nor that of
     * a later place of the same cell (a cell in the prefix holds the value of its last place
     * there, which is n's or later), or the list's length.
     */
    private static int prefix(SNodeRuntime rt, int[][] at, float[] values) {
        int length = at[0].length;
        Map<List<Integer>, List<Float>> fromHere = new HashMap<>(); // per cell, the values of its places from n on
        int prefix = length;
        for (int n = length - 1; n >= 0; n--) {
            List<Float> later = fromHere.computeIfAbsent(List.of(at[0][n], at[1][n], at[2][n]), c -> new ArrayList<>());
            later.add(values[n]);
            if (!later.contains(rt.generic().getFloat("phi", at[0][n], at[1][n], at[2][n]))) {
                prefix = n;
            }
        }
        return prefix;
    }
}
