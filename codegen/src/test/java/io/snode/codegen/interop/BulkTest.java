package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.FailingAllocator;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BulkTest {
    /** L2 in small: per-voxel activity in 8^3 blocks under one pointer level. */
    static final String VOXELS = "pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)";
    /** Blocks of 8^3 that are active whole, each a chunk request of its own under the cap. */
    static final String BLOCKS = "pointer(ijk,32).dense(ijk,8).place(f32 phi)";

    /** The cell list keeps its own array of axes: replacing one of the caller's afterwards changes nothing, so every coordinate is still checked before the first write. */
    @Test
    void aCellListKeepsItsAxesWhenTheCallerReplacesOne() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ij,4).bitmasked(ij,4).place(f32 v)"))) {
            int[][] coordinates = {{1, 2, 3}, {1, 2, 3}};
            CellArrays cells = CellArrays.ofFloats(coordinates, new float[] {1, 2, 3});
            coordinates[0] = new int[] {1};
            assertThat(Bulk.writeCells(rt, "v", cells)).isEqualTo(3);
            assertThat(rt.generic().getFloat("v", 3, 3)).isEqualTo(3f);
        }
    }

    /** A box of more cells than an int counts is refused for arrays and segments alike, with the way round it, before anything is written. */
    @Test
    void aBoxOfMoreThanAnIntsCellsIsRefusedWithTheWayRoundIt() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,32).pointer(ijk,64).dense(ijk,2).place(f32 x)"))) {
            int[] low = {0, 0, 0};
            int[] high = {2048, 2048, 1024};
            for (Runnable call : new Runnable[] {
                    () -> Bulk.read(rt, "x", low, high, new float[1]),
                    () -> Bulk.read(rt, "x", low, high, MemorySegment.ofArray(new float[1])),
                    () -> Bulk.write(rt, "x", low, high, MemorySegment.ofArray(new float[1]))}) {
                assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("holds 4294967296 cells; one bulk copy takes at most 2147483647")
                        .hasMessageEndingWith("copy it in pieces");
            }
            assertThat(rt.count("x")).isZero();
        }
    }

    /** Even a box of more cells than a long counts (a hash node's index space) gets that refusal, not an overflow. */
    @Test
    void aBoxOfMoreCellsThanALongCountsIsRefusedAsAnyTooLargeBox() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("hash(ijk,65536).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)"))) {
            int e = 8_388_608;
            assertThatThrownBy(() -> Bulk.write(rt, "phi", new int[] {0, 0, 0}, new int[] {e, e, e}, new float[0]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("holds 590295810358705651712 cells").hasMessageEndingWith("copy it in pieces");
            assertThatThrownBy(() -> Bulk.read(rt, "phi", new int[] {0, 0, 0}, new int[] {e, e, e}, new float[0]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("copy it in pieces");
        }
    }

    /**
     * A segment whose arena is closed, or confined to another thread, is refused before anything
     * is written: the copy would meet it only after activating the first container.
     */
    @Test
    void aSegmentThisThreadCannotAccessIsRefusedBeforeAnyActivation() throws Exception {
        for (String layout : List.of(BLOCKS, VOXELS)) {
            try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(layout))) {
                Arena closed = Arena.ofConfined();
                MemorySegment gone = closed.allocate(8 * 8 * 8 * Float.BYTES);
                closed.close();
                MemorySegment[] foreign = new MemorySegment[1];
                Arena[] foreignArena = new Arena[1];
                Thread owner = new Thread(() -> {
                    foreignArena[0] = Arena.ofConfined();
                    foreign[0] = foreignArena[0].allocate(8 * 8 * 8 * Float.BYTES);
                });
                owner.start();
                owner.join(TimeUnit.SECONDS.toMillis(20));
                int[] low = {0, 0, 0};
                int[] high = {8, 8, 8};
                assertThatThrownBy(() -> Bulk.write(rt, "phi", low, high, gone)).as(layout)
                        .isInstanceOf(IllegalArgumentException.class).hasMessage("values: the segment's arena is closed");
                assertThatThrownBy(() -> Bulk.read(rt, "phi", low, high, gone))
                        .isInstanceOf(IllegalArgumentException.class).hasMessage("into: the segment's arena is closed");
                assertThatThrownBy(() -> Bulk.write(rt, "phi", low, high, foreign[0]))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("values: the segment is confined");
                assertThat(rt.count("phi")).as(layout).isZero();
                assertThat(rt.memoryStats().of(rt.layout().snode(1)).cells().cellsInUse()).as(layout).isZero();
            }
        }
    }

    @Test
    void aBoxStraddlingInactiveBlocksReadsZeroThereAndItsValuesWhereActive() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(VOXELS))) {
            rt.generic().setFloat("phi", 1.5f, 7, 7, 7);
            rt.generic().setFloat("phi", 2.5f, 8, 8, 8);
            float[] box = new float[12 * 12 * 12];
            java.util.Arrays.fill(box, Float.NaN);
            Bulk.read(rt, "phi", new int[] {4, 4, 4}, new int[] {16, 16, 16}, box);
            for (int n = 0; n < box.length; n++) {
                int i = 4 + n / 144;
                int j = 4 + n / 12 % 12;
                int k = 4 + n % 12;
                float expected = i == 7 && j == 7 && k == 7 ? 1.5f : i == 8 && j == 8 && k == 8 ? 2.5f : 0f;
                assertThat(box[n]).as("(%d,%d,%d)", i, j, k).isEqualTo(expected);
            }
            // A write of a box across four blocks, two of them new, activates exactly its cells.
            float[] values = new float[4 * 3 * 2];
            for (int n = 0; n < values.length; n++) {
                values[n] = 100 + n;
            }
            assertThat(Bulk.write(rt, "phi", new int[] {6, 7, 15}, new int[] {10, 10, 17}, values)).isEqualTo(24);
            SNode voxels = rt.layout().snode(2);
            int n = 0;
            for (int i = 6; i < 10; i++) {
                for (int j = 7; j < 10; j++) {
                    for (int k = 15; k < 17; k++) {
                        assertThat(rt.generic().getFloat("phi", i, j, k)).isEqualTo(100 + n++);
                        assertThat(rt.generic().isActive(voxels, i, j, k)).isTrue();
                    }
                }
            }
            assertThat(rt.generic().isActive(voxels, 6, 7, 14)).isFalse();
            assertThat(rt.generic().isActive(voxels, 10, 7, 15)).isFalse();
            assertThat(rt.count("phi")).isEqualTo(2 + 24);
        }
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsWritten() {
        Layout layout = Layout.parse("pointer(ijk,4){ bitmasked(ijk,8).place(f32 phi); dynamic(l,64,8).place(i32 p) }");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            int[] low = {0, 0, 0};
            int[] high = {2, 2, 2};
            assertThatThrownBy(() -> Bulk.write(rt, "phi", low, high, new double[8]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field phi is f32");
            assertThatThrownBy(() -> Bulk.write(rt, "phi", low, high, new float[7]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds 8 cells; the array has 7");
            assertThatThrownBy(() -> Bulk.write(rt, "phi", low, new int[] {2, 2, 33}, new float[8]))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("high");
            assertThatThrownBy(() -> Bulk.write(rt, "phi", new int[] {3, 0, 0}, high, new float[0]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("low=3 > high=2");
            assertThatThrownBy(() -> Bulk.write(rt, "phi", new int[] {0, 0}, high, new float[8]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("corners of 3 coordinates");
            assertThatThrownBy(() -> Bulk.write(rt, "p", new int[] {0, 0, 0, 0}, new int[] {1, 1, 1, 1}, new int[1]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dense and bitmasked");
            assertThatThrownBy(() -> Bulk.read(rt, "nope", low, high, new float[8]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field=nope");
            assertThatThrownBy(() -> Bulk.writeCells(rt, "phi", new int[][] {{0, 1}, {0, 1}, {0, 32}}, new float[2]))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("cell 1");
            try (Arena arena = Arena.ofConfined()) {
                assertThatThrownBy(() -> Bulk.write(rt, "phi", low, high, arena.allocate(31)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32 bytes");
            }
            assertThat(rt.count("phi")).isZero();
            assertThat(rt.generic().isActive(layout.snode(1), 0, 0, 0)).isFalse();
        }
        SNodeRuntime closed = SNodeRuntime.compile(layout);
        closed.close();
        assertThatThrownBy(() -> Bulk.activeCells(closed, "phi")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aMemorySegmentServesAsTheBufferBothWays() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ij,4).dense(ij,4).place(f64 v)"));
             Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(ValueLayout.JAVA_DOUBLE, 6 * 5);
            for (int n = 0; n < 30; n++) {
                in.setAtIndex(ValueLayout.JAVA_DOUBLE, n, n * 0.25);
            }
            Bulk.write(rt, "v", new int[] {1, 2}, new int[] {7, 7}, in);
            MemorySegment out = arena.allocate(ValueLayout.JAVA_DOUBLE, 6 * 5);
            Bulk.read(rt, "v", new int[] {1, 2}, new int[] {7, 7}, out);
            assertThat(out.mismatch(in)).isEqualTo(-1);
            assertThat(rt.generic().getDouble("v", 6, 6)).isEqualTo(29 * 0.25);
        }
    }

    @Test
    void whenTheCapRefusesABlockEveryBlockIsWrittenWholeOrNotAtAll() {
        Layout layout = Layout.parse(BLOCKS);
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(reservedAfter(layout, 1) + 1))) {
            float[] values = new float[256 * 8 * 8];
            java.util.Arrays.fill(values, 3f);
            Throwable thrown = catchThrowable(() -> Bulk.write(rt, "phi", new int[] {0, 0, 0}, new int[] {256, 8, 8}, values));
            assertThat(thrown).isInstanceOf(MemoryCapExceededException.class);
            int whole = assertEachBlockWholeOrUntouched(rt, 0, 32, 3f);
            assertThat(whole).as("blocks written before the refusal").isPositive().isLessThan(32);
        }
    }

    @Test
    void anInjectedAllocatorFaultLeavesTheBlocksBeforeItAndNothingOfTheRest() {
        Layout layout = Layout.parse(BLOCKS);
        FailingAllocator failing = new FailingAllocator(() -> new OutOfMemoryError("injected failure"));
        AtomicInteger countdown = failing.countdown;
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
            rt.generic().setFloat("phi", 1f, 0, 0, 0);
            countdown.set(2); // the first new chunk after this one fails
            float[] values = new float[256 * 8 * 8];
            java.util.Arrays.fill(values, 4f);
            Throwable thrown = catchThrowable(() -> Bulk.write(rt, "phi", new int[] {0, 0, 0}, new int[] {256, 8, 8}, values));
            assertThat(thrown).isInstanceOf(OutOfMemoryError.class).hasMessageContaining("injected");
            assertThat(assertEachBlockWholeOrUntouched(rt, 0, 32, 4f)).isPositive().isLessThan(32);
            assertThat(rt.generic().getFloat("phi", 0, 0, 0)).isEqualTo(4f);
        }
    }

    @Test
    void threadsWritingBoxesUnderACapKeepEveryBoxThatReturnedAndLeaveNoBlockHalfWritten() throws Exception {
        Layout layout = Layout.parse(BLOCKS);
        int threads = 4;
        int boxesPerThread = 8;
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(reservedAfter(layout, 40)))) {
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<Integer>>> returned = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                returned.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    List<Integer> ok = new ArrayList<>();
                    for (int b = 0; b < boxesPerThread; b++) {
                        int row = thread * boxesPerThread + b; // a row of 4 blocks along i at j = row
                        float[] values = new float[32 * 8 * 8];
                        java.util.Arrays.fill(values, row + 1);
                        try {
                            Bulk.write(rt, "phi", new int[] {0, row * 8, 0}, new int[] {32, row * 8 + 8, 8}, values);
                            ok.add(row);
                        } catch (MemoryCapExceededException refused) {
                            // this row may be partly written: checked below block by block
                        }
                    }
                    return ok;
                }));
            }
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            int returnedRows = 0;
            for (Future<List<Integer>> future : returned) {
                for (int row : future.get()) {
                    assertThat(assertEachBlockWholeOrUntouched(rt, row, 4, row + 1)).as("row %d returned", row).isEqualTo(4);
                    returnedRows++;
                }
            }
            for (int row = 0; row < threads * boxesPerThread; row++) {
                assertEachBlockWholeOrUntouched(rt, row, 4, row + 1);
            }
            assertThat(returnedRows).as("rows that fit under the cap").isPositive().isLessThan(threads * boxesPerThread);
        }
    }

    @Test
    void whenTheCapRefusesACellListAPrefixOfItIsWrittenAndActiveAndNothingAfter() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(reservedAfter(layout, 24)))) {
            int refused = racingCellLists(rt, MemoryCapExceededException.class);
            assertThat(refused).as("lists the cap refused").isPositive();
        }
    }

    @Test
    void whenAnInjectedAllocatorFaultEndsACellListAPrefixOfItIsWrittenAndActiveAndNothingAfter() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        FailingAllocator failing = new FailingAllocator(() -> new OutOfMemoryError("injected failure"));
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
            failing.countdown.set(3); // the third chunk request of the two lists fails, once
            int refused = racingCellLists(rt, OutOfMemoryError.class);
            assertThat(refused).as("lists the fault ended").isEqualTo(1);
        }
    }

    /**
     * The cell-by-cell path of a layout whose blocks number 2^63 or more ((2^20 * 2)^3 blocks of
     * 8^3 voxels): two threads write scattered lists at once while the memory cap or an injected
     * allocator fault ends one of them; against the model of the calls (a list that returned is
     * written whole, one that threw up to a prefix and nothing after it, each cell with its last
     * value).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"cap", "fault"})
    void aListWrittenCellByCellLeavesAPrefixWhenTheCapOrAFaultEndsIt(String refusal) throws Exception {
        Layout layout = Layout.parse("hash(ijk,1048576).pointer(ijk,2).bitmasked(ijk,8).place(f32 phi)");
        if (refusal.equals("cap")) {
            RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
            try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(reservedAfter(layout, 24)))) {
                assertThat(racingCellLists(rt, MemoryCapExceededException.class)).as("lists the cap refused").isPositive();
            }
        } else {
            FailingAllocator failing = new FailingAllocator(() -> new OutOfMemoryError("injected failure"));
            try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
                failing.countdown.set(3); // the third chunk request of the two lists fails, once
                assertThat(racingCellLists(rt, OutOfMemoryError.class)).as("lists the fault ended").isEqualTo(1);
            }
        }
    }

    /**
     * Two threads write cell lists at once into {@code rt} (layout pointer(ijk,32).bitmasked(ijk,8),
     * each thread in its own j rows, cells scattered so that the call's cache holds gathered bits
     * when a failure of {@code failure}'s class ends a list). Checks against the model of what the
     * calls did (see {@link #racingCellLists(SNodeRuntime, Class, int[][][])}); returns the lists
     * that threw.
     */
    private static int racingCellLists(SNodeRuntime rt, Class<? extends Throwable> failure) throws Exception {
        int[][][] lists = new int[2][][];
        for (int t = 0; t < lists.length; t++) {
            // Thread t: cells scattered over the blocks of its own j rows, three per block, in an order that
            // comes back to earlier blocks (so bits wait in the call's cache when the failure comes).
            lists[t] = scatteredCells(new java.util.Random(t), 3000, t, 8);
        }
        int refused = 0;
        for (int prefix : racingCellLists(rt, failure, lists)) {
            refused += prefix < 0 ? 0 : 1;
        }
        return refused;
    }

    /**
     * {@code count} cells with i uniform in [0, 256), j in thread {@code thread}'s rows
     * [128 thread, 128 thread + 128) and k uniform in [0, {@code kRange}).
     */
    private static int[][] scatteredCells(java.util.Random random, int count, int thread, int kRange) {
        int[][] at = new int[3][count];
        for (int n = 0; n < count; n++) {
            at[0][n] = random.nextInt(256);
            at[1][n] = thread * 128 + random.nextInt(128);
            at[2][n] = random.nextInt(kRange);
        }
        return at;
    }

    /**
     * Threads write the cell lists {@code lists} at once into {@code rt}, thread {@code t} list
     * {@code t} with values {@code t * length + n + 1}, through {@link Bulk#writeCells}. Checks
     * against the model of what the calls did: a list that returned is written whole, one that
     * threw (an exception of {@code failure}'s class, nothing else) is written and active up to a
     * prefix and nothing after it, every written cell holds its last value in the list. Returns
     * per list -1 if its call returned, else the length of the prefix written.
     */
    private static int[] racingCellLists(SNodeRuntime rt, Class<? extends Throwable> failure, int[][][] lists)
            throws Exception {
        int threads = lists.length;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> outcomes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int[][] at = lists[t];
            int length = at[0].length;
            int thread = t;
            outcomes.add(pool.submit(() -> {
                float[] values = new float[length];
                for (int n = 0; n < length; n++) {
                    values[n] = thread * length + n + 1;
                }
                start.await(10, TimeUnit.SECONDS);
                try {
                    Bulk.writeCells(rt, "phi", at, values);
                    return -1;
                } catch (Throwable thrown) {
                    if (!failure.isInstance(thrown)) {
                        throw thrown;
                    }
                    return 0;
                }
            }));
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
        SNode voxels = rt.layout().field("phi").snode();
        int[] prefixes = new int[threads];
        for (int t = 0; t < threads; t++) {
            boolean returned = outcomes.get(t).get() < 0;
            // The last value written to each cell, and whether the list got that far: a prefix.
            int[][] at = lists[t];
            int length = at[0].length;
            java.util.Map<List<Integer>, Integer> last = new java.util.HashMap<>();
            int firstMissing = -1;
            for (int n = 0; n < length; n++) {
                List<Integer> cell = List.of(at[0][n], at[1][n], at[2][n]);
                boolean active = rt.generic().isActive(voxels, at[0][n], at[1][n], at[2][n]);
                if (!active && firstMissing < 0) {
                    firstMissing = n;
                }
                if (firstMissing < 0) {
                    last.put(cell, n);
                } else if (!last.containsKey(cell)) {
                    assertThat(active).as("thread %d cell %d after the first missing one (%d)", t, n, firstMissing).isFalse();
                }
            }
            if (returned) {
                assertThat(firstMissing).as("a list that returned is written whole").isEqualTo(-1);
            }
            for (var entry : last.entrySet()) {
                List<Integer> cell = entry.getKey();
                assertThat(rt.generic().getFloat("phi", cell.get(0), cell.get(1), cell.get(2)))
                        .isEqualTo(t * length + entry.getValue() + 1f);
            }
            prefixes[t] = returned ? -1 : firstMissing < 0 ? length : firstMissing;
        }
        return prefixes;
    }

    /**
     * Scattered lists of 30,000 cells per thread over 11,264 blocks each (about 10,500 of them
     * reached, about 3,450 by the first 4,096 cells): most of each goes container by container.
     * Together they reach about 21,000 blocks, past the about 15,360 blocks that the cap and the
     * fault below allow (the refusal comes with the chunk of node memory past them), and one list
     * alone stays far enough below that, so whichever list is refused has by then gone past its
     * first 4,096 cells and on grouped, however the two threads are scheduled. (With 16,384
     * blocks per list, about 13,000 reached, a thread that ran far ahead could make the other
     * meet the refusal within its first cells: a prefix of 2,883 once in CI.)
     */
    private static int[][][] scatteredLists() {
        int[][][] lists = new int[2][][];
        for (int t = 0; t < lists.length; t++) {
            lists[t] = scatteredCells(new java.util.Random(10 + t), 30_000, t, 176);
        }
        return lists;
    }

    /**
     * A cell list stores each value before it sets the cell's mask bit, the first cell of a new
     * container too. A scattered list activates each group's containers before it stores the
     * group's values, so at every allocation of one (sampled), no cell of the list may read
     * active with a value it was not given (every value listed is positive). The activation of a
     * container used to set the bit of the cell that reached it, which then read active and 0
     * until the store.
     */
    @Test
    void noCellOfACellListReadsActiveBeforeItsValueIsStored() {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode voxels = layout.snode(2);
            int[][] at = scatteredCells(new java.util.Random(5), 20_000, 0, 256);
            int count = at[0].length;
            float[] values = new float[count];
            for (int n = 0; n < count; n++) {
                values[n] = n + 1;
            }
            int[] allocations = {0};
            List<String> early = new ArrayList<>();
            rt.generic().internalTree().probeAllocations(owner -> {
                if (allocations[0]++ % 1000 != 999) {
                    return;
                }
                for (int n = 0; n < count && early.size() < 5; n++) {
                    if (rt.generic().isActive(voxels, at[0][n], at[1][n], at[2][n])
                            && rt.generic().getFloat("phi", at[0][n], at[1][n], at[2][n]) == 0f) {
                        early.add("cell " + n + " at allocation " + allocations[0]);
                    }
                }
            });
            try {
                assertThat(Bulk.writeCells(rt, "phi", at, values)).isEqualTo(count);
            } finally {
                rt.generic().internalTree().probeAllocations(null);
            }
            assertThat(allocations[0]).as("containers activated").isGreaterThan(5000);
            assertThat(early).as("cells active before their value was stored").isEmpty();
            for (int n = 0; n < count; n++) {
                assertThat(rt.generic().isActive(voxels, at[0][n], at[1][n], at[2][n])).isTrue();
                assertThat(rt.generic().getFloat("phi", at[0][n], at[1][n], at[2][n])).isPositive();
            }
        }
    }

    /**
     * An upper cell deactivated while a cell list activates blocks under it (here from the
     * allocation probe, once nine of its blocks are active): the block being activated meets a
     * retired word, its cell goes back, and that block and the rest go through the root, under a
     * new upper cell. The nine blocks went with the released upper cell; every cell after them
     * reads back with its last value; after a collection exactly the active cells are in use.
     * Through the remembered-container path (64 cells, one per block of upper cell (0, 0, 0), in
     * order) and the grouped one (the same 64 cells, in another order, in the middle of a
     * scattered list whose other cells lie in other upper cells).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void anUpperCellReleasedDuringACellListLosesOnlyTheBlocksActivatedBeforeIt(boolean scattered) {
        // 32^3 blocks, more than the 4,096 containers a call remembers: the scattered list's
        // first batch forgets more than one container in 16, so the rest goes to the grouped path
        // (with 16^3 blocks it never did, a probe of 12-06 found)
        Layout layout = Layout.parse("pointer(ijk,8).pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode upper = layout.snode(1);
            SNode lower = layout.snode(2);
            SNode voxels = layout.snode(3);
            int blocks = 64;
            int start = scattered ? 8192 : 0;
            int count = scattered ? 20_000 : blocks;
            int[][] at = new int[3][count];
            float[] values = new float[count];
            java.util.Random random = new java.util.Random(3);
            for (int n = 0; n < count; n++) {
                if (n >= start && n < start + blocks) {
                    int b = scattered ? ((n - start) * 37) % blocks : n - start;
                    at[0][n] = (b >> 4) * 8 + 1;
                    at[1][n] = ((b >> 2) & 3) * 8 + 2;
                    at[2][n] = (b & 3) * 8 + 3;
                } else {
                    at[0][n] = 32 + random.nextInt(224);
                    at[1][n] = random.nextInt(256);
                    at[2][n] = random.nextInt(256);
                }
                values[n] = n + 1;
            }
            boolean[] released = {false};
            rt.generic().internalTree().probeAllocations(owner -> {
                if (released[0] || !owner.equals(lower)) {
                    return;
                }
                for (int n = start; n < start + 9; n++) {
                    if (!rt.generic().isActive(lower, at[0][n] >> 3, at[1][n] >> 3, at[2][n] >> 3)) {
                        return;
                    }
                }
                released[0] = true;
                assertThat(rt.generic().deactivate(upper, 0, 0, 0)).isTrue();
            });
            try {
                assertThat(Bulk.writeCells(rt, "phi", at, values)).isEqualTo(count);
            } finally {
                rt.generic().internalTree().probeAllocations(null);
            }
            assertThat(released[0]).isTrue();
            java.util.Map<List<Integer>, Integer> last = new java.util.HashMap<>();
            for (int n = 0; n < count; n++) {
                last.put(List.of(at[0][n], at[1][n], at[2][n]), n); // a cell listed twice keeps its last value
            }
            for (int n = 0; n < count; n++) {
                boolean written = n < start || n >= start + 9;
                int value = last.get(List.of(at[0][n], at[1][n], at[2][n])) + 1;
                assertThat(rt.generic().isActive(voxels, at[0][n], at[1][n], at[2][n])).as("cell %d", n)
                        .isEqualTo(written);
                assertThat(rt.generic().getFloat("phi", at[0][n], at[1][n], at[2][n])).as("cell %d", n)
                        .isEqualTo(written ? value : 0f);
            }
            rt.gc();
            assertThat(rt.memoryStats().of(lower).cells().cellsInUse()).isEqualTo(countBlocks(rt, lower));
            assertThat(rt.memoryStats().of(upper).cells().cellsInUse()).isEqualTo(countBlocks(rt, upper));
        }
    }

    /** Active cells of {@code pointer} (a pointer SNode of extent 32 or less per axis), counted through isActive. */
    private static long countBlocks(SNodeRuntime rt, SNode pointer) {
        int[] shape = pointer.indexShape();
        long active = 0;
        for (int i = 0; i < shape[0]; i++) {
            for (int j = 0; j < shape[1]; j++) {
                for (int k = 0; k < shape[2]; k++) {
                    active += rt.generic().isActive(pointer, i, j, k) ? 1 : 0;
                }
            }
        }
        return active;
    }

    /** How many of a list's first cells the remembered-container path writes before a scattered list goes on grouped. */
    private static final int BEFORE_GROUPING = 4096;

    @Test
    void whenTheCapRefusesAScatteredCellListAPrefixOfItIsWrittenAndActiveAndNothingAfter() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        // Both lists reach about 21,000 blocks; the cap holds at least 9,000 and fewer than 18,000.
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options.withMemoryCap(reservedAfterSpread(layout, 9000)))) {
            int[] prefixes = racingCellLists(rt, MemoryCapExceededException.class, scatteredLists());
            assertThat(java.util.Arrays.stream(prefixes).filter(p -> p >= 0).count()).as("lists the cap refused").isPositive();
            for (int prefix : prefixes) {
                if (prefix >= 0) {
                    assertThat(prefix).as("refused while grouped").isGreaterThan(BEFORE_GROUPING);
                }
            }
        }
    }

    @Test
    void whenAnInjectedAllocatorFaultEndsAScatteredCellListAPrefixOfItIsWrittenAndActiveAndNothingAfter()
            throws Exception {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        int requests = chunkRequestsFor(layout, 12_000);
        FailingAllocator failing = new FailingAllocator(() -> new OutOfMemoryError("injected failure"));
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(failing))) {
            failing.countdown.set(requests + 1); // the first chunk request past 12,000 blocks fails, once
            int[] prefixes = racingCellLists(rt, OutOfMemoryError.class, scatteredLists());
            assertThat(java.util.Arrays.stream(prefixes).filter(p -> p >= 0)).as("lists the fault ended")
                    .singleElement().satisfies(p -> assertThat(p).as("ended while grouped").isGreaterThan(BEFORE_GROUPING));
        }
    }

    /** One cell in each of {@code blocks} 8^3 blocks spread over i, j and k: block b at (b % 32, b / 32 % 32, b / 1024). */
    private static void spreadBlocks(SNodeRuntime rt, int blocks) {
        for (int b = 0; b < blocks; b++) {
            rt.generic().setFloat("phi", 1f, b % 32 * 8, b / 32 % 32 * 8, b / 1024 * 8);
        }
    }

    /** The bytes reserved (without regions) once {@code blocks} blocks are active, spread as {@link #spreadBlocks} spreads them. */
    static long reservedAfterSpread(Layout layout, int blocks) {
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime probe = SNodeRuntime.compile(layout, options)) {
            spreadBlocks(probe, blocks);
            return probe.memoryStats().bytesReserved();
        }
    }

    /** The chunk requests that compiling {@code layout} and activating {@code blocks} spread blocks make. */
    private static int chunkRequestsFor(Layout layout, int blocks) {
        FailingAllocator counting = new FailingAllocator(() -> new AssertionError("never"));
        try (SNodeRuntime probe = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withAllocator(counting))) {
            spreadBlocks(probe, blocks);
            return Integer.MAX_VALUE - counting.countdown.get();
        }
    }

    /**
     * W5's pattern through the bulk import: two threads import alternate cells of one scattered
     * list of distinct cells at once, so both activate and set bits in the same containers while
     * grouped. No cell of either is lost.
     */
    @Test
    void twoScatteredListsSharingTheirContainersLoseNoCellOfEither() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,32).bitmasked(ijk,8).place(f32 phi)");
        int threads = 2;
        int perThread = 20_000;
        java.util.Random random = new java.util.Random(3);
        java.util.Set<Long> taken = new java.util.HashSet<>();
        int[][][] parts = new int[threads][3][perThread];
        float[][] values = new float[threads][perThread];
        for (int n = 0; n < threads * perThread; n++) {
            int i;
            int j;
            int k;
            do {
                i = random.nextInt(256);
                j = random.nextInt(256);
                k = random.nextInt(256);
            } while (!taken.add(((long) i << 16) | (j << 8) | k));
            int t = n % threads;
            parts[t][0][n / threads] = i;
            parts[t][1][n / threads] = j;
            parts[t][2][n / threads] = k;
            values[t][n / threads] = n + 1;
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> written = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                written.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return Bulk.writeCells(rt, "phi", parts[thread], values[thread]);
                }));
            }
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            for (Future<Long> future : written) {
                assertThat(future.get()).isEqualTo(perThread);
            }
            SNode voxels = rt.layout().snode(2);
            for (int t = 0; t < threads; t++) {
                for (int n = 0; n < perThread; n++) {
                    int i = parts[t][0][n];
                    int j = parts[t][1][n];
                    int k = parts[t][2][n];
                    assertThat(rt.generic().isActive(voxels, i, j, k)).as("thread %d cell %d", t, n).isTrue();
                    assertThat(rt.generic().getFloat("phi", i, j, k)).as("thread %d cell %d", t, n).isEqualTo(values[t][n]);
                }
            }
            assertThat(rt.count("phi")).isEqualTo((long) threads * perThread);
        }
    }

    @Test
    void aBoxWriteBesideAPerCellWriterInTheSameBlocksLosesNoCellOfEither() throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(VOXELS))) {
            CyclicBarrier start = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            Future<?> bulk = pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int round = 0; round < 20; round++) {
                    float[] values = new float[32 * 32 * 4];
                    java.util.Arrays.fill(values, round);
                    Bulk.write(rt, "phi", new int[] {0, 0, 0}, new int[] {32, 32, 4}, values);
                }
                return null;
            });
            Future<?> cells = pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int i = 0; i < 32; i++) {
                    for (int j = 0; j < 32; j++) {
                        for (int k = 4; k < 8; k++) {
                            rt.generic().setFloat("phi", -1f, i, j, k);
                        }
                    }
                }
                return null;
            });
            bulk.get(60, TimeUnit.SECONDS);
            cells.get(60, TimeUnit.SECONDS);
            pool.shutdown();
            SNode voxels = rt.layout().snode(2);
            for (int i = 0; i < 32; i++) {
                for (int j = 0; j < 32; j++) {
                    for (int k = 0; k < 8; k++) {
                        assertThat(rt.generic().isActive(voxels, i, j, k)).isTrue();
                        assertThat(rt.generic().getFloat("phi", i, j, k)).isEqualTo(k < 4 ? 19f : -1f);
                    }
                }
            }
            assertThat(rt.count("phi")).isEqualTo(32 * 32 * 8);
        }
    }

    /** The bytes reserved (without regions) once {@code blocks} blocks along i are written one cell each (32 per row of j). */
    static long reservedAfter(Layout layout, int blocks) {
        RuntimeOptions options = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime probe = SNodeRuntime.compile(layout, options)) {
            for (int b = 0; b < blocks; b++) {
                probe.generic().setFloat("phi", 1f, b % 32 * 8, b / 32 * 8, 0);
            }
            return probe.memoryStats().bytesReserved();
        }
    }

    /**
     * Checks that each of the {@code blocks} 8^3 blocks along i at j block {@code row} (k block 0)
     * is either active with {@code value} in every cell or inactive with zeros; returns how many
     * are written.
     */
    static int assertEachBlockWholeOrUntouched(SNodeRuntime rt, int row, int blocks, float value) {
        SNode pointer = rt.layout().snode(1);
        int whole = 0;
        for (int b = 0; b < blocks; b++) {
            boolean active = rt.generic().isActive(pointer, b, row, 0);
            for (int i = b * 8; i < b * 8 + 8; i++) {
                for (int j = row * 8; j < row * 8 + 8; j++) {
                    for (int k = 0; k < 8; k++) {
                        assertThat(rt.generic().getFloat("phi", i, j, k)).as("block %d of row %d at (%d,%d,%d)", b, row, i, j, k)
                                .isEqualTo(active ? value : 0f);
                    }
                }
            }
            whole += active ? 1 : 0;
        }
        return whole;
    }

    /**
     * A scattered list (4,096 cells in as many blocks, which sends the rest of the list to the
     * grouped path) whose rest lies in 17 blocks whose container keys are multiples of
     * 2,971,215,073: times 2^64 / phi, every such key has the same top 34 bits, so they share
     * a home slot in the grouped path's table of container numbers at every size up to 2^34.
     * Until 12-06 the table doubled whenever a probe reached 16 slots, which never separated
     * them: the call ran out of Java heap (an audit's probe: after 1 to 8 s, with 1 to 3 GiB). It
     * writes every cell now.
     */
    @Test
    void containersWhoseKeysShareAHomeSlotDoNotGrowTheGroupedWritesTableWithoutBound() {
        int scattered = 4096;
        int tail = 4096;
        int colliding = 17;
        int n = scattered + tail;
        int[] xs = new int[n];
        int[] ys = new int[n];
        int[] zs = new int[n];
        float[] values = new float[n];
        java.util.Random random = new java.util.Random(1);
        for (int c = 0; c < scattered; c++) {
            xs[c] = random.nextInt(1 << 19);
            ys[c] = random.nextInt(1 << 19);
            zs[c] = random.nextInt(1 << 19);
            values[c] = 1;
        }
        for (int c = 0; c < tail; c++) {
            long key = (c % colliding + 1) * 2_971_215_073L; // (bx * 2^16 + by) * 2^16 + bz
            int local = c / colliding;
            xs[scattered + c] = (int) (key >>> 32) * 8 + (local & 7);
            ys[scattered + c] = (int) ((key >>> 16) & 0xFFFF) * 8 + ((local >> 3) & 7);
            zs[scattered + c] = (int) (key & 0xFFFF) * 8 + ((local >> 6) & 7);
            values[scattered + c] = 2 + c;
        }
        try (SNodeRuntime runtime = SNodeRuntime.compile(
                Layout.parse("hash(ijk,4096).pointer(ijk,16).dense(ijk,8).place(f32 phi)"))) {
            assertThat(Bulk.writeCells(runtime, "phi", new int[][] {xs, ys, zs}, values)).isEqualTo(n);
            for (int c = 0; c < n; c++) {
                assertThat(runtime.generic().getFloat("phi", xs[c], ys[c], zs[c])).as("cell %d", c).isEqualTo(values[c]);
            }
            assertThat(runtime.count("phi")).isEqualTo(scattered * 512L + colliding * 512L);
        }
    }

    /**
     * Where the blocks of the field's SNode number 2^64 or more (here (2^20 * 16)^3 = 2^72
     * blocks of 8^3 cells), two blocks' keys computed in a long could be equal: the blocks of
     * (0,0,0) and (524288,0,0) had keys 0 and 2^16 * 2^48, which wrapped to 0, and the second
     * cell was written into the first cell's block (an audit: (0,0,0) read 2, (524288,0,0) read
     * 0). Such a list is written cell by cell now, each through its own walk.
     */
    @Test
    void blocksWhoseKeysWouldWrapAroundALongKeepTheirOwnCells() {
        try (SNodeRuntime runtime = SNodeRuntime.compile(
                Layout.parse("hash(ijk,1048576).pointer(ijk,16).dense(ijk,8).place(f32 phi)"))) {
            int[][] cells = {{0, 524_288, 3, 524_288 + 5}, {0, 0, 7, 1 << 26}, {0, 0, 5, (1 << 26) + 9}};
            float[] values = {1, 2, 3, 4};
            assertThat(Bulk.writeCells(runtime, "phi", cells, values)).isEqualTo(4);
            for (int c = 0; c < values.length; c++) {
                assertThat(runtime.generic().getFloat("phi", cells[0][c], cells[1][c], cells[2][c])).as("cell %d", c)
                        .isEqualTo(values[c]);
            }
            assertThat(runtime.count("phi")).as("three blocks of 512 cells").isEqualTo(3 * 512);
        }
    }
}
