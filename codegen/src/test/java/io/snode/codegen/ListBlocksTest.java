package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The block forms over dynamic nodes: {@code forEachBlock} and {@code reduceBlocks} hand every
 * list of the snapshot to the kernel as one {@link LeafBlock} whose chunks are contiguous
 * memory, in index order, with exactly the list's length; checked against a model of the
 * appends for lists of 0, 1, less than one, exactly one, one more than one, two (the header's
 * inline chunks), three (the first behind the directory) and many chunks, under pointer, hash,
 * dense and two-level parents.
 */
class ListBlocksTest {
    /** Chunks of 4 elements: chunks 0 and 1 are the header's own, later ones sit behind its directory. */
    static final String LIST = "dynamic(l,1024,4).place(i32 id, f32 w)";
    static final Layout POINTER = Layout.parse("pointer(ijk,4)." + LIST);
    static final Layout HASH = Layout.parse("hash(ijk,100000)." + LIST);
    static final Layout DENSE = Layout.parse("dense(ijk,4)." + LIST);
    static final Layout DEEP = Layout.parse("pointer(ijk,2).pointer(ijk,4)." + LIST);
    static final int[] LENGTHS = {0, 1, 3, 4, 5, 8, 9, 12, 13, 37, 200};

    /** The coordinates of list {@code n} in {@code layout}: distinct for n below 64. */
    static int[] listAt(Layout layout, int n) {
        int scale = layout == HASH ? 1567 : 1;
        int extent = layout == DEEP ? 8 : 4;
        return new int[] {(n % 4) * scale, (n / 4 % 4) * scale, (n / 16 % extent) * scale};
    }

    static int id(int list, long index) {
        return list * 100_000 + (int) index + 1;
    }

    static float w(int list, long index) {
        return index * 0.25f + list;
    }

    /** Appends {@code length} elements to list {@code n}; a length 0 list is made by emptying one of a single element. */
    static void fill(SNodeRuntime rt, Layout layout, int n, int length) {
        SNode list = layout.snode(layout.snodes().size() - 1);
        int[] at = listAt(layout, n);
        if (length == 0) {
            rt.generic().appendInt("id", 1, at);
            rt.deactivate(list, at); // the parent cell stays active: a block whose list is empty
            return;
        }
        for (int index = 0; index < length; index++) {
            long got = rt.generic().appendInt("id", id(n, index), at);
            rt.generic().setFloat("w", w(n, got), at[0], at[1], at[2], (int) got);
        }
    }

    /** What one block showed of its list. */
    record Seen(long length, int chunkCount, List<Long> starts, List<Long> cells, List<Integer> ids, List<Float> ws) {
    }

    static Seen read(LeafBlock block, PlacedField id, PlacedField w) {
        assertThat(block.activeCount()).isEqualTo(block.cellCount());
        assertThat(block.allActive()).isTrue();
        assertThat(block.mask()).isNull();
        List<Long> starts = new ArrayList<>();
        List<Long> cells = new ArrayList<>();
        List<Integer> ids = new ArrayList<>();
        List<Float> ws = new ArrayList<>();
        long total = 0;
        for (int c = 0; c < block.chunkCount(); c++) {
            MemorySegment chunk = block.chunk(c);
            long count = block.chunkCells(c);
            assertThat(chunk.byteSize()).as("chunk %d's bytes", c).isEqualTo(count * block.cellBytes());
            starts.add(block.chunkStart(c));
            cells.add(count);
            for (long n = 0; n < count; n++) {
                assertThat(block.isActive(block.chunkStart(c) + n)).isTrue();
                ids.add(chunk.get(ValueLayout.JAVA_INT, n * block.cellBytes() + block.fieldOffset(id)));
                ws.add(chunk.get(ValueLayout.JAVA_FLOAT, n * block.cellBytes() + block.fieldOffset(w)));
            }
            total += count;
        }
        assertThat(total).as("cells of the chunks").isEqualTo(block.cellCount());
        return new Seen(block.cellCount(), block.chunkCount(), starts, cells, ids, ws);
    }

    static Seen model(int n, int length) {
        List<Long> starts = new ArrayList<>();
        List<Long> cells = new ArrayList<>();
        for (long first = 0; first < length; first += 4) {
            starts.add(first);
            cells.add(Math.min(4, length - first));
        }
        List<Integer> ids = new ArrayList<>();
        List<Float> ws = new ArrayList<>();
        for (int index = 0; index < length; index++) {
            ids.add(id(n, index));
            ws.add(w(n, index));
        }
        return new Seen(length, starts.size(), starts, cells, ids, ws);
    }

