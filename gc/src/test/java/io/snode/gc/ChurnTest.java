package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.NodeManagerMetric;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.memory.ChunkGeometry;
import io.snode.runtime.internal.memory.IndexListDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * 1,000 rounds of churn through the phase lock: activate and write a random set of 8^3 blocks
 * (inside a launch, on two threads), deactivate a random subset (and now and then a whole outer
 * cell), collect with the parallel collector. Memory must stay flat: each node manager's cells
 * never exceed its live peak plus what thread caches may hold, so the reserved bytes are
 * bounded by the peak plus one largest chunk per list, and every live value stays correct.
 */
class ChurnTest {

    private static final String LAYOUT = "pointer(ijk,8).pointer(ijk,4).dense(ijk,8).place(f32 phi)";
    private static final int ROUNDS = 1_000;
    /** Blocks are drawn from a 16^3 region: 4^3 outer cells. */
    private static final int BLOCK_RANGE = 16;
    private static final int THREADS = 2;

    private record Write(int x, int y, int z, float value) {
    }

    @Test
    void memoryStaysFlatAndLiveValuesStayCorrectOverAThousandRounds() throws Exception {
        Random rnd = new Random(20_25);
        PhaseLock phases = new PhaseLock();
        ExecutorService workers = Executors.newFixedThreadPool(THREADS);
        try (ParallelCollector collector = ParallelCollector.builder().parallelism(2).zeroGrainBytes(16 * 1024).build();
             SparseRuntime rt = SparseRuntime.create(Layout.parse(LAYOUT), RuntimeOptions.DEFAULT.withCollector(collector))) {
            SNode outer = rt.layout().snode(1);
            SNode block = rt.layout().snode(2);
            long fixedBytes = rt.memoryStats().bytesReserved(); // root cell and ambient cells
            /** Live blocks: block key -> the voxels written in it. */
            Map<Integer, Map<Integer, Float>> live = new HashMap<>();
            long[] peak = new long[2];
            long[] largestAllocated = new long[2];
            long maxReserved = 0;
            long[] lastBounds = new long[2];
            int lastPeakRound = 0;
            int lastGrowthRound = 0;
            long previousReserved = fixedBytes;
            long reclaimedTotal = 0;

            for (int round = 1; round <= ROUNDS; round++) {
                // 1. Activate and write, two threads inside one launch.
                int count = rnd.nextInt(49);
                List<List<Write>> perThread = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    perThread.add(new ArrayList<>());
                }
                List<Integer> fresh = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    int bx = rnd.nextInt(BLOCK_RANGE);
                    int by = rnd.nextInt(BLOCK_RANGE);
                    int bz = rnd.nextInt(BLOCK_RANGE);
                    int key = blockKey(bx, by, bz);
                    if (!live.containsKey(key)) {
                        fresh.add(key);
                    }
                    Map<Integer, Float> voxels = live.computeIfAbsent(key, k -> new HashMap<>());
                    for (int v = 0; v < 3; v++) {
                        int x = bx * 8 + rnd.nextInt(8);
                        int y = by * 8 + rnd.nextInt(8);
                        int z = bz * 8 + rnd.nextInt(8);
                        float value = 1 + rnd.nextInt(1_000_000);
                        voxels.put(voxelKey(x, y, z), value);
                        perThread.get(key % THREADS).add(new Write(x, y, z, value));
                    }
                }
                phases.launch(() -> {
                    List<Future<?>> done = new ArrayList<>();
                    for (List<Write> writes : perThread) {
                        done.add(workers.submit(() -> {
                            for (Write w : writes) {
                                rt.setFloat("phi", w.value(), w.x(), w.y(), w.z());
                            }
                        }));
                    }
                    for (Future<?> f : done) {
                        join(f);
                    }
                });
                // A block that came back after deactivation reads zero wherever it was not written.
                for (int key : fresh) {
                    Map<Integer, Float> voxels = live.get(key);
                    for (int probe = 0; probe < 8; probe++) {
                        int x = (key >> 10) * 8 + rnd.nextInt(8);
                        int y = (key >> 5 & 31) * 8 + rnd.nextInt(8);
                        int z = (key & 31) * 8 + rnd.nextInt(8);
                        if (!voxels.containsKey(voxelKey(x, y, z))) {
                            assertThat(rt.getFloat("phi", x, y, z)).as("round %d fresh voxel", round).isZero();
                        }
                    }
                }

                // 2. The live set is at its largest now: record the peak per node manager.
                MemoryStats afterActivation = rt.memoryStats();
                NodeManagerMetric[] m = {afterActivation.of(outer).cells(), afterActivation.of(block).cells()};
                assertThat(m[1].cellsInUse()).isEqualTo(live.size());
                for (int i = 0; i < 2; i++) {
                    if (m[i].cellsInUse() > peak[i]) {
                        peak[i] = m[i].cellsInUse();
                        lastPeakRound = round;
                    }
                }

                // 3. Deactivate a random half of the blocks, and sometimes a whole outer cell.
                List<Integer> doomed = new ArrayList<>();
                for (int key : live.keySet()) {
                    if (rnd.nextBoolean()) {
                        doomed.add(key);
                    }
                }
                int outerDeactivated = 0;
                int blocksRemoved = doomed.size();
                if (rnd.nextInt(10) == 0 && !live.isEmpty()) {
                    int anyKey = live.keySet().iterator().next();
                    int ox = (anyKey >> 10) / 4;
                    int oy = (anyKey >> 5 & 31) / 4;
                    int oz = (anyKey & 31) / 4;
                    List<Integer> inOuter = live.keySet().stream()
                            .filter(k -> (k >> 10) / 4 == ox && (k >> 5 & 31) / 4 == oy && (k & 31) / 4 == oz)
                            .toList();
                    doomed.removeAll(inOuter);
                    blocksRemoved = doomed.size() + inOuter.size();
                    phases.launch(() -> assertThat(rt.deactivate(outer, ox, oy, oz)).isTrue());
                    inOuter.forEach(live::remove);
                    outerDeactivated = 1;
                }
                phases.launch(() -> {
                    for (int key : doomed) {
                        assertThat(rt.deactivate(block, key >> 10, key >> 5 & 31, key & 31)).isTrue();
                    }
                });
                doomed.forEach(live::remove);

                // 4. Collect, exclusively.
                phases.exclusive(rt::collect);
                GcStatistics stats = collector.lastStatistics();
                assertThat(stats.sequence()).isEqualTo(round);
                assertThat(stats.of(block.path()).cellsReclaimed()).as("round %d", round).isEqualTo(blocksRemoved);
                assertThat(stats.of(outer.path()).cellsReclaimed()).isEqualTo(outerDeactivated);
                reclaimedTotal += stats.cellsReclaimed();

                // 5. Every live value is still there.
                for (Map<Integer, Float> voxels : live.values()) {
                    for (Map.Entry<Integer, Float> e : voxels.entrySet()) {
                        int k = e.getKey();
                        assertThat(rt.getFloat("phi", k >> 16, k >> 8 & 255, k & 255)).as("round %d", round)
                                .isEqualTo(e.getValue());
                    }
                }

                // 6. Memory is bounded by the peak.
                MemoryStats now = rt.memoryStats();
                NodeManagerMetric[] after = {now.of(outer).cells(), now.of(block).cells()};
                long bound = fixedBytes;
                long looseBound = fixedBytes;
                for (int i = 0; i < 2; i++) {
                    long cacheSlack = 3L * cacheBatch(after[i]);
                    assertThat(after[i].cellsAllocated()).as("round %d manager %s", round, after[i].ownerName())
                            .isLessThanOrEqualTo(peak[i] + cacheSlack);
                    largestAllocated[i] = Math.max(largestAllocated[i], after[i].cellsAllocated());
                    long cells = peak[i] + cacheSlack;
                    ChunkGeometry data = ChunkGeometry.of(after[i].cellStride(), 8);
                    ChunkGeometry index = ChunkGeometry.of(IndexListDescriptor.ELEMENT_SIZE,
                            IndexListDescriptor.ELEMENT_ALIGNMENT);
                    bound += data.bytesOfChunks(data.chunksFor(cells)) + 2 * index.bytesOfChunks(index.chunksFor(cells));
                    looseBound += cells * (after[i].cellStride() + 2 * IndexListDescriptor.ELEMENT_SIZE)
                            + data.largestChunkBytes() + 2 * index.largestChunkBytes();
                    assertThat(after[i].cellsRecycled()).isZero();
                }
                long reserved = now.bytesReserved();
                assertThat(reserved).as("round %d", round).isLessThanOrEqualTo(bound).isLessThanOrEqualTo(looseBound);
                if (reserved > previousReserved) {
                    lastGrowthRound = round;
                }
                previousReserved = reserved;
                maxReserved = Math.max(maxReserved, reserved);
                lastBounds[0] = bound;
                lastBounds[1] = looseBound;
            }
            long finalReserved = rt.memoryStats().bytesReserved();
            System.out.printf("churn: rounds=%d peakBlocks=%d peakOuterCells=%d largestAllocated=%s reclaimed=%d "
                            + "fixedBytes=%d maxReserved=%d finalReserved=%d peakLiveBlockBytes=%d "
                            + "lastPeakRound=%d lastGrowthRound=%d chunkBound=%d peakPlusLargestChunkBound=%d%n",
                    ROUNDS, peak[1], peak[0], java.util.Arrays.toString(largestAllocated), reclaimedTotal, fixedBytes,
                    maxReserved, finalReserved, peak[1] * 2048, lastPeakRound, lastGrowthRound, lastBounds[0], lastBounds[1]);
            // Flat: growth stops with the peak (within the thread caches' slack).
            assertThat(finalReserved).isEqualTo(maxReserved);
            assertThat(reclaimedTotal).isGreaterThan(10_000);
        } finally {
            workers.shutdown();
            assertThat(workers.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static int cacheBatch(NodeManagerMetric m) {
        return io.snode.runtime.internal.memory.NodeManager.defaultCacheBatch(m.cellStride());
    }

    private static int blockKey(int bx, int by, int bz) {
        return bx << 10 | by << 5 | bz;
    }

    private static int voxelKey(int x, int y, int z) {
        return x << 16 | y << 8 | z;
    }

    private static void join(Future<?> f) {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
