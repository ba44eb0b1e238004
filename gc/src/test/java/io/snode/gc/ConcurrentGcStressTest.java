package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Collections requested on one thread while two others run launches that activate, write, read
 * back and deactivate blocks (each in its own region): the phase lock keeps them apart, so no
 * launch ever sees a value other than its own, and nothing is lost.
 */
class ConcurrentGcStressTest {

    private static final String LAYOUT = "pointer(ijk,8).pointer(ijk,4).dense(ijk,8).place(f32 phi)";
    private static final int LAUNCHERS = 2;
    private static final int ITERATIONS = 300;

    @Test
    void collectionsBetweenConcurrentLaunchesNeverDisturbThem() throws Exception {
        PhaseLock phases = new PhaseLock();
        ExecutorService threads = Executors.newFixedThreadPool(LAUNCHERS + 1);
        AtomicBoolean launchersDone = new AtomicBoolean();
        AtomicInteger collections = new AtomicInteger();
        CyclicBarrier go = new CyclicBarrier(LAUNCHERS + 1);
        try (ParallelCollector collector = ParallelCollector.builder().parallelism(2).zeroGrainBytes(4096).build();
             SparseRuntime rt = SparseRuntime.create(Layout.parse(LAYOUT), RuntimeOptions.DEFAULT.withCollector(collector))) {
            SNode block = rt.layout().snode(2);
            List<Future<Map<Integer, Float>>> launchers = new ArrayList<>();
            for (int t = 0; t < LAUNCHERS; t++) {
                int region = t;
                launchers.add(threads.submit(() -> {
                    Random rnd = new Random(region);
                    Map<Integer, Float> live = new HashMap<>(); // block x -> value at its corner
                    go.await();
                    for (int i = 0; i < ITERATIONS; i++) {
                        phases.launch(() -> {
                            // Blocks (x, region, 0) for x in [0, 16): this thread's alone.
                            for (int k = 0; k < 4; k++) {
                                int x = rnd.nextInt(16);
                                float v = 1 + rnd.nextInt(1 << 20);
                                rt.setFloat("phi", v, x * 8, region * 8, 0);
                                live.put(x, v);
                            }
                            for (Map.Entry<Integer, Float> e : live.entrySet()) {
                                assertThat(rt.getFloat("phi", e.getKey() * 8, region * 8, 0)).isEqualTo(e.getValue());
                                assertThat(rt.getFloat("phi", e.getKey() * 8 + 1, region * 8, 0)).isZero();
                            }
                            int victim = rnd.nextInt(16);
                            if (live.remove(victim) != null) {
                                assertThat(rt.deactivate(block, victim, region, 0)).isTrue();
                            }
                        });
                    }
                    return live;
                }));
            }
            Future<?> gc = threads.submit(() -> {
                go.await();
                while (!launchersDone.get()) {
                    phases.exclusive(rt::collect);
                    collections.incrementAndGet();
                }
                return null;
            });
            List<Map<Integer, Float>> finals = new ArrayList<>();
            for (Future<Map<Integer, Float>> f : launchers) {
                finals.add(f.get(60, TimeUnit.SECONDS));
            }
            launchersDone.set(true);
            gc.get(60, TimeUnit.SECONDS);
            phases.exclusive(rt::collect);
            for (int region = 0; region < LAUNCHERS; region++) {
                for (Map.Entry<Integer, Float> e : finals.get(region).entrySet()) {
                    assertThat(rt.getFloat("phi", e.getKey() * 8, region * 8, 0)).isEqualTo(e.getValue());
                }
            }
            assertThat(collections.get()).isPositive();
            assertThat(rt.memoryStats().of(block).cells().cellsRecycled()).isZero();
            assertThat(rt.memoryStats().of(block).cells().cellsInUse())
                    .isEqualTo(finals.stream().mapToInt(Map::size).sum());
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        }
    }
}
