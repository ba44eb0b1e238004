package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hash node kind on the generic path: an unbounded top level whose memory follows its
 * active cells, table growth and retirement, deactivation and collection, the memory cap
 * during growth, and threads activating, deactivating and reading one hash node against a model.
 */
class HashNodeTest {
    /** An 8,388,608^3 domain: 2^48 hash cells of 16^3 pointer words, each over 8^3 voxels. */
    private static final Layout WIDE = Layout.parse("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    private static final int EXTENT = 65536 * 16 * 8;

    @Test
    void twoThousandRandomBlocksAnywhereInTheDomainCostAboutTheirOwnMemory() {
        Random random = new Random(7);
        Map<List<Integer>, Float> model = new HashMap<>();
        Set<List<Integer>> hashCells = new HashSet<>();
        try (SparseRuntime rt = SparseRuntime.create(WIDE)) {
            long before = rt.memoryStats().bytesReserved();
            for (int n = 0; n < 2_000; n++) {
                int i = random.nextInt(EXTENT);
                int j = random.nextInt(EXTENT);
                int k = random.nextInt(EXTENT);
                rt.setFloat("phi", n + 0.5f, i, j, k);
                model.put(List.of(i, j, k), n + 0.5f);
                hashCells.add(List.of(i >>> 7, j >>> 7, k >>> 7));
            }
            model.forEach((at, value) -> assertThat(rt.getFloat("phi", at.get(0), at.get(1), at.get(2)))
                    .as("phi at %s", at).isEqualTo(value));
            assertThat(rt.getFloat("phi", EXTENT - 1, 0, EXTENT - 1)).as("an inactive cell reads 0").isZero();
            SNode hash = WIDE.snode(1);
            SNode pointer = WIDE.snode(2);
            MemoryStats stats = rt.memoryStats();
            assertThat(stats.of(hash).cells().cellsInUse()).isEqualTo(hashCells.size());
            assertThat(stats.of(pointer).cells().cellsInUse()).isEqualTo(model.size());
            HashTableMetric tables = stats.of(hash).tables();
            assertThat(tables.liveEntries()).isEqualTo(hashCells.size());
            assertThat(tables.load()).isBetween(0.1, 0.5);
            // what 2,000 blocks and their parents take: a 32 KiB hash cell (16^3 pointer words)
            // and a 2 KiB leaf each, plus the table and whatever chunks round up to
            long cells = hashCells.size() * stats.of(hash).cells().cellStride()
                    + model.size() * stats.of(pointer).cells().cellStride();
            long held = stats.bytesReserved() - before;
            assertThat(held).as("bytes held for %d bytes of cells", cells).isLessThan(cells * 5 / 4 + (4L << 20));
        }
    }

    @Test
    void aGrowingTableKeepsEveryEntryAndItsRetiredTablesAreFreedByTheNextCollection() {
        Layout layout = Layout.parse("hash(i,1000000).place(i64 v)");
        SNode hash = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int n = 0; n < 5_000; n++) {
                rt.setLong("v", n * 31L, n * 199);
                if (n % 997 == 0) {
                    for (int m = 0; m <= n; m++) {
                        assertThat(rt.getLong("v", m * 199)).as("after %d inserts: cell %d", n, m).isEqualTo(m * 31L);
                    }
                }
            }
            HashTableMetric grown = rt.memoryStats().of(hash).tables();
            // a resize leaves the table a quarter used: 16 -> 64 -> 256 -> 1024 -> 4096 -> 16384 entries
            assertThat(grown.retired()).isEqualTo(5);
            assertThat(grown.tables()).isEqualTo(6);
            assertThat(grown.entries()).isEqualTo(16384);
            assertThat(grown.liveEntries()).isEqualTo(5_000);
            rt.collect();
            HashTableMetric collected = rt.memoryStats().of(hash).tables();
            assertThat(collected.retired()).isZero();
            assertThat(collected.tables()).isEqualTo(1);
            assertThat(collected.freed()).isEqualTo(5);
            assertThat(collected.bytes()).isEqualTo(HashHeader.tableBytes((int) collected.entries()));
            for (int n = 0; n < 5_000; n++) {
                assertThat(rt.getLong("v", n * 199)).isEqualTo(n * 31L);
            }
        }
    }

    @Test
    void deactivationLeavesTombstonesThatAResizeDropsAndCollectionRecyclesTheCells() {
        Layout layout = Layout.parse("dense(i,3).hash(ij,[4096,4096]){ place(i32 top); bitmasked(j,4).place(f32 x) }");
        SNode hash = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int n = 0; n < 600; n++) {
                rt.setInt("top", n + 1, n % 3, n * 5);
                rt.setFloat("x", n, n % 3, n * 20 + 1);
            }
            for (int n = 0; n < 600; n += 2) {
                assertThat(rt.deactivate(hash, n % 3, n * 5)).isTrue();
                assertThat(rt.deactivate(hash, n % 3, n * 5)).as("the second time, nothing is active").isFalse();
            }
            for (int n = 0; n < 600; n++) {
                boolean kept = n % 2 == 1;
                assertThat(rt.isActive(hash, n % 3, n * 5)).as("cell %d", n).isEqualTo(kept);
                assertThat(rt.getInt("top", n % 3, n * 5)).isEqualTo(kept ? n + 1 : 0);
                assertThat(rt.getFloat("x", n % 3, n * 20 + 1)).isEqualTo(kept ? n : 0f);
            }
            assertThat(rt.memoryStats().of(hash).cells().cellsRecycled()).isEqualTo(300);
            rt.collect();
            assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(300);
            for (int n = 0; n < 600; n += 2) { // back on the tombstones, with recycled (zeroed) cells
                assertThat(rt.getInt("top", n % 3, n * 5)).isZero();
                rt.setFloat("x", -n, n % 3, n * 20 + 2);
                assertThat(rt.getInt("top", n % 3, n * 5)).isZero();
            }
            assertThat(rt.memoryStats().of(hash).tables().liveEntries()).isEqualTo(600);
            rt.deactivateAll(hash);
            rt.collect();
            MemoryStats stats = rt.memoryStats();
            assertThat(stats.of(hash).cells().cellsInUse()).isZero();
            assertThat(stats.of(hash).tables().tables()).as("released tables are freed").isZero();
            assertThat(rt.getFloat("x", 1, 29)).isZero();
        }
    }

    @Test
    void theMemoryCapRefusingATableGrowthChangesNothing() {
        Layout layout = Layout.parse("hash(i,1000000).place(i32 v)");
        SNode hash = layout.snode(1);
        long cap = 1 << 20; // the table of 16384 entries fits, the next one (1 MiB) does not
        try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
            Map<Integer, Integer> model = new HashMap<>();
            int refused = 0;
            for (int n = 0; n < 20_000 && refused < 50; n++) {
                try {
                    rt.setInt("v", n + 1, n * 13);
                    model.put(n * 13, n + 1);
                } catch (MemoryCapExceededException expected) {
                    refused++;
                    assertThat(rt.isActive(hash, n * 13)).isFalse();
                }
            }
            assertThat(refused).as("the cap refuses").isPositive();
            model.forEach((at, value) -> assertThat(rt.getInt("v", at)).as("cell %d", at).isEqualTo(value));
            assertThat(rt.memoryStats().of(hash).tables().liveEntries()).isEqualTo(model.size());
            assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(model.size());
            assertThat(rt.memoryStats().bytesReserved()).isLessThanOrEqualTo(cap);
        }
    }

    /** The cells {@code n * 23} for n below {@code count}, with values {@code n + 1}. */
    private static void insertKeys(SparseRuntime rt, int from, int count) {
        for (int n = from; n < from + count; n++) {
            rt.setLong("v", n + 1, n * 23);
        }
    }

    private static final Layout KEYS = Layout.parse("hash(i,4000000).place(i64 v)");

    /** The cells {@code n * 23} for n below {@code count} that do not read {@code n + 1} where {@code active(n)}, else 0. */
    private static List<Integer> misread(SparseRuntime rt, int count, java.util.function.IntPredicate active) {
        List<Integer> wrong = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            if (rt.getLong("v", n * 23) != (active.test(n) ? n + 1 : 0)) {
                wrong.add(n * 23);
            }
        }
        return wrong;
    }

    /**
     * A container whose cells are deactivated one by one down to a few keeps no large table: a
     * table of more than {@link io.snode.runtime.internal.memory.HashTables#SMALL_MAX_CAPACITY}
     * entries at most a sixteenth live is replaced by one of {@link HashHeader#capacityFor} its
     * live entries (a quarter used), and the next collection gives the replaced one back.
     */
    @Test
    void aLargeTableEmptiedByDeactivationsShrinksAndTheNextCollectionGivesItsMemoryBack() {
        SNode hash = KEYS.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(KEYS)) {
            insertKeys(rt, 0, 40_000);
            rt.collect();
            HashTableMetric full = rt.memoryStats().of(hash).tables();
            assertThat(full.entries()).as("40,000 keys: 16 -> ... -> 65536 -> 262144 entries").isEqualTo(262_144);
            long reservedFull = rt.memoryStats().bytesReserved();
            for (int n = 100; n < 40_000; n++) {
                assertThat(rt.deactivate(hash, n * 23)).isTrue();
            }
            HashTableMetric shrunk = rt.memoryStats().of(hash).tables();
            // 262144 at 16384 live -> 65536; at 4096 -> 16384; at 1024 -> 4096; at 256 -> 1024, a small table
            assertThat(shrunk.entries()).isEqualTo(1024);
            assertThat(shrunk.liveEntries()).isEqualTo(100);
            assertThat(shrunk.retired()).as("the replaced tables wait for the collection").isEqualTo(4);
            rt.collect();
            HashTableMetric collected = rt.memoryStats().of(hash).tables();
            assertThat(collected.tables()).isEqualTo(1);
            assertThat(collected.bytes()).isEqualTo(HashHeader.tableBytes(1024));
            assertThat(rt.memoryStats().bytesReserved()).as("the large table's 4 MiB given back")
                    .isLessThanOrEqualTo(reservedFull - HashHeader.tableBytes(262_144) + HashHeader.tableBytes(1024));
            assertThat(misread(rt, 40_000, n -> n < 100)).isEmpty();
            insertKeys(rt, 100, 39_900);
            assertThat(misread(rt, 40_000, n -> true)).isEmpty();
            assertThat(rt.memoryStats().of(hash).tables().liveEntries()).isEqualTo(40_000);
        }
    }

    /**
     * A shrink takes its smaller table as an activation does; where the memory cap refuses it,
     * the deactivation stands and the table stays as it was, and the next deactivation tries
     * again. The cap is the bytes the same calls reserve without one (measured on a runtime of
     * the same layout and calls), plus half of the table the shrink would take; the keys go in
     * with a collection every 500, so that no more than one replaced table is held at a time.
     */
    @Test
    void aShrinkTheMemoryCapRefusesLeavesTheTableAndTheDeactivationStands() {
        SNode hash = KEYS.snode(1);
        long reserved;
        try (SparseRuntime probe = SparseRuntime.create(KEYS, RuntimeOptions.DEFAULT.withMemoryCap(1L << 30))) {
            insertCollecting(probe, 32_000);
            reserved = probe.memoryStats().bytesReserved();
        }
        long cap = reserved + HashHeader.tableBytes(16_384) / 2; // 65536 entries shrink to 16384 at 4096 live
        try (SparseRuntime rt = SparseRuntime.create(KEYS, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
            insertCollecting(rt, 32_000);
            assertThat(rt.memoryStats().bytesReserved()).isEqualTo(reserved);
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(65_536);
            for (int n = 0; n < 29_500; n++) {
                assertThat(rt.deactivate(hash, n * 23)).isTrue();
            }
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.entries()).as("every shrink (to 16384 entries) refused").isEqualTo(65_536);
            assertThat(tables.liveEntries()).isEqualTo(2_500);
            assertThat(tables.retired()).isZero();
            assertThat(rt.memoryStats().bytesReserved()).isLessThanOrEqualTo(cap);
            assertThat(misread(rt, 32_000, n -> n >= 29_500)).isEmpty();
            // at 1024 live the shrink's table (4096 entries, 64 KiB) fits under the cap
            for (int n = 29_500; n < 31_000; n++) {
                assertThat(rt.deactivate(hash, n * 23)).isTrue();
            }
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(4_096);
            assertThat(rt.memoryStats().bytesReserved()).isLessThanOrEqualTo(cap);
            assertThat(misread(rt, 32_000, n -> n >= 31_000)).isEmpty();
            rt.setLong("v", -1, 7); // the table takes new keys
            assertThat(rt.getLong("v", 7)).isEqualTo(-1);
        }
    }

    private static void insertCollecting(SparseRuntime rt, int count) {
        for (int n = 0; n < count; n += 500) {
            insertKeys(rt, n, Math.min(500, count - n));
            rt.collect();
        }
    }

    /**
     * An allocator fault injected into a shrink's table (the allocation probe throws, as a
     * failing allocator would) leaves the table and lets the deactivation stand; once the fault
     * is gone, the next deactivation shrinks. The fault as a RuntimeException, and as the
     * OutOfMemoryError that {@code Arena.allocate} throws when the system has no memory left.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"IllegalStateException", "OutOfMemoryError"})
    void anAllocatorFaultInAShrinkLeavesTheTableAndTheDeactivationStands(String fault) {
        SNode hash = KEYS.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(KEYS)) {
            insertKeys(rt, 0, 20_000);
            AtomicInteger faults = new AtomicInteger();
            rt.internalTree().probeAllocations(owner -> {
                faults.incrementAndGet();
                if (fault.equals("OutOfMemoryError")) {
                    throw new OutOfMemoryError("injected allocator fault");
                }
                throw new IllegalStateException("injected allocator fault");
            });
            for (int n = 0; n < 16_000; n++) {
                assertThat(rt.deactivate(hash, n * 23)).isTrue();
            }
            // live 20,000 -> 4,000: the deactivations that left 4096 (a sixteenth of 65536) down to 4000 live tried
            assertThat(faults.get()).as("every deactivation at or below a sixteenth live tried").isEqualTo(97);
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(65_536);
            rt.internalTree().probeAllocations(null);
            assertThat(rt.deactivate(hash, 16_000 * 23)).isTrue();
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(16_384);
            assertThat(misread(rt, 20_000, n -> n > 16_000)).isEmpty();
            assertThat(rt.memoryStats().of(hash).tables().liveEntries()).isEqualTo(3_999);
        }
    }

    /**
     * Threads deactivate almost every cell of one container (so its table shrinks several
     * times under them) while another inserts new cells and readers read cells nobody
     * deactivates: a reader never finds such a cell inactive (a shrink copies every live entry
     * before it publishes the smaller table; readers probe the old one meanwhile), and
     * afterwards exactly the kept and inserted cells are active, with their values.
     */
    @Test
    void threadsReadingAndInsertingWhileDeactivationsShrinkTheTableLoseNothing() throws Exception {
        SNode hash = KEYS.snode(1);
        int kept = 300;
        int churned = 60_000;
        int inserted = 4_000;
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try (SparseRuntime rt = SparseRuntime.create(KEYS)) {
            insertKeys(rt, 0, kept + churned);
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(262_144);
            CyclicBarrier start = new CyclicBarrier(5);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger insertedSoFar = new AtomicInteger();
            List<Future<?>> writers = deactivateHalves(pool, rt, kept, churned, start, null);
            writers.add(pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int n = 0; n < inserted; n++) {
                    int at = kept + churned + n;
                    rt.setLong("v", at + 1, at * 23);
                    insertedSoFar.set(n + 1);
                }
                return null;
            }));
            List<Future<Long>> readers = readers(pool, rt, kept, kept + churned, insertedSoFar, start, stop);
            for (Future<?> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }
            stop.set(true);
            for (Future<Long> reader : readers) {
                assertThat(reader.get(10, TimeUnit.SECONDS)).as("kept or inserted cells read otherwise").isZero();
            }
            assertThat(misread(rt, kept + churned + inserted, n -> n < kept || n >= kept + churned)).isEmpty();
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.liveEntries()).isEqualTo(kept + inserted);
            assertThat(tables.entries()).as("shrunk under the threads").isLessThan(262_144);
            assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(kept + inserted);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Two threads that deactivate cells {@code kept .. kept + churned} (keys {@code n * 23}),
     * one the even and one the odd {@code n}, each asserting that its cell was active; each
     * thread first adds itself to {@code threads} where that is not null.
     */
    private static List<Future<?>> deactivateHalves(ExecutorService pool, SparseRuntime rt, int kept, int churned,
                                                    CyclicBarrier start, Set<Thread> threads) {
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int first = kept + t;
            writers.add(pool.submit(() -> {
                if (threads != null) {
                    threads.add(Thread.currentThread());
                }
                start.await(10, TimeUnit.SECONDS);
                for (int n = first; n < kept + churned; n += 2) {
                    assertThat(rt.deactivate(KEYS.snode(1), n * 23)).isTrue();
                }
                return null;
            }));
        }
        return writers;
    }

    /**
     * Two readers, until {@code stop}, of the kept cells {@code n < kept} and of the first
     * {@code insertedSoFar} cells from {@code insertedFrom} on; each returns how many reads were
     * not the cell's value ({@code n + 1}).
     */
    private static List<Future<Long>> readers(ExecutorService pool, SparseRuntime rt, int kept, int insertedFrom,
                                              AtomicInteger insertedSoFar,
                                              CyclicBarrier start, AtomicBoolean stop) {
        List<Future<Long>> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int seed = t;
            readers.add(pool.submit(() -> {
                Random random = new Random(seed);
                start.await(10, TimeUnit.SECONDS);
                long wrong = 0;
                while (!stop.get()) {
                    int n = random.nextInt(kept);
                    wrong += rt.getLong("v", n * 23) == n + 1 ? 0 : 1;
                    int done = insertedSoFar.get();
                    if (done > 0) {
                        int at = insertedFrom + random.nextInt(done);
                        wrong += rt.getLong("v", at * 23) == at + 1 ? 0 : 1;
                    }
                }
                return wrong;
            }));
        }
        return readers;
    }

    /**
     * Shrinks refused while other threads use the container: the deactivating threads' table
     * reservations fail (an injected allocator fault, on their threads only), or the memory cap
     * refuses them (the cap leaves less room than the smaller table), while an inserter adds new
     * keys (some refused by the cap) and readers read the kept keys. Every deactivation returns
     * true and stands, the table is never replaced, no kept key ever reads otherwise, and
     * afterwards exactly the kept keys and the insertions that returned are active.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fault", "cap"})
    void shrinksRefusedWhileOtherThreadsUseTheContainerChangeNothingElse(String refusal) throws Exception {
        SNode hash = KEYS.snode(1);
        int kept = 600; // capacityFor(600) = 4096: every table a shrink could take is a large one
        int churned = 20_000;
        long reserved;
        try (SparseRuntime probe = SparseRuntime.create(KEYS, RuntimeOptions.DEFAULT.withMemoryCap(1L << 30))) {
            insertCollecting(probe, kept + churned);
            reserved = probe.memoryStats().bytesReserved();
        }
        // 65536 entries would shrink to capacityFor(live): 16384 at 4096 live, 4096 at 1024 and
        // down to the 600 kept keys (a smaller table, a cell of its size's manager, might be taken
        // from that manager's free cells without new room): the cap leaves room for half of the
        // 4096-entry table, so that every shrink is refused however far the deactivations get
        // before the inserter's keys (until 12-06 it left room for half of 16384 entries, and a
        // run whose deactivations ran ahead of the inserter took the 4096-entry table)
        RuntimeOptions options = refusal.equals("cap")
                ? RuntimeOptions.DEFAULT.withMemoryCap(reserved + HashHeader.tableBytes(4_096) / 2)
                : RuntimeOptions.DEFAULT.withMemoryCap(1L << 30);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try (SparseRuntime rt = SparseRuntime.create(KEYS, options)) {
            insertCollecting(rt, kept + churned);
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(65_536);
            Set<Thread> deactivators = ConcurrentHashMap.newKeySet();
            if (refusal.equals("fault")) {
                rt.internalTree().probeAllocations(owner -> {
                    if (deactivators.contains(Thread.currentThread())) {
                        throw new IllegalStateException("injected allocator fault");
                    }
                });
            }
            CyclicBarrier start = new CyclicBarrier(5);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<?>> writers = deactivateHalves(pool, rt, kept, churned, start, deactivators);
            Future<Set<Integer>> inserter = pool.submit(() -> {
                Set<Integer> returned = new HashSet<>();
                start.await(10, TimeUnit.SECONDS);
                for (int n = 0; n < 2_000; n++) {
                    int at = kept + churned + n;
                    try {
                        rt.setLong("v", at + 1, at * 23);
                        returned.add(at);
                    } catch (MemoryCapExceededException refused) {
                        assertThat(rt.isActive(hash, at * 23)).as("a refused insertion left nothing").isFalse();
                    }
                }
                return returned;
            });
            List<Future<Long>> readers = readers(pool, rt, kept, 0, new AtomicInteger(), start,
                    stop);
            for (Future<?> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }
            Set<Integer> inserted = inserter.get(120, TimeUnit.SECONDS);
            stop.set(true);
            for (Future<Long> reader : readers) {
                assertThat(reader.get(10, TimeUnit.SECONDS)).as("kept keys read otherwise").isZero();
            }
            rt.internalTree().probeAllocations(null);
            assertThat(misread(rt, kept + churned + 2_000, n -> n < kept || inserted.contains(n))).isEmpty();
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.liveEntries()).isEqualTo(kept + inserted.size());
            assertThat(tables.entries()).as("every shrink refused").isEqualTo(65_536);
            assertThat(tables.retired()).isZero();
            assertThat(rt.memoryStats().bytesReserved()).isLessThanOrEqualTo(options.memoryCapBytes());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The home slots of the cell indices that natural shapes give (lines along each axis of a
     * {@code hash(ijk,65536)} node, a plane, a cube; the multiples of 2,971,215,073, which all
     * had the same home under the old hash) spread over the table: inserting 2^19 of them with
     * linear probing into the table a container of that many cells gets costs at most 2 probes
     * per key on average, as random homes do (about 1.2 at that load). Until 12-06 the home was
     * the top bits of the index times 2^64 / phi alone: a line along j (indices 65,536 apart)
     * took 31 probes per key at 2^19 keys, and every container key with the 2,971,215,073
     * stride probed the same cluster (an audit's probe: 279 us per insertion at 32,768 keys).
     */
    @Test
    void naturalShapesOfCellIndicesSpreadOverTheTableWithFewProbes() {
        int keys = 1 << 19;
        int capacity = HashHeader.capacityFor(keys);
        java.util.Map<String, java.util.function.LongUnaryOperator> shapes = new java.util.LinkedHashMap<>();
        shapes.put("line along k", a -> a);
        shapes.put("line along j", a -> a << 16);
        shapes.put("line along i", a -> a << 32);
        shapes.put("plane i-j", a -> ((a >>> 10) << 32) | ((a & 1023) << 16));
        shapes.put("cube", a -> ((a >>> 14) << 32) | (((a >>> 7) & 127) << 16) | (a & 127));
        shapes.put("multiples of 2971215073", a -> (a + 1) * 2971215073L);
        for (var shape : shapes.entrySet()) {
            long[] table = new long[capacity];
            long probes = 0;
            for (long a = 0; a < keys; a++) {
                long key = shape.getValue().applyAsLong(a) + 1; // 0 is an empty entry
                int slot = HashHeader.home(key - 1, capacity);
                probes++;
                while (table[slot] != 0) {
                    slot = (slot + 1) & (capacity - 1);
                    probes++;
                }
                table[slot] = key;
            }
            assertThat((double) probes / keys).as(shape.getKey() + ": probes per insertion").isLessThan(2.0);
        }
    }

    /**
     * A table emptied in its own order (as {@code deactivateBox} and a collection's walk go)
     * leaves the cells whose homes are in its last stretch; the shrink copies them into a
     * table whose homes are taken from fewer bits of the same hash, and they must not pile into
     * that table's last stretch: at most 2 probes per copied key on average. Until 12-06 a
     * smaller table's home was the larger one's with the low bits dropped, so every survivor
     * had a home in the last sixteenth of the new table and each copy walked one cluster (an
     * audit: a box deactivation of 2^19 cells of a hash container took 9 to 17 s, against 0.5
     * to 2.3 s one by one in insertion order).
     */
    @Test
    void theCellsLeftByDeactivationsInTableOrderSpreadOverTheSmallerTable() {
        int capacity = 1 << 20;
        int bits = Integer.numberOfTrailingZeros(capacity);
        int keys = capacity / 2;
        java.util.List<Long> survivors = new java.util.ArrayList<>();
        for (long index = 0; index < keys; index++) {
            if (HashHeader.homeByBits(index, bits) >= capacity - capacity / 16) {
                survivors.add(index); // home in the last sixteenth: deactivated last
            }
        }
        int smaller = HashHeader.capacityFor(survivors.size());
        assertThat(smaller).isLessThanOrEqualTo(capacity / 4);
        long[] table = new long[smaller];
        long probes = 0;
        for (long index : survivors) {
            int slot = HashHeader.home(index, smaller);
            probes++;
            while (table[slot] != 0) {
                slot = (slot + 1) & (smaller - 1);
                probes++;
            }
            table[slot] = index + 1;
        }
        assertThat((double) probes / survivors.size()).as("probes per copied key").isLessThan(2.0);
    }

    @Test
    void aContainerHoldsAtMostHalfOfTheLargestTable() {
        assertThat(HashHeader.capacityFor(HashHeader.MAX_CAPACITY / 2)).isEqualTo(HashHeader.MAX_CAPACITY);
        assertThat(HashHeader.capacityFor(HashHeader.MAX_CAPACITY / 2 + 1)).isGreaterThan(HashHeader.MAX_CAPACITY);
        assertThat(HashHeader.capacityFor(1)).isEqualTo(HashHeader.MIN_CAPACITY);
        assertThat(HashHeader.capacityFor(5)).isEqualTo(32);
        long word = HashHeader.tableWord(5, 64);
        assertThat(HashHeader.tableId(word)).isEqualTo(5);
        assertThat(HashHeader.capacityBits(word)).isEqualTo(6);
        assertThat(HashHeader.homeByBits(12345, 6)).isEqualTo(HashHeader.home(12345, 64)).isBetween(0, 63);
        assertThat(HashHeader.tableWord(0, 16)).as("cell 0 of the smallest tables").isNotZero();
        assertThatThrownBy(() -> HashHeader.tableWord(-1, 64)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HashHeader.tableWord(1, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HashHeader.tableWord(1L << 56, 64)).isInstanceOf(IllegalArgumentException.class);
        assertThat(HashHeader.tableBytes(HashHeader.MAX_CAPACITY)).isLessThanOrEqualTo(io.snode.api.LayoutRule.MAX_CONTAINER_BYTES);
        assertThatThrownBy(() -> new io.snode.runtime.internal.memory.HashTables(
                new io.snode.runtime.internal.memory.MemoryPool(), "t").reserve(24))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity=24");
    }

    /**
     * Writers activate and deactivate cells of one hash node (so its table grows and gains
     * tombstones under them) while readers read; each writer owns its cells, so the model is
     * exact: afterwards every cell holds what its owner last wrote, or is inactive if its owner's
     * last call deactivated it. Readers only ever see 0 or a value some writer stored there.
     */
    @Test
    void threadsActivatingDeactivatingAndReadingOneHashNodeHoldAgainstAModel() throws Exception {
        Layout layout = Layout.parse("hash(ij,[1024,1024]).dense(i,2).place(i32 v)");
        SNode hash = layout.snode(1);
        int writers = 4;
        int readers = 2;
        ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
        try {
            for (int round = 0; round < 4; round++) {
                try (SparseRuntime rt = SparseRuntime.create(layout)) {
                    CyclicBarrier start = new CyclicBarrier(writers + readers);
                    AtomicBoolean stop = new AtomicBoolean();
                    List<Future<Map<List<Integer>, Integer>>> done = new ArrayList<>();
                    Set<Integer> written = ConcurrentHashMap.newKeySet();
                    for (int t = 0; t < writers; t++) {
                        int writer = t;
                        int seed = round * 100 + t;
                        done.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            Map<List<Integer>, Integer> mine = new HashMap<>();
                            start.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 6_000; n++) {
                                int hx = random.nextInt(256) * writers + writer; // hash cell i mod writers: the owner
                                int x = 2 * hx + random.nextInt(2);
                                int y = random.nextInt(64);
                                if (random.nextInt(4) == 0) {
                                    rt.deactivate(hash, hx, y); // both cells of the hash cell
                                    mine.put(List.of(2 * hx, y), 0);
                                    mine.put(List.of(2 * hx + 1, y), 0);
                                } else {
                                    int value = writer << 24 | n + 1;
                                    written.add(value);
                                    rt.setInt("v", value, x, y);
                                    mine.put(List.of(x, y), value);
                                }
                            }
                            return mine;
                        }));
                    }
                    List<Future<Integer>> reads = new ArrayList<>();
                    for (int t = 0; t < readers; t++) {
                        int seed = round * 100 + 50 + t;
                        reads.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            start.await(10, TimeUnit.SECONDS);
                            int strange = 0;
                            while (!stop.get()) {
                                int value = rt.getInt("v", random.nextInt(2048), random.nextInt(64));
                                if (value != 0 && !written.contains(value)) {
                                    strange++;
                                }
                            }
                            return strange;
                        }));
                    }
                    Map<List<Integer>, Integer> model = new HashMap<>();
                    for (Future<Map<List<Integer>, Integer>> future : done) {
                        model.putAll(future.get(60, TimeUnit.SECONDS));
                    }
                    stop.set(true);
                    for (Future<Integer> read : reads) {
                        assertThat(read.get(10, TimeUnit.SECONDS)).as("values no writer stored").isZero();
                    }
                    long active = 0;
                    for (Map.Entry<List<Integer>, Integer> entry : model.entrySet()) {
                        int x = entry.getKey().get(0);
                        int y = entry.getKey().get(1);
                        assertThat(rt.getInt("v", x, y)).as("round %d: cell %s", round, entry.getKey())
                                .isEqualTo(entry.getValue());
                        boolean either = entry.getValue() != 0
                                || model.getOrDefault(List.of(x ^ 1, y), 0) != 0;
                        assertThat(rt.isActive(hash, x / 2, y)).as("hash cell of %s", entry.getKey()).isEqualTo(either);
                        active += entry.getValue() != 0 ? 1 : 0;
                    }
                    // cells of one hash cell share it: count the hash cells the model keeps
                    Set<List<Integer>> hashCells = new HashSet<>();
                    model.forEach((at, value) -> {
                        if (value != 0) {
                            hashCells.add(List.of(at.get(0) / 2, at.get(1)));
                        }
                    });
                    assertThat(active).isPositive();
                    assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(hashCells.size());
                    assertThat(rt.memoryStats().of(hash).tables().liveEntries()).isEqualTo(hashCells.size());
                    rt.deactivateAll(hash);
                    rt.collect();
                    assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isZero();
                    assertThat(rt.memoryStats().of(hash).tables().tables()).isZero();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
