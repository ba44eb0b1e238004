package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
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
import org.junit.jupiter.api.Test;

/**
 * Appends to an existing list whose next chunk exists run in the generated method (the walk to
 * the list and a compare-and-set on its length); a full list, and a list whose parent level is
 * inactive, go to the runtime's protocol (new blocks and new chunks: {@link NewListChunkAppendTest}).
 * The code says so; the elements, lengths, refusals and launches after such appends are those
 * of a model, also with threads appending to the same lists.
 */
class GeneratedAppendTest {
    /** Lists of at most 40 elements in chunks of 8, one per cell of a 4^3 pointer node. */
    static final Layout LISTS = Layout.parse("pointer(ijk,4).dynamic(l,40,8).place(i32 id)");


    @Test
    void generatedAppendTakesTheIndexItselfAndCallsTheRuntimeOnlyWhenItMust() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            String code = rt.generatedCode().getFirst().disassembly();
            int start = code.indexOf(" append_id(");
            assertThat(start).isNotNegative();
            String body = code.substring(start, code.indexOf("// access flags", start));
            assertThat(body).contains("GeneratedCalls.tryAppend").contains("GeneratedCalls.appendAt");
        }
        // A list axis before a parent axis: the parameters are not the parent levels' coordinates,
        // so the runtime appends.
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(im,4).dynamic(l,40,8).place(i32 id)"))) {
            String code = rt.generatedCode().getFirst().disassembly();
            int start = code.indexOf(" append_id(");
            String body = code.substring(start, code.indexOf("// access flags", start));
            assertThat(body).doesNotContain("tryAppend").contains("GeneratedCalls.appendAt");
        }
    }

    @Test
    void appendsAcrossChunksUpToAFullListMatchTheModel() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Lists lists = rt.bind(Lists.class);
            SNode list = LISTS.field("id").snode();
            for (int n = 0; n < 40; n++) {
                assertThat(lists.appendId(1, 2, 3, 100 + n)).isEqualTo(n);
                assertThat(rt.count("id")).as("a launch after append %d", n).isEqualTo(n + 1);
            }
            assertThatThrownBy(() -> lists.appendId(1, 2, 3, 999)).isInstanceOf(DynamicListFullException.class);
            assertThat(rt.generic().length(list, 1, 2, 3)).isEqualTo(40);
            for (int n = 0; n < 40; n++) {
                assertThat(lists.id(1, 2, 3, n)).isEqualTo(100 + n);
            }
            assertThat(rt.count("id")).isEqualTo(40);
            assertThat(lists.appendId(3, 3, 3, 5)).isZero(); // another list: the runtime activates it
            assertThat(rt.count("id")).isEqualTo(41);
        }
    }

    /** An interface that only appends (an appender, as a particle source holds one). */
    public interface Appender {
        long appendId(int i, int j, int k, int value);
    }

    /**
     * A caching accessor (and a view) of an interface that only appends keeps the list memo its
     * appends use: runs of appends to three lists, each index the next one, then a full list
     * refused, and every value where the generic path reads it (on the tenth session's code the
     * accessor's first append failed with a NoSuchFieldError: the memo's fields were declared only
     * for reads and writes).
     */
    @Test
    void anAccessorThatOnlyAppendsKeepsItsListMemo() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Appender appender = rt.accessor(Appender.class);
            int[][] lists = {{1, 2, 3}, {0, 0, 0}, {3, 1, 2}};
            for (int run = 0; run < 8; run++) {
                for (int[] at : lists) {
                    for (int n = 0; n < 5; n++) {
                        assertThat(appender.appendId(at[0], at[1], at[2], at[0] * 1000 + run * 5 + n))
                                .isEqualTo(run * 5 + n);
                    }
                }
            }
            assertThatThrownBy(() -> appender.appendId(1, 2, 3, 0)).isInstanceOf(DynamicListFullException.class);
            for (int[] at : lists) {
                for (int l = 0; l < 40; l++) {
                    assertThat(rt.generic().getInt("id", at[0], at[1], at[2], l)).isEqualTo(at[0] * 1000 + l);
                }
            }
            // A view of the same interface, visiting the three lists' blocks, appends to a fourth list.
            SNode list = LISTS.field("id").snode();
            rt.parallelism(1);
            rt.forEach(list.parent(), Appender.class,
                    (io.snode.codegen.kernel.ViewKernel3<Appender>) (view, i, j, k) -> view.appendId(2, 2, 2, 7));
            assertThat(rt.generic().length(list, 2, 2, 2)).as("appends through a view").isEqualTo(3);
            for (int l = 0; l < 3; l++) {
                assertThat(rt.generic().getInt("id", 2, 2, 2, l)).isEqualTo(7);
            }
        }
    }

    /**
     * Three threads append to the same 4 lists, more than they hold: every append that returned
     * has its own index below the capacity and its value there, every refusal is a full list, and
     * the lengths are the numbers of appends that returned.
     */
    @Test
    void threadsAppendingToTheSameListsLoseNothingAndOverfillNothing() throws Exception {
        int threads = 3;
        int perThread = 80; // 4 lists x 40 elements = 160 places for 240 appends
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS); ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            Lists lists = rt.bind(Lists.class);
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<List<long[]>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    List<long[]> returned = new ArrayList<>(); // {list, index, id}
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < perThread; n++) {
                        int target = n % 4;
                        int id = thread * 1000 + n;
                        try {
                            returned.add(new long[] {target, lists.appendId(target, 0, 0, id), id});
                        } catch (DynamicListFullException full) {
                            assertThat(full.getMessage()).contains("40");
                        }
                    }
                    return returned;
                }));
            }
            checkFull(rt, lists, results);
        }
    }

    /**
     * As above through caching accessors, one per thread, each appending runs of five elements to
     * one list (so that its appends go to the block it remembers, without the walk, and find the
     * chunk it remembers) and reading each element back through its accessor at once: each read
     * gives the thread's own value, even while the other threads' appends move the list's length
     * and publish its next chunks; nothing is lost, nothing overfills.
     */
    @Test
    void threadsAppendingThroughCachingAccessorsLoseNothingAndReadTheirOwnElements() throws Exception {
        int threads = 3;
        int perThread = 80;
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS); ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<List<long[]>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    Lists lists = rt.accessor(Lists.class);
                    List<long[]> returned = new ArrayList<>(); // {list, index, id}
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < perThread; n++) {
                        int target = (n / 5 + thread) % 4;
                        int id = thread * 1000 + n;
                        try {
                            long index = lists.appendId(target, 0, 0, id);
                            assertThat(lists.id(target, 0, 0, (int) index)).as("thread %d's element %d of list %d",
                                    thread, index, target).isEqualTo(id);
                            returned.add(new long[] {target, index, id});
                        } catch (DynamicListFullException full) {
                            assertThat(full.getMessage()).contains("40");
                        }
                    }
                    return returned;
                }));
            }
            checkFull(rt, rt.accessor(Lists.class), results);
        }
    }

    /**
     * The appends that returned ({list, index, id} each) have indices of their own below the
     * capacity and their values there (read through {@code lists}); they filled the 4 lists.
     */
    private static void checkFull(SNodeRuntime rt, Lists lists, List<Future<List<long[]>>> results) throws Exception {
        int[] lengths = new int[4];
        Set<List<Long>> places = new HashSet<>();
        for (Future<List<long[]>> result : results) {
            for (long[] append : result.get(60, TimeUnit.SECONDS)) {
                int target = (int) append[0];
                assertThat(append[1]).isBetween(0L, 39L);
                assertThat(places.add(List.of(append[0], append[1]))).as("index %s of list %s taken twice", append[1],
                        append[0]).isTrue();
                assertThat(lists.id(target, 0, 0, (int) append[1])).isEqualTo((int) append[2]);
                lengths[target]++;
            }
        }
        SNode list = LISTS.field("id").snode();
        for (int target = 0; target < 4; target++) {
            assertThat(lengths[target]).as("appends that returned to list %d", target).isEqualTo(40);
            assertThat(rt.generic().length(list, target, 0, 0)).isEqualTo(40);
        }
        assertThat(rt.count("id")).isEqualTo(160);
    }
}
