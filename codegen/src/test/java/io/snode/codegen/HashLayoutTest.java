package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.HashTableMetric;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A hash top level through the generated code: bound and caching accessors, struct-for in every
 * form, reductions, deactivation and collection, over 2,000 blocks anywhere in an
 * 8,388,608^3 domain; and a hash node as the struct-for target itself.
 */
class HashLayoutTest {
    static final Layout WIDE = Layout.parse("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    private static final int EXTENT = 65536 * 16 * 8;

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }

    /** 2,000 voxels, one per random 8^3 block, each with its value; the key is the voxel. */
    private static Map<List<Integer>, Float> blocks(long seed) {
        Random random = new Random(seed);
        Map<List<Integer>, Float> voxels = new HashMap<>();
        while (voxels.size() < 2_000) {
            voxels.put(List.of(random.nextInt(EXTENT), random.nextInt(EXTENT), random.nextInt(EXTENT)),
                    voxels.size() + 1f);
        }
        return voxels;
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2})
    void twoThousandBlocksAnywhereAreWrittenReadSummedDeactivatedAndCollected(int threads) {
        Map<List<Integer>, Float> voxels = blocks(threads);
        try (SNodeRuntime rt = SNodeRuntime.compile(WIDE)) {
            rt.parallelism(threads);
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            int n = 0;
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                (n++ % 2 == 0 ? bound : cached).phi(at.get(0), at.get(1), at.get(2), voxel.getValue());
            }
            double expected = 0;
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(bound.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                assertThat(cached.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                assertThat(rt.generic().getFloat("phi", at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                expected += voxel.getValue();
            }
            assertThat(bound.phi(EXTENT - 1, EXTENT - 1, 0)).as("an inactive voxel reads 0").isZero();
            assertThat(cached.addPhi(EXTENT - 1, EXTENT - 1, 0, 2f)).isZero();
            assertThat(bound.phi(EXTENT - 1, EXTENT - 1, 0)).isEqualTo(2f);
            expected += 2;
            long voxelCount = (voxels.size() + 1L) * 512; // every touched block is a whole dense block
            assertThat(rt.count("phi")).isEqualTo(voxelCount);
            assertThat(rt.sum("phi")).isEqualTo(expected);
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                float value = cached(rt).phi(i, j, k);
                if (value != 0) {
                    seen.put(List.of(i, j, k), value);
                }
            });
            assertThat(seen).hasSize(voxels.size() + 1).containsAllEntriesOf(voxels);
            double blockSum = rt.reduceBlocks(WIDE.snode(3), () -> new double[1], (double[] sum, LeafBlock block) -> {
                for (int c = 0; c < block.cellCount(); c++) {
                    sum[0] += block.cells().get(ValueLayout.JAVA_FLOAT, c * block.cellBytes());
                }
            }, (a, b) -> new double[] {a[0] + b[0]})[0];
            assertThat(blockSum).isEqualTo(expected);

            SNode hash = WIDE.snode(1);
            int removed = 0;
            for (List<Integer> at : new ArrayList<>(voxels.keySet())) {
                if (removed < 1_000 && rt.deactivate(hash, at.get(0) >> 7, at.get(1) >> 7, at.get(2) >> 7)) {
                    removed++;
                    expected -= voxels.remove(at);
                }
            }
            assertThat(removed).isEqualTo(1_000);
            rt.gc();
            assertThat(rt.sum("phi")).isEqualTo(expected);
            assertThat(rt.count("phi")).isEqualTo((voxels.size() + 1L) * 512);
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(cached.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
            }
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.liveEntries()).isEqualTo(voxels.size() + 1);
            assertThat(tables.retired()).as("the collection freed the replaced tables").isZero();
            assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(voxels.size() + 1);
        }
    }

    /** Each kernel thread's accessor and the runtime it belongs to (the launching thread runs kernels too, in every run). */
    private static final ThreadLocal<Map.Entry<SNodeRuntime, Phi>> CACHED = new ThreadLocal<>();

    /** One caching accessor per kernel thread and runtime (an accessor is not thread-safe, and dies with its runtime). */
    private static Phi cached(SNodeRuntime rt) {
        Map.Entry<SNodeRuntime, Phi> entry = CACHED.get();
        if (entry == null || entry.getKey() != rt) {
            entry = Map.entry(rt, rt.accessor(Phi.class));
            CACHED.set(entry);
        }
        return entry.getValue();
    }

    /** The fields on a hash node itself: its blocks in struct-for are its active cells, each with its coordinates. */
    @Test
    void aHashNodeAsTheTargetVisitsEachActiveCellOnceWithItsCoordinates() {
        Layout layout = Layout.parse("hash(ij,[100000,3000]).place(f32 x, i32 n)");
        Random random = new Random(3);
        Map<List<Integer>, Float> model = new HashMap<>();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(2);
            for (int c = 0; c < 3_000; c++) {
                int i = random.nextInt(100_000);
                int j = random.nextInt(3_000);
                rt.generic().setFloat("x", c, i, j);
                model.put(List.of(i, j), (float) c);
            }
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            rt.forEach("x", (Kernel2) (i, j) -> {
                Float before = seen.put(List.of(i, j), rt.generic().getFloat("x", i, j));
                assertThat(before).as("visited twice: %d,%d", i, j).isNull();
            });
            assertThat(seen).isEqualTo(model);
            assertThat(rt.count("x")).isEqualTo(model.size());
            assertThat(rt.sum("x")).isEqualTo(model.values().stream().mapToDouble(Float::doubleValue).sum());
            assertThat(rt.max("x")).isEqualTo(2_999);
            assertThat(rt.count("n")).isEqualTo(model.size());
            List<Integer> first = model.keySet().iterator().next();
            assertThat(rt.deactivate(layout.snode(1), first.get(0), first.get(1))).isTrue();
            assertThat(rt.count("x")).isEqualTo(model.size() - 1);
        }
    }

    /** One f32 per key of a one-axis hash node, two cells per key: 2^21 keys fill its largest table. */
    static final Layout PAIRS = Layout.parse("hash(i,4194304).dense(i,2).place(f32 v)");

    public interface V {
        float v(int i);

        void v(int i, float value);
    }

    /**
     * A box deactivation of most of a container's keys leaves it a table sized for the rest: the
     * table of 262,144 entries (4 MiB) that 100,000 keys grew is replaced as the keys go, and the
     * collection that {@code deactivateBox} runs gives it back, so the memory reserved falls.
     */
    @Test
    void aBoxDeactivationOfMostKeysShrinksTheTableAndGivesItsMemoryBack() {
        SNode hash = PAIRS.snode(1);
        try (SNodeRuntime rt = SNodeRuntime.compile(PAIRS)) {
            V bound = rt.bind(V.class);
            for (int n = 0; n < 100_000; n++) {
                bound.v(2 * n + 1, n + 0.5f);
            }
            rt.gc();
            long reserved = rt.memoryStats().bytesReserved();
            assertThat(rt.memoryStats().of(hash).tables().entries()).isEqualTo(262_144);
            assertThat(rt.deactivateBox(hash, new int[] {1_000}, new int[] {100_000})).isEqualTo(99_000);
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.entries()).as("capacityFor(1000)").isEqualTo(4_096);
            assertThat(tables.tables()).as("the replaced tables freed by the collection").isEqualTo(1);
            assertThat(tables.liveEntries()).isEqualTo(1_000);
            assertThat(rt.memoryStats().bytesReserved()).isLessThanOrEqualTo(reserved
                    - io.snode.runtime.HashHeader.tableBytes(262_144) + io.snode.runtime.HashHeader.tableBytes(4_096));
            for (int n = 0; n < 100_000; n++) {
                if (bound.v(2 * n + 1) != (n < 1_000 ? n + 0.5f : 0f)) {
                    throw new AssertionError("cell " + (2 * n + 1) + " reads " + bound.v(2 * n + 1));
                }
            }
        }
    }

    /**
     * A hash container holds at most {@code HashHeader.MAX_LIVE} (2^21) active keys.
     * Filled to 1,000 short of that, two threads race to add 1,000 new keys each (disjoint ones,
     * through one bound interface): exactly 1,000 writes return, every other one throws
     * {@link io.snode.runtime.HashTableFullException} and leaves nothing (its cell reads 0 and
     * inactive), every write that returned reads back, and the keys written before still do.
     * After one key is deactivated and collected, a new key fits again.
     */
    @Test
    void aFullHashContainerRefusesNewKeysAndThreadsRacingForItsLastPlacesKeepExactlyTheWritesThatReturned()
            throws Exception {
        int max = io.snode.runtime.HashHeader.MAX_LIVE;
        int left = 1_000;
        try (SNodeRuntime rt = SNodeRuntime.compile(PAIRS)) {
            SNode keys = PAIRS.snode(1);
            V v = rt.bind(V.class);
            for (int key = 0; key < max - left; key++) {
                v.v(2 * key, key + 1);
            }
            int threads = 2;
            boolean[][] returned = new boolean[threads][left];
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                writers.add(pool.submit(() -> {
                    start.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    for (int q = 0; q < left; q++) {
                        int key = max + threads * q + thread;
                        try {
                            v.v(2 * key + 1, key + 1);
                            returned[thread][q] = true;
                        } catch (io.snode.runtime.HashTableFullException full) {
                            assertThat(full).hasMessageContaining(keys.path());
                        }
                    }
                    return null;
                }));
            }
            try {
                for (java.util.concurrent.Future<?> writer : writers) {
                    writer.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            int wrote = 0;
            for (int t = 0; t < threads; t++) {
                for (int q = 0; q < left; q++) {
                    int key = max + threads * q + t;
                    if (returned[t][q]) {
                        wrote++;
                        assertThat(v.v(2 * key + 1)).isEqualTo(key + 1f);
                        assertThat(rt.generic().isActive(keys, key)).isTrue();
                    } else {
                        assertThat(v.v(2 * key + 1)).isZero();
                        assertThat(rt.generic().isActive(keys, key)).isFalse();
                    }
                }
            }
            assertThat(wrote).as("writes that returned").isEqualTo(left);
            for (int key = 0; key < max - left; key += 997) {
                assertThat(v.v(2 * key)).isEqualTo(key + 1f);
            }
            assertThat(rt.count("v")).isEqualTo(2L * max);
            assertThatFull(() -> v.v(2 * (max + 2 * left), 1f));
            assertThat(rt.generic().deactivate(keys, 0)).isTrue();
            rt.gc();
            v.v(2 * (max + 2 * left), 7f);
            assertThat(v.v(2 * (max + 2 * left))).isEqualTo(7f);
            assertThat(rt.count("v")).isEqualTo(2L * max);

            // Full, a key out and a new one in, again and again: the largest table takes the new keys
            // into free slots beside the deactivated ones' tombstones, without copying itself each time
            // (it did, 64 MiB and a full copy per key, while every slot it may use was taken).
            io.snode.runtime.HashTableMetric before = rt.memoryStats().of(keys).tables();
            for (int turn = 1; turn <= 8; turn++) {
                assertThat(rt.generic().deactivate(keys, turn)).isTrue();
                int key = max + 2 * left + turn;
                v.v(2 * key, turn);
                assertThat(v.v(2 * key)).isEqualTo((float) turn);
            }
            io.snode.runtime.HashTableMetric after = rt.memoryStats().of(keys).tables();
            assertThat(after.retired() + after.freed()).as("tables replaced").isEqualTo(before.retired() + before.freed());
            assertThat(after.liveEntries()).isEqualTo(max);
            assertThatFull(() -> v.v(2 * (max + 3 * left), 1f));
            // Nor does a deactivated key's tombstone take an active cell past the limit.
            assertThatFull(() -> v.v(2, 1f));
            assertThat(rt.generic().isActive(keys, 1)).isFalse();
        }
    }

    /**
     * A cell list whose keys overfill a hash container (2^21 + 5 keys, two cells each, sorted):
     * the container of key 2^21 is refused ({@link io.snode.runtime.HashTableFullException}), and
     * the call leaves the prefix before its first cell written and active, nothing after it, as
     * the memory cap does.
     */
    @Test
    void aCellListThatOverfillsAHashContainerLeavesAPrefixWrittenAndNothingAfter() {
        int max = io.snode.runtime.HashHeader.MAX_LIVE;
        int count = 2 * (max + 5);
        int[][] at = new int[1][count];
        float[] values = new float[count];
        for (int n = 0; n < count; n++) {
            at[0][n] = n;
            values[n] = n + 1;
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(PAIRS)) {
            SNode keys = PAIRS.snode(1);
            assertThatFull(() -> io.snode.codegen.interop.Bulk.writeCells(rt, "v", at, values));
            assertThat(rt.count("v")).isEqualTo(2L * max);
            for (int n = 0; n < 2 * max; n += 1009) {
                assertThat(rt.generic().getFloat("v", n)).isEqualTo(n + 1f);
            }
            assertThat(rt.generic().getFloat("v", 2 * max - 1)).isEqualTo(2f * max);
            for (int n = 2 * max; n < count; n++) {
                assertThat(rt.generic().getFloat("v", n)).isZero();
                assertThat(rt.generic().isActive(keys, n / 2)).isFalse();
            }
        }
    }

    private static void assertThatFull(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        org.assertj.core.api.Assertions.assertThatThrownBy(call)
                .isInstanceOf(io.snode.runtime.HashTableFullException.class);
    }
}