    static List<Integer> key(int[] listCoordinates) {
        return List.of(listCoordinates[0], listCoordinates[1], listCoordinates[2], 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pointer", "hash", "dense", "deep"})
    void everyListHandsOverItsChunksInIndexOrderWithItsLength(String parent) {
        Layout layout = switch (parent) {
            case "pointer" -> POINTER;
            case "hash" -> HASH;
            case "dense" -> DENSE;
            default -> DEEP;
        };
        SNode list = layout.snode(layout.snodes().size() - 1);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Map<List<Integer>, Seen> expected = new LinkedHashMap<>();
            if (layout == DENSE) { // every cell of the dense parent holds a list: the others are empty blocks
                for (int n = 0; n < 64; n++) {
                    expected.put(key(listAt(layout, n)), model(n, 0));
                }
            }
            for (int n = 0; n < LENGTHS.length; n++) {
                fill(rt, layout, n, LENGTHS[n]);
                expected.put(key(listAt(layout, n)), model(n, LENGTHS[n]));
            }
            for (int threads : new int[] {1, 2}) {
                rt.parallelism(threads);
                Map<List<Integer>, Seen> seen = new ConcurrentHashMap<>();
                rt.forEachBlock(list, block -> {
                    Seen was = seen.put(Arrays.stream(block.origin()).boxed().toList(),
                            read(block, layout.field("id"), layout.field("w")));
                    assertThat(was).as("a list handed over twice").isNull();
                });
                assertThat(seen).as("lists under a %s parent with %d threads", parent, threads).isEqualTo(expected);
                Map<List<Integer>, Seen> reduced = rt.reduceBlocks(list, LinkedHashMap::new, (acc, block) ->
                        acc.put(Arrays.stream(block.origin()).boxed().toList(),
                                read(block, layout.field("id"), layout.field("w"))), (a, b) -> {
                    a.putAll(b);
                    return a;
                });
                assertThat(reduced).isEqualTo(expected);
                ActiveSet set = rt.activeSet(list);
                Map<List<Integer>, Seen> kept = new ConcurrentHashMap<>();
                rt.forEachBlock(set, block -> kept.put(Arrays.stream(block.origin()).boxed().toList(),
                        read(block, layout.field("id"), layout.field("w"))));
                assertThat(kept).as("over a kept set").isEqualTo(expected);
            }
        }
    }

    /** A list's origin names it as append and length do, with 0 on the list's own axis. */
    @Test
    void theOriginIsTheListsCoordinatesAndZeroOnItsAxis() {
        Layout layout = Layout.parse("pointer(ik,4).dynamic(j,64,8).place(i32 p)"); // the list axis sits between
        SNode list = layout.snode(2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().appendInt("p", 7, 3, 2);
            rt.generic().appendInt("p", 8, 3, 2);
            List<int[]> origins = new ArrayList<>();
            rt.forEachBlock(list, block -> {
                origins.add(block.origin());
                assertThat(block.chunk(0).get(ValueLayout.JAVA_INT, block.cellBytes())).isEqualTo(8);
            });
            assertThat(origins).containsExactly(new int[] {3, 0, 2});
        }
    }

    @Test
    void aListInOneChunkIsItsCellsAndALongerOneRefusesCells() {
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTER)) {
            SNode list = POINTER.snode(2);
            fill(rt, POINTER, 0, 4);
            fill(rt, POINTER, 1, 5);
            fill(rt, POINTER, 2, 0);
            rt.parallelism(1);
            List<String> checked = new ArrayList<>();
            rt.forEachBlock(list, block -> {
                switch ((int) block.cellCount()) {
                    case 4 -> {
                        assertThat(block.chunkCount()).isEqualTo(1);
                        assertThat(block.cells().byteSize()).isEqualTo(4 * block.cellBytes());
                        assertThat(block.cells().get(ValueLayout.JAVA_INT, block.fieldOffset(POINTER.field("id"))))
                                .isEqualTo(id(0, 0));
                    }
                    case 5 -> assertThatThrownBy(block::cells).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("5 elements in 2 chunks").hasMessageContaining("chunk(c)");
                    case 0 -> {
                        assertThat(block.chunkCount()).isZero();
                        assertThat(block.cells().byteSize()).isZero();
                    }
                    default -> throw new AssertionError("length " + block.cellCount());
                }
                checked.add("" + block.cellCount());
                assertThatThrownBy(() -> block.chunk(block.chunkCount())).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> block.chunkCells(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            });
            assertThat(checked).containsExactlyInAnyOrder("4", "5", "0");
        }
    }

