package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Many threads on the same cells: exactly one allocation per activated cell, no lost update. */
class ConcurrencyStressTest {
    private static final Layout GRID = Layout.parse("pointer(ij,8).pointer(ij,8).dense(ij,4).place(i32 count, f64 mass)");

    @ParameterizedTest
    @ValueSource(ints = {2, 8, 32})
    void overlappingActivationsAllocateOncePerCellAndLoseNoAdd(int threads) throws Exception {
        int addsPerThread = 20_000;
        try (SparseRuntime rt = SparseRuntime.create(GRID)) {
            List<int[]> cells = new ArrayList<>();
            Random random = new Random(threads);
            for (int n = 0; n < 300; n++) {
                cells.add(new int[] {random.nextInt(256), random.nextInt(256)});
            }
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int seed = t;
                    done.add(pool.submit(() -> {
                        Random mine = new Random(seed);
                        start.await(10, TimeUnit.SECONDS);
                        for (int n = 0; n < addsPerThread; n++) {
                            int[] cell = cells.get(mine.nextInt(cells.size()));
                            rt.addInt("count", 1, cell[0], cell[1]);
                            rt.addDouble("mass", 0.5, cell[0], cell[1]);
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Set<List<Integer>> distinctCells = new HashSet<>();
            Set<List<Integer>> outerBlocks = new HashSet<>();
            Set<List<Integer>> innerBlocks = new HashSet<>();
            for (int[] cell : cells) {
                distinctCells.add(List.of(cell[0], cell[1]));
                outerBlocks.add(List.of(cell[0] / 32, cell[1] / 32));
                innerBlocks.add(List.of(cell[0] / 4, cell[1] / 4));
            }
            long total = 0;
            double mass = 0;
            for (List<Integer> cell : distinctCells) {
                total += rt.getInt("count", cell.get(0), cell.get(1));
                mass += rt.getDouble("mass", cell.get(0), cell.get(1));
            }
            assertThat(total).isEqualTo((long) threads * addsPerThread);
            assertThat(mass).isEqualTo(threads * addsPerThread * 0.5);
            MemoryStats stats = rt.memoryStats();
            assertThat(stats.of(GRID.snode(1)).cells().cellsInUse()).isEqualTo(outerBlocks.size());
            assertThat(stats.of(GRID.snode(2)).cells().cellsInUse()).isEqualTo(innerBlocks.size());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 8, 32})
    void concurrentAppendsKeepEveryValueExactlyOnce(int threads) throws Exception {
        int perThread = 5_000;
        Layout layout = Layout.parse("pointer(i,4).dynamic(j,1000000,16).place(i32 v)");
        SNode list = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int base = t * perThread;
                    done.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        for (int n = 0; n < perThread; n++) {
                            rt.appendInt("v", base + n, 1);
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            int total = threads * perThread;
            assertThat(rt.length(list, 1)).isEqualTo(total);
            BitSet seen = new BitSet(total);
            for (int n = 0; n < total; n++) {
                int value = rt.getInt("v", 1, n);
                assertThat(seen.get(value)).as("value %d twice", value).isFalse();
                seen.set(value);
            }
            assertThat(seen.cardinality()).isEqualTo(total);
            assertThat(rt.memoryStats().of(list).cells().cellsInUse()).isEqualTo((total + 15) / 16);
        }
    }
}
