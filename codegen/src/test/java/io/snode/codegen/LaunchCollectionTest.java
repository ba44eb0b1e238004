package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel3;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When a launch collects: only after its own kernels deactivated something (on whichever worker
 * they ran, nested launches included), never because another thread deactivated something
 * while it ran.
 */
class LaunchCollectionTest {
    static final Layout L = Layout.parse("pointer(ijk,4).pointer(ijk,4).dense(ijk,8).place(f32 phi)");
    static final SNode BLOCK = L.snode(2); // the lower pointer: one cell per 8^3 block
    private static final long TIMEOUT_S = 20;

    static SNodeRuntime filled(int threads) {
        SNodeRuntime rt = SNodeRuntime.compile(L);
        rt.parallelism(threads);
        for (int n = 0; n < 64; n++) {
            rt.generic().setFloat("phi", n + 1, (n % 4) * 8, (n / 4 % 4) * 8, (n / 16) * 8); // 64 blocks
        }
        return rt;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void aReadOnlyLaunchDoesNotCollectWhatAnotherThreadDeactivatedDuringIt(int threads) throws Exception {
        try (SNodeRuntime rt = filled(threads)) {
            long collectionsBefore = rt.lastGcStatistics().sequence();
            CountDownLatch inKernel = new CountDownLatch(1);
            CountDownLatch deactivated = new CountDownLatch(1);
            AtomicBoolean first = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread launcher = new Thread(() -> {
                try {
                    rt.forEach("phi", (Kernel3) (i, j, k) -> {
                        if (first.compareAndSet(false, true)) {
                            inKernel.countDown();
                            await(deactivated);
                        }
                        rt.generic().getFloat("phi", i, j, k); // only reads
                    });
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "read-only-launch");
            launcher.setDaemon(true);
            launcher.start();
            await(inKernel);
            // A direct call on another thread, outside any launch, while the launch runs.
            assertThat(rt.generic().deactivate(BLOCK, 3, 3, 3)).isTrue();
            deactivated.countDown();
            launcher.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            assertThat(launcher.isAlive()).as("launch ended").isFalse();
            assertThat(failure.get()).isNull();
            // The launch deactivated nothing itself: no collection, the cell waits on the recycled list.
            assertThat(rt.lastGcStatistics().sequence()).isEqualTo(collectionsBefore);
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isEqualTo(1);
            rt.gc();
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void aLaunchWhoseKernelsDeactivateCollectsAfterwards(int threads) {
        try (SNodeRuntime rt = filled(threads)) {
            long collectionsBefore = rt.lastGcStatistics().sequence();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                if (i == 8 && j == 8 && k == 8) {
                    rt.generic().deactivate(BLOCK, 1, 1, 1);
                }
            });
            assertThat(rt.lastGcStatistics().sequence()).isEqualTo(collectionsBefore + 1);
            assertThat(rt.lastGcStatistics().of(BLOCK.path()).cellsReclaimed()).isEqualTo(1);
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isZero();
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsInUse()).isEqualTo(63);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void aKernelCallingDeactivateAllThroughAGeneratedHandleCollectsAfterwards(int threads) throws Throwable {
        try (SNodeRuntime rt = filled(threads)) {
            var deactivateAll = rt.nodeHandle("deactivateAll", BLOCK);
            long collectionsBefore = rt.lastGcStatistics().sequence();
            AtomicBoolean first = new AtomicBoolean();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                if (first.compareAndSet(false, true)) {
                    try {
                        deactivateAll.invokeExact();
                    } catch (Throwable e) {
                        throw new AssertionError(e);
                    }
                }
            });
            assertThat(rt.lastGcStatistics().sequence()).isEqualTo(collectionsBefore + 1);
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsInUse()).isZero();
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void aNestedLaunchThatDeactivatesLetsTheOuterLaunchCollectOnceItEnds(int threads) {
        try (SNodeRuntime rt = filled(threads)) {
            long collectionsBefore = rt.lastGcStatistics().sequence();
            AtomicBoolean first = new AtomicBoolean();
            AtomicLong innerVisits = new AtomicLong();
            List<Long> sequencesSeenInside = new ArrayList<>();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                if (first.compareAndSet(false, true)) {
                    rt.forEach("phi", (Kernel3) (x, y, z) -> {
                        innerVisits.incrementAndGet();
                        if (x == 16 && y == 16 && z == 16) {
                            rt.generic().deactivate(BLOCK, 2, 2, 2);
                        }
                    });
                    synchronized (sequencesSeenInside) {
                        sequencesSeenInside.add(rt.lastGcStatistics().sequence());
                    }
                }
            });
            assertThat(innerVisits.get()).isEqualTo(64 * 512);
            // The nested launch could not collect (the outer one was running) ...
            assertThat(sequencesSeenInside).containsExactly(collectionsBefore);
            // ... so the outer launch did, once it ended.
            assertThat(rt.lastGcStatistics().sequence()).isEqualTo(collectionsBefore + 1);
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isZero();
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsInUse()).isEqualTo(63);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aLaunchOfAnotherRuntimeThatDeactivatesDoesNotCollectThisOne(int threads) {
        Layout small = Layout.parse("pointer(i,4).dense(i,8).place(f32 a)");
        try (SNodeRuntime rt = filled(threads); SNodeRuntime other = SNodeRuntime.compile(small)) {
            other.parallelism(threads);
            other.generic().setFloat("a", 1f, 0);
            rt.generic().deactivate(BLOCK, 0, 0, 0); // waits on rt's recycled list
            long collectionsBefore = rt.lastGcStatistics().sequence();
            AtomicBoolean first = new AtomicBoolean();
            other.forEach("a", (Kernel1) i -> {
                if (first.compareAndSet(false, true)) {
                    rt.generic().deactivate(BLOCK, 1, 0, 0); // rt's deactivation, outside rt's launches
                }
            });
            assertThat(rt.lastGcStatistics().sequence()).isEqualTo(collectionsBefore);
            assertThat(rt.memoryStats().of(BLOCK).cells().cellsRecycled()).isEqualTo(2);
        }
    }

    static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(TIMEOUT_S, TimeUnit.SECONDS)).as("latch released in time").isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
