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
import org.junit.jupiter.api.Test;

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
