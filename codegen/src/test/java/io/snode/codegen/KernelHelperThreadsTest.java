package io.snode.codegen;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel1;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's recipe for a kernel that hands work to threads of its own (an executor, a
 * parallel stream) which launch on the same runtime while another thread's {@code gc()} waits:
 * the helper marks its work with {@code phaseLock().enterTask()} / {@code exitTask()}, so its
 * launch is nested in the kernel's and does not wait behind the collection (unmarked, the
 * collection waits for the kernel's launch, the helper's launch for the collection and the kernel
 * for the helper: a deadlock).
 */
class KernelHelperThreadsTest {

    @Test
    void aHelperThreadMarkedAsATaskOfTheKernelsLaunchEntersWhileACollectionWaits() throws Exception {
        try (SNodeRuntime runtime = SNodeRuntime.compile(Layout.parse("bitmasked(i,64).place(f32 x)"))) {
            runtime.parallelism(1);
            for (int i = 0; i < 10; i++) {
                runtime.generic().writeBits(runtime.layout().field("x"), Float.floatToRawIntBits(i), i);
            }
            ExecutorService helpers = Executors.newSingleThreadExecutor();
            CountDownLatch inKernel = new CountDownLatch(1);
            CountDownLatch collectionWaits = new CountDownLatch(1);
            AtomicLong counted = new AtomicLong(-1);
            Thread collector = null;
            try {
                Thread launcher = Thread.ofPlatform().start(() -> runtime.forEach("x", (Kernel1) i -> {
                    if (i != 0) {
                        return;
                    }
                    inKernel.countDown();
                    await(collectionWaits);
                    Future<Long> helped = helpers.submit(() -> {
                        runtime.phaseLock().enterTask();
                        try {
                            return runtime.count("x"); // a launch of its own
                        } finally {
                            runtime.phaseLock().exitTask();
                        }
                    });
                    try {
                        counted.set(helped.get(10, TimeUnit.SECONDS));
                    } catch (Exception e) {
                        throw new AssertionError("the helper's launch did not return", e);
                    }
                }));
                await(inKernel);
                collector = Thread.ofPlatform().start(runtime::gc);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!runtime.phaseLock().isCollectionWaiting() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(runtime.phaseLock().isCollectionWaiting()).isTrue();
                collectionWaits.countDown();
                launcher.join(20_000);
                assertThat(launcher.isAlive()).isFalse();
                collector.join(20_000);
                assertThat(collector.isAlive()).isFalse();
            } finally {
                collectionWaits.countDown();
                helpers.shutdownNow();
                assertThat(helpers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(counted).hasValue(10);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