    /**
     * A write past the length leaves the chunks below it without memory: they are handed over as
     * read-only zeros (what reading those elements gives), the written chunk as it is.
     */
    @Test
    void chunksWithoutMemoryBelowTheLengthReadZeroAndCannotBeWritten() {
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTER)) {
            SNode list = POINTER.snode(2);
            rt.generic().setInt("id", 77, 1, 1, 1, 9);
            assertThat(rt.generic().length(list, 1, 1, 1)).isEqualTo(10);
            int[] blocks = {0};
            rt.forEachBlock(list, block -> {
                blocks[0]++;
                assertThat(block.cellCount()).isEqualTo(10);
                assertThat(block.chunkCount()).isEqualTo(3);
                for (int c = 0; c < 2; c++) {
                    MemorySegment zeros = block.chunk(c);
                    assertThat(zeros.byteSize()).isEqualTo(4 * block.cellBytes());
                    for (long b = 0; b < zeros.byteSize(); b++) {
                        assertThat(zeros.get(ValueLayout.JAVA_BYTE, b)).isZero();
                    }
                    assertThat(zeros.isReadOnly()).isTrue();
                    assertThatThrownBy(() -> zeros.set(ValueLayout.JAVA_INT, 0, 1))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                }
                assertThat(block.chunkCells(2)).isEqualTo(2);
                assertThat(block.chunk(2).get(ValueLayout.JAVA_INT, block.cellBytes() + block.fieldOffset(POINTER.field("id"))))
                        .isEqualTo(77);
                assertThat(block.chunk(2).isReadOnly()).isFalse();
            });
            assertThat(blocks[0]).isEqualTo(1);
            assertThat(rt.generic().getInt("id", 1, 1, 1, 0)).isZero();
        }
    }

    /** A kernel may write the elements of its list through the chunks; reads elsewhere see the writes. */
    @Test
    void aKernelWritesElementsThroughTheChunks() {
        try (SNodeRuntime rt = SNodeRuntime.compile(DEEP)) {
            SNode list = DEEP.snode(3);
            for (int n = 0; n < LENGTHS.length; n++) {
                fill(rt, DEEP, n, LENGTHS[n]);
            }
            PlacedField w = DEEP.field("w");
            rt.forEachBlock(list, block -> {
                for (int c = 0; c < block.chunkCount(); c++) {
                    MemorySegment chunk = block.chunk(c);
                    for (long n = 0; n < block.chunkCells(c); n++) {
                        long at = n * block.cellBytes() + block.fieldOffset(w);
                        chunk.set(ValueLayout.JAVA_FLOAT, at, -chunk.get(ValueLayout.JAVA_FLOAT, at));
                    }
                }
            });
            for (int n = 0; n < LENGTHS.length; n++) {
                int[] at = listAt(DEEP, n);
                for (int index = 0; index < LENGTHS[n]; index++) {
                    assertThat(rt.generic().getFloat("w", at[0], at[1], at[2], index)).isEqualTo(-w(n, index));
                }
            }
        }
    }

    /**
     * reduceBlocks over lists: the same tasks and the same fold order with 1, 2 and 3 threads,
     * so a floating-point sum is bit for bit the same, and the lists come in the same order.
     */
    @Test
    void reduceBlocksOverListsIsTheSameForAnyParallelism() {
        try (SNodeRuntime rt = SNodeRuntime.compile(DEEP)) {
            SNode list = DEEP.snode(3);
            Random random = new Random(17);
            long elements = 0;
            for (int n = 0; n < 400; n++) { // about 100,000 elements: several tasks of 32,768
                int[] at = {n % 8, n / 8 % 8, n / 64};
                int length = random.nextInt(500);
                for (int index = 0; index < length; index++) {
                    long got = rt.generic().appendInt("id", index, at);
                    rt.generic().setFloat("w", (float) Math.sqrt(n + got * 1e-3), at[0], at[1], at[2], (int) got);
                }
                elements += length;
            }
            PlacedField w = DEEP.field("w");
            List<ListFold> results = new ArrayList<>();
            for (int threads : new int[] {1, 2, 3}) {
                rt.parallelism(threads);
                results.add(rt.reduceBlocks(list, ListFold::new, (acc, block) -> acc.add(block, w), ListFold::merge));
            }
            assertThat(results.get(0).tasks).as("several tasks").isGreaterThan(1);
            assertThat(results.get(0).elements).isEqualTo(elements);
            for (ListFold result : results.subList(1, results.size())) {
                assertThat(result.tasks).isEqualTo(results.get(0).tasks);
                assertThat(Double.doubleToRawLongBits(result.sum)).isEqualTo(Double.doubleToRawLongBits(results.get(0).sum));
                assertThat(result.origins).isEqualTo(results.get(0).origins);
            }
            double model = 0;
            for (List<Integer> origin : results.get(0).origins) {
                for (long index = 0; index < rt.generic().length(list, origin.get(0), origin.get(1), origin.get(2)); index++) {
                    model += rt.generic().getFloat("w", origin.get(0), origin.get(1), origin.get(2), (int) index);
                }
            }
            assertThat(results.get(0).sum).isEqualTo(model); // block order, then index order: the same adds
        }
    }

    /** One task's fold: a sum in element order, the lists in block order, and how many tasks were combined. */
    static final class ListFold {
        double sum;
        long elements;
        int tasks = 1;
        final List<List<Integer>> origins = new ArrayList<>();

        void add(LeafBlock block, PlacedField w) {
            origins.add(Arrays.stream(block.origin()).boxed().toList().subList(0, 3));
            for (int c = 0; c < block.chunkCount(); c++) {
                MemorySegment chunk = block.chunk(c);
                for (long n = 0; n < block.chunkCells(c); n++) {
                    sum += chunk.get(ValueLayout.JAVA_FLOAT, n * block.cellBytes() + block.fieldOffset(w));
                }
            }
            elements += block.cellCount();
        }

        static ListFold merge(ListFold left, ListFold right) {
            left.sum += right.sum;
            left.elements += right.elements;
            left.tasks += right.tasks;
            left.origins.addAll(right.origins);
            return left;
        }
    }

    @Test
    void aThrowingListKernelStopsTheLaunchWithTheListsOrigin() {
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTER)) {
            SNode list = POINTER.snode(2);
            fill(rt, POINTER, 5, 3);
            fill(rt, POINTER, 6, 3);
            int[] failing = listAt(POINTER, 6);
            KernelException e = catchThrowableOfType(KernelException.class, () -> rt.forEachBlock(list, block -> {
                if (block.origin(0) == failing[0] && block.origin(1) == failing[1] && block.origin(2) == failing[2]) {
                    throw new IllegalStateException("boom");
                }
            }));
            assertThat(e.coordinates()).containsExactly(failing[0], failing[1], failing[2], 0);
            assertThat(e.snodePath()).isEqualTo(list.path());
            assertThat(e.getCause()).hasMessage("boom");
        }
    }

    /** A kept set hands over the lists as they were when it was taken: later appends are not in it. */
    @Test
    void aKeptSetOfListsKeepsTheLengthsItSaw() {
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTER)) {
            SNode list = POINTER.snode(2);
            fill(rt, POINTER, 0, 6);
            ActiveSet set = rt.activeSet(list);
            assertThat(set.cellCount()).isEqualTo(6);
            rt.generic().appendInt("id", 99, listAt(POINTER, 0));
            fill(rt, POINTER, 1, 2);
            long[] lengths = rt.reduceBlocks(set, () -> new long[2], (acc, block) -> {
                acc[0] += block.cellCount();
                acc[1]++;
            }, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            assertThat(lengths).containsExactly(6, 1);
            long[] now = rt.reduceBlocks(list, () -> new long[2], (acc, block) -> {
                acc[0] += block.cellCount();
                acc[1]++;
            }, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            assertThat(now).containsExactly(9, 2);
        }
    }

    /** The README's example ("How struct-for works", Lists), as it stands there. */
    @Test
    void theReadmesListExampleSumsTheIds() {
        try (SNodeRuntime runtime = SNodeRuntime.compile(DEEP)) {
            SNode particles = DEEP.snode(3);
            PlacedField id = DEEP.field("id");
            long expected = 0;
            for (int n = 0; n < LENGTHS.length; n++) {
                fill(runtime, DEEP, n, LENGTHS[n]);
                for (int index = 0; index < LENGTHS[n]; index++) {
                    expected += id(n, index);
                }
            }
            // README lists, begin
            long[] ids = runtime.reduceBlocks(particles, () -> new long[1], (long[] sum, LeafBlock list) -> {
                long offset = list.fieldOffset(id);
                for (int c = 0; c < list.chunkCount(); c++) {
                    MemorySegment chunk = list.chunk(c);
                    for (long n = 0; n < list.chunkCells(c); n++) {
                        sum[0] += chunk.get(ValueLayout.JAVA_INT, n * list.cellBytes() + offset);
                    }
                }
            }, (a, b) -> new long[] {a[0] + b[0]});
            // README lists, end
            assertThat(ids[0]).isEqualTo(expected);
        }
    }

    @Test
    void pointerAndHashTargetsAreStillRefused() {
        try (SNodeRuntime rt = SNodeRuntime.compile(DEEP)) {
            assertThatThrownBy(() -> rt.forEachBlock(DEEP.snode(2), block -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("snode=" + DEEP.snode(2).path())
                    .hasMessageContaining("dense, bitmasked or dynamic node");
        }
    }

    /**
     * Launches racing appends: each list's length is read once, every element below it lies in
     * a chunk the launch hands over (none is missing, none is cut short), and each element is
     * its own value, or zero while its append is still storing it; every append that returned
     * before the launch began is there with its value.
     */
    @Test
    void launchesRacingAppendsSeeOnlyElementsBelowTheLengthTheyRead() throws Exception {
        int appenders = 2;
        int listsEach = 6;
        int perList = 700; // 175 chunks: deep into the directory
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTER)) {
            SNode list = POINTER.snode(2);
            PlacedField id = POINTER.field("id");
            rt.parallelism(2);
            int lists = appenders * listsEach;
            AtomicLongArray appended = new AtomicLongArray(lists);
            CyclicBarrier start = new CyclicBarrier(appenders + 1);
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger racing = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < appenders; t++) {
                int first = t * listsEach;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int index = 0; index < perList; index++) {
                            for (int n = first; n < first + listsEach; n++) {
                                long got = rt.generic().appendInt("id", id(n, index), listAt(POINTER, n));
                                assertThat(got).isEqualTo(index);
                                appended.set(n, index + 1); // after the value is stored
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "appender-" + t));
            }
            Thread launcher = new Thread(() -> {
                try {
                    start.await();
                    while (!done.get()) {
                        long[] before = new long[lists];
                        for (int n = 0; n < lists; n++) {
                            before[n] = appended.get(n);
                        }
                        rt.forEachBlock(list, block -> checkRacing(block, id, before, perList, lists));
                        if (Arrays.stream(before).sum() < (long) lists * perList) {
                            racing.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "launcher");
            threads.forEach(Thread::start);
            launcher.start();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
            }
            done.set(true);
            launcher.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(launcher.isAlive()).as("the launcher ended").isFalse();
            assertThat(failures).as("failures on the threads").isEmpty();
            assertThat(racing.get()).as("launches that ran while appends did").isPositive();
            long[] all = new long[lists];
            Arrays.fill(all, perList);
            long[] total = {0};
            rt.forEachBlock(list, block -> {
                checkRacing(block, id, all, perList, lists);
                synchronized (total) {
                    total[0] += block.cellCount();
                }
            });
            assertThat(total[0]).isEqualTo((long) lists * perList);
        }
    }

    private static void checkRacing(LeafBlock block, PlacedField id, long[] before, int perList, int lists) {
        int n = -1;
        for (int candidate = 0; candidate < lists; candidate++) {
            if (key(listAt(POINTER, candidate)).equals(Arrays.stream(block.origin()).boxed().toList())) {
                n = candidate;
            }
        }
        assertThat(n).as("a list of the test").isNotNegative();
        long length = block.cellCount();
        assertThat(length).as("length of list %d", n).isBetween(before[n], (long) perList);
        long seen = 0;
        for (int c = 0; c < block.chunkCount(); c++) {
            MemorySegment chunk = block.chunk(c);
            assertThat(chunk.isReadOnly()).as("a chunk below the length has memory").isFalse();
            assertThat(block.chunkStart(c)).isEqualTo(seen);
            for (long e = 0; e < block.chunkCells(c); e++) {
                long index = seen + e;
                int value = chunk.get(ValueLayout.JAVA_INT, e * block.cellBytes() + block.fieldOffset(id));
                if (index < before[n]) {
                    assertThat(value).as("element %d of list %d, appended before the launch", index, n)
                            .isEqualTo(id(n, index));
                } else {
                    assertThat(value).as("element %d of list %d", index, n).isIn(0, id(n, index));
                }
            }
            seen += block.chunkCells(c);
        }
        assertThat(seen).isEqualTo(length);
    }
}
