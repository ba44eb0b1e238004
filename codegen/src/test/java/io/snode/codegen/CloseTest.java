package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel1;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@code close()} does to a running launch, and what a closed runtime's generated code says. */
class CloseTest {
    /** 64 blocks of 4096 cells: 8 ranges of 32,768 cells. */
    static final Layout L = Layout.parse("pointer(i,64).dense(i,4096).place(f32 x)");
    private static final long TIMEOUT_S = 20;

    public interface X {
        float x(int i);

        void x(int i, float value);

        float addX(int i, float delta);
    }

    static SNodeRuntime filled(int threads) {
        SNodeRuntime rt = SNodeRuntime.compile(L);
        rt.parallelism(threads);
        for (int block = 0; block < 64; block++) {
            rt.generic().setFloat("x", 1f, block * 4096);
        }
        return rt;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void closeDuringALaunchWaitsForTheRunningRangesAndTheLaunchThrowsThatTheRuntimeWasClosed(int threads)
            throws Exception {
        SNodeRuntime rt = filled(threads);
        X x = rt.bind(X.class);
        CountDownLatch inKernel = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean();
        AtomicLong readsAfterProceed = new AtomicLong();
        AtomicReference<Throwable> launchOutcome = new AtomicReference<>();
        Thread launcher = start("launcher", () -> {
            try {
                rt.forEach("x", (Kernel1) i -> {
                    if (first.compareAndSet(false, true)) {
                        inKernel.countDown();
                        await(proceed);
                        // close() has begun; memory stays valid while this range runs.
                        for (int n = 0; n < 4096; n++) {
                            x.x(i + n);
                            readsAfterProceed.incrementAndGet();
                        }
                    }
                });
            } catch (Throwable e) {
                launchOutcome.set(e);
            }
        });
        await(inKernel);
        AtomicReference<Throwable> closeOutcome = new AtomicReference<>();
        Thread closer = start("closer", () -> {
            try {
                rt.close();
            } catch (Throwable e) {
                closeOutcome.set(e);
            }
        });
        awaitParkedOrEnded(closer);
        assertThat(closer.isAlive()).as("close() waits for the running launch").isTrue();
        proceed.countDown();
        join(launcher);
        join(closer);
        assertThat(closeOutcome.get()).isNull();
        assertThat(readsAfterProceed.get()).isEqualTo(4096);
        assertThat(launchOutcome.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed during the launch")
                .hasMessageContaining(L.toString());
        assertThat(rt.isClosed()).isTrue();
    }

    /** The ranges close() skipped have no accumulator: the combiner is never handed a null. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void aReductionThatCloseCutsShortNeverCombinesWhatItSkipped(int threads) throws Exception {
        SNodeRuntime rt = filled(threads);
        CountDownLatch inReducer = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean();
        AtomicLong nullsCombined = new AtomicLong();
        AtomicReference<Throwable> launchOutcome = new AtomicReference<>();
        Thread launcher = start("launcher", () -> {
            try {
                rt.reduceBlocks(L.snode(2), () -> new long[1], (sum, block) -> {
                    if (first.compareAndSet(false, true)) {
                        inReducer.countDown();
                        await(proceed);
                    }
                    sum[0]++;
                }, (a, b) -> {
                    if (a == null || b == null) {
                        nullsCombined.incrementAndGet();
                    }
                    return new long[] {a[0] + b[0]};
                });
            } catch (Throwable e) {
                launchOutcome.set(e);
            }
        });
        await(inReducer);
        Thread closer = start("closer", rt::close);
        awaitParkedOrEnded(closer);
        proceed.countDown();
        join(launcher);
        join(closer);
        assertThat(nullsCombined.get()).isZero();
        assertThat(launchOutcome.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed during the launch");
        assertThat(launchOutcome.get()).hasNoCause();
    }

    /**
     * A close() called while another waits for a launch returns at once, the runtime closed to
     * new work; it does not wait for the first (a kernel of the running launch may wait for the
     * very thread that calls it: waiting there would never end).
     */
    @Test
    void aSecondCloseReturnsAtOnceWithTheRuntimeClosedToNewWork() throws Exception {
        SNodeRuntime rt = filled(2);
        CountDownLatch inKernel = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean();
        Thread launcher = start("launcher", () -> {
            try {
                rt.forEach("x", (Kernel1) i -> {
                    if (first.compareAndSet(false, true)) {
                        inKernel.countDown();
                        await(proceed); // released by the thread that closes second, once its close() returned
                    }
                });
            } catch (IllegalStateException expected) {
                // closed during the launch
            }
        });
        await(inKernel);
        Thread closer = start("closer", rt::close);
        awaitParkedOrEnded(closer);
        assertThat(closer.isAlive()).as("the first close() waits for the launch").isTrue();
        // The second close, on a thread the launch waits for (it releases the kernel once close returns).
        Thread second = start("second closer", () -> {
            rt.close();
            proceed.countDown();
        });
        second.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        assertThat(second.isAlive()).as("the second close() returned without waiting for the first").isFalse();
        assertThat(rt.isClosed()).isTrue();
        assertThatThrownBy(() -> rt.forEach("x", (Kernel1) i -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
        proceed.countDown();
        join(launcher);
        join(closer);
    }

    @Test
    void aLaunchOrACollectionAfterCloseSaysTheRuntimeIsClosed() {
        SNodeRuntime rt = filled(2);
        rt.close();
        rt.close(); // idempotent
        assertThatThrownBy(() -> rt.forEach("x", (Kernel1) i -> { }))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed")
                .hasMessageContaining(L.toString());
        assertThatThrownBy(rt::gc).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> rt.sum("x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    /** An interface no call bound before the runtime closed. */
    public interface Y {
        float x(int i);
    }

    @Test
    void noNewWayInIsMadeAfterClose() {
        SNodeRuntime rt = filled(1);
        rt.bind(X.class);
        rt.close();
        for (ThrowingCall call : new ThrowingCall[] {
                () -> rt.bind(X.class), () -> rt.bind(Y.class), () -> rt.accessor(X.class), () -> rt.accessor(Y.class),
                () -> rt.getter("x"), () -> rt.setter("x"), () -> rt.adder("x"), () -> rt.handle("get_x"),
                () -> rt.nodeHandle("deactivate", L.snode(1)), () -> rt.parallelism(2)}) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is closed").hasMessageContaining(rt.toString());
        }
        assertThat(rt.generatedCode()).as("what was generated can still be read").isNotEmpty()
                .noneMatch(generated -> generated.name().contains("Accessor"));
    }

    @Test
    void generatedCodeAfterCloseSaysWhichRuntimeIsClosed() throws Throwable {
        SNodeRuntime rt = filled(1);
        X bound = rt.bind(X.class);
        X cached = rt.accessor(X.class);
        assertThat(cached.x(0)).isEqualTo(1f); // remembers the block
        MethodHandle getter = rt.getter("x");
        MethodHandle deactivate = rt.nodeHandle("deactivate", L.snode(1));
        rt.close();
        String runtime = rt.toString();
        assertThat(runtime).contains(L.toString());
        for (ThrowingCall call : new ThrowingCall[] {
                () -> bound.x(0), () -> bound.x(8192, 2f), () -> bound.addX(0, 1f), () -> cached.x(1),
                () -> cached.x(2, 3f), () -> { float ignored = (float) getter.invokeExact(4096); },
                () -> { boolean ignored = (boolean) deactivate.invokeExact(0); }}) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is closed").hasMessageContaining(runtime);
        }
    }

    /**
     * Node handles whose work touches no node memory (a dense node's {@code isActive} and
     * {@code activate}, {@code deactivateAll} with nothing sparse below) also throw after close,
     * as every generated method does (they returned true or nothing until 12-06).
     */
    @Test
    void nodeHandlesOfDenseNodesAfterCloseSayWhichRuntimeIsClosed() throws Throwable {
        for (String text : new String[] {"dense(ijk,16).place(f32 phi)", "pointer(ijk,4).dense(ijk,8).place(f32 phi)"}) {
            Layout layout = Layout.parse(text);
            SNodeRuntime rt = SNodeRuntime.compile(layout);
            io.snode.api.SNode dense = layout.field("phi").snode();
            MethodHandle isActive = rt.nodeHandle("isActive", dense);
            MethodHandle activate = rt.nodeHandle("activate", dense);
            MethodHandle deactivateAll = rt.nodeHandle("deactivateAll", dense);
            MethodHandle deactivateAllRoot = rt.nodeHandle("deactivateAll", layout.root());
            assertThat((boolean) isActive.invokeExact(1, 2, 3)).isEqualTo(text.startsWith("dense"));
            rt.close();
            for (ThrowingCall call : new ThrowingCall[] {
                    () -> { boolean ignored = (boolean) isActive.invokeExact(1, 2, 3); },
                    () -> { activate.invokeExact(1, 2, 3); }, () -> { deactivateAll.invokeExact(); },
                    () -> { deactivateAllRoot.invokeExact(); }}) {
                assertThatThrownBy(call::run).as(text).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("is closed").hasMessageContaining(rt.toString());
            }
        }
    }

    /** A kept active set is not current once its runtime is closed (it said so until 12-06). */
    @Test
    void anActiveSetIsNotCurrentAfterClose() {
        SNodeRuntime rt = filled(1);
        ActiveSet set = rt.activeSet(L.snode(1));
        assertThat(set.isCurrent()).isTrue();
        rt.close();
        assertThat(set.isCurrent()).isFalse();
    }

    /**
     * {@code close()} from inside the runtime's own collection (a collector that closes it) is
     * refused, as from inside a launch, and leaves the runtime open: until 12-06 it marked the
     * runtime closed, then failed to enter the exclusive section, so its memory was never freed
     * and every later {@code close()} returned at once.
     */
    @Test
    void closeInsideTheRuntimesOwnCollectionThrowsAndLeavesTheRuntimeOpen() {
        AtomicReference<SNodeRuntime> self = new AtomicReference<>();
        AtomicReference<Throwable> seen = new AtomicReference<>();
        io.snode.runtime.Collector closing = managers -> {
            SNodeRuntime me = self.getAndSet(null);
            if (me != null) {
                try {
                    me.close();
                } catch (Throwable e) {
                    seen.set(e);
                }
            }
            io.snode.runtime.Collector.SERIAL.collect(managers);
        };
        SNodeRuntime rt = SNodeRuntime.compile(L, io.snode.runtime.RuntimeOptions.DEFAULT.withCollector(closing));
        try {
            rt.bind(X.class).x(5, 2f);
            self.set(rt);
            rt.gc();
            assertThat(seen.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside a collection");
            assertThat(rt.isClosed()).isFalse();
            assertThat(rt.bind(X.class).x(5)).isEqualTo(2f);
        } finally {
            rt.close();
        }
        assertThat(rt.isClosed()).isTrue();
        assertThatThrownBy(rt::memoryStats).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws Throwable;
    }

    @Test
    void closeInsideAKernelThrowsAndLeavesTheRuntimeOpen() throws InterruptedException {
        try (SNodeRuntime rt = filled(2)) {
            AtomicReference<Throwable> seen = new AtomicReference<>();
            AtomicBoolean first = new AtomicBoolean();
            Thread launcher = start("launcher", () -> rt.forEach("x", (Kernel1) i -> {
                if (first.compareAndSet(false, true)) {
                    try {
                        rt.close();
                    } catch (Throwable e) {
                        seen.set(e);
                    }
                }
            }));
            join(launcher);
            assertThat(seen.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside a launch");
            assertThat(rt.isClosed()).isFalse();
            assertThat(rt.count("x")).isEqualTo(64 * 4096);
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
    }

    /** Waits (bounded, no sleep) until {@code t} parks or ends. */
    private static void awaitParkedOrEnded(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (t.isAlive() && t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("%s parked in time", t.getName()).isLessThan(deadline);
            Thread.yield();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
