package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Kept active sets, kernels per task, and the block reduction. */
class ActiveSetTest {
    static final Layout L1 = StructForTest.L1;
    static final Layout L2 = StructForTest.L2;

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aKeptSetVisitsTheCellsActiveWhenItWasTaken(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L2, threads)) {
            SNode leaf = L2.snode(3);
            ActiveSet set = rt.activeSet(leaf);
            assertThat(set.cellCount()).isEqualTo(rt.count("phi")).isEqualTo(200);
            assertThat(set.blockCount()).isPositive().isLessThanOrEqualTo(200);
            assertThat(set.isCurrent()).isTrue();
            // Activations after the set was taken: the set stays current and does not see them.
            rt.generic().setFloat("phi", 1000f, 127, 127, 127);
            rt.generic().setFloat("phi", 1000f, 0, 0, 1);
            assertThat(set.isCurrent()).isTrue();
            // A deactivation that finds its cell inactive changes nothing (until 12-06 it made the set stale).
            assertThat(rt.generic().deactivate(leaf, 0, 0, 2)).isFalse();
            assertThat(set.isCurrent()).isTrue();
            double[] sum = {0};
            AtomicLong visits = new AtomicLong();
            rt.forEach(set, (Kernel3) (i, j, k) -> {
                visits.incrementAndGet();
                synchronized (sum) {
                    sum[0] += rt.generic().getFloat("phi", i, j, k);
                }
            });
            assertThat(visits.get()).isEqualTo(200);
            assertThat(sum[0]).isEqualTo(199 * 200 / 2.0);
            double blockSum = rt.reduceBlocks(set, () -> new double[1], (double[] acc, LeafBlock block) -> {
                for (int n = 0; n < block.cellCount(); n++) {
                    if (block.isActive(n)) {
                        acc[0] += block.cells().get(java.lang.foreign.ValueLayout.JAVA_FLOAT, n * block.cellBytes());
                    }
                }
            }, (a, b) -> new double[] {a[0] + b[0]})[0];
            assertThat(blockSum).isEqualTo(199 * 200 / 2.0);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aSetGoesStaleWhenCellsAreDeactivatedOrMemoryCollected(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads)) {
            SNode leaf = L1.snode(3);
            ActiveSet set = rt.activeSet(leaf);
            rt.generic().deactivate(L1.snode(2), 0, 0, 0);
            assertThat(set.isCurrent()).isFalse();
            assertThat(set.toString()).contains("stale");
            AtomicLong visits = new AtomicLong();
            assertThatThrownBy(() -> rt.forEach(set, (Kernel3) (i, j, k) -> visits.incrementAndGet()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stale").hasMessageContaining("activeSet(snode)");
            assertThatThrownBy(() -> rt.forEachBlock(set, block -> visits.incrementAndGet()))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(visits.get()).isZero();

            ActiveSet fresh = rt.activeSet(leaf);
            assertThat(fresh.isCurrent()).isTrue();
            rt.gc();
            assertThat(fresh.isCurrent()).isFalse();
            assertThatThrownBy(() -> rt.reduceBlocks(fresh, () -> new long[1], (long[] acc, LeafBlock b) -> acc[0]++,
                    (a, b) -> a)).isInstanceOf(IllegalStateException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aSetBelongsToItsRuntime(int threads) {
        try (SNodeRuntime first = StructForTest.filled(L1, threads);
             SNodeRuntime second = StructForTest.filled(L1, threads)) {
            ActiveSet set = first.activeSet(L1.snode(3));
            assertThatThrownBy(() -> second.forEach(set, (Kernel3) (i, j, k) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another runtime");
            assertThatThrownBy(() -> first.activeSet(L1.snode(0))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A kernel whose fields accumulate: one instance per task, so no atomics. */
    static final class Counting implements Kernel3 {
        long cells;
        long sumOfI;

        @Override
        public void apply(int i, int j, int k) {
            cells++;
            sumOfI += i;
        }
    }

    /**
     * How a launch splits into tasks: about 32,768 active cells per task (64 dense blocks of
     * 8^3), until a launch would make more than 256 tasks; larger launches get larger tasks.
     * 32,768 blocks of 512 cells (16,777,216 cells, 64 MiB of i32) make 256 tasks of 128 blocks;
     * 1,000 blocks make 16 tasks of 62 or 63.
     */
    @Test
    void largeLaunchesMakeAtMost256TasksOfWholeBlocks() {
        Layout layout = Layout.parse("pointer(ijk,32).dense(ijk,8).place(i32 x)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(2);
            SNode leaf = layout.snode(2);
            for (int block = 0; block < 1000; block++) {
                rt.generic().setInt("x", 1, block / 1024 * 8, block / 32 % 32 * 8, block % 32 * 8);
            }
            List<Counting> small = rt.forEachPerTask(leaf, Counting::new);
            assertThat(small).hasSize(16);
            assertThat(small).allSatisfy(part -> assertThat(part.cells % 512).isZero());
            for (int block = 1000; block < 32 * 32 * 32; block++) {
                rt.generic().setInt("x", 1, block / 1024 * 8, block / 32 % 32 * 8, block % 32 * 8);
            }
            List<Counting> large = rt.forEachPerTask(leaf, Counting::new);
            assertThat(large).hasSize(256);
            assertThat(large).allSatisfy(part -> assertThat(part.cells).isEqualTo(128 * 512));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void kernelsPerTaskAccumulateWithoutAtomicsAndComeBackInBlockOrder(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads);
             SNodeRuntime sequential = StructForTest.filled(L1, 1)) {
            SNode leaf = L1.snode(3);
            List<Counting> parts = rt.forEachPerTask(leaf, Counting::new);
            List<Counting> reference = sequential.forEachPerTask(leaf, Counting::new);
            long cells = parts.stream().mapToLong(p -> p.cells).sum();
            assertThat(cells).isEqualTo(rt.count("phi"));
            assertThat(parts).hasSameSizeAs(reference);
            for (int n = 0; n < parts.size(); n++) {
                assertThat(parts.get(n).cells).isEqualTo(reference.get(n).cells);
                assertThat(parts.get(n).sumOfI).isEqualTo(reference.get(n).sumOfI);
            }
            boolean[] other = {false};
            assertThatThrownBy(() -> rt.forEachPerTask(leaf, () -> {
                other[0] = !other[0];
                return other[0] ? new Counting() : (Kernel3) (i, j, k) -> { };
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one class");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aThrowingBlockKernelStopsTheLaunchWithTheBlockOrigin(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads)) {
            SNode leaf = L1.snode(3);
            KernelException e = catchThrowableOfType(KernelException.class, () -> rt.reduceBlocks(leaf,
                    () -> new long[1], (long[] acc, LeafBlock block) -> {
                        if (block.origin(0) == 32 && block.origin(1) == 8 && block.origin(2) == 48) {
                            throw new ArithmeticException("bad block");
                        }
                    }, (a, b) -> a));
            assertThat(e).isNotNull();
            assertThat(e.coordinates()).containsExactly(32, 8, 48);
            assertThat(e.getCause()).isInstanceOf(ArithmeticException.class);
            KernelException again = catchThrowableOfType(KernelException.class, () -> rt.forEachBlock(leaf, block -> {
                throw new IllegalStateException("always");
            }));
            assertThat(again).isNotNull();
            assertThat(again.coordinates()).hasSize(3);
            assertThat(again.coordinates()[0] % 8).isZero();
            // Still usable.
            long cells = rt.reduceBlocks(leaf, () -> new long[1], (long[] acc, LeafBlock block) ->
                    acc[0] += block.activeCount(), (a, b) -> new long[] {a[0] + b[0]})[0];
            assertThat(cells).isEqualTo(rt.count("phi"));
        }
    }

    /**
     * Writers activate new cells while launches run (no deactivation): every launch visits at
     * least the cells active before it started and at most those active after it ended, and
     * reads only values that were written (1 per cell), whatever the walk met half-way.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void launchesRacingWithActivationsSeeAConsistentActiveSet(int threads) throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            rt.parallelism(threads);
            SNode leaf = L2.snode(3);
            int writers = 3;
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
            try {
                List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    int seed = w;
                    done.add(pool.submit(() -> {
                        java.util.Random random = new java.util.Random(seed);
                        start.await();
                        for (int n = 0; n < 20_000 && !stop.get(); n++) {
                            rt.generic().setFloat("phi", 1f, random.nextInt(128), random.nextInt(128), random.nextInt(128));
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (int launch = 0; launch < 40; launch++) {
                    long before = countActive(rt);
                    double[] result = rt.reduceBlocks(leaf, () -> new double[2], (double[] acc, LeafBlock block) -> {
                        for (int n = 0; n < block.cellCount(); n++) {
                            if (block.isActive(n)) {
                                float value = block.cells().get(java.lang.foreign.ValueLayout.JAVA_FLOAT, n * block.cellBytes());
                                acc[0]++;
                                acc[1] += value;
                            }
                        }
                    }, (a, b) -> new double[] {a[0] + b[0], a[1] + b[1]});
                    long after = countActive(rt);
                    assertThat((long) result[0]).isBetween(before, after);
                    // A cell's bit is set before its value is written, so a visited cell reads 0 or 1.
                    assertThat(result[1]).isBetween(0.0, result[0]);
                }
                stop.set(true);
                for (java.util.concurrent.Future<?> future : done) {
                    future.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
                assertThat(pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            }
            assertThat(rt.activeSet(leaf).cellCount()).isEqualTo(rt.count("phi"));
        }
    }

    /** Active cells now, counted by the runtime's reduction (a walk of its own). */
    private static long countActive(SNodeRuntime rt) {
        return rt.count("phi");
    }
}
