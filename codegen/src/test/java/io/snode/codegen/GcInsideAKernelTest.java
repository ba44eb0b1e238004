package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel1;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code gc()} called by a kernel, on whichever thread of the launch it runs, throws the same
 * IllegalStateException as at parallelism 1 instead of waiting for the launch it is part of.
 */
class GcInsideAKernelTest {
    /**
     * 64 blocks of 4096 cells: 8 ranges of 32,768 cells. The launching thread runs ranges too;
     * at parallelism above 1 its kernel waits (bounded) for a call from a worker of the pool, so
     * that both kinds of thread meet gc() in every run.
     */
    static final Layout L = Layout.parse("pointer(i,64).dense(i,4096).place(f32 x)");
    private static final long TIMEOUT_S = 20;

    static String messageAtParallelism1() throws Exception {
        return run(1).message;
    }

    record Outcome(String message, long calls, boolean onAWorker) {
    }

    /** Runs a launch whose kernel calls gc() at the first cell of every block, on a thread of its own (bounded join). */
    static Outcome run(int threads) throws Exception {
        SNodeRuntime rt = SNodeRuntime.compile(L);
        rt.parallelism(threads);
        for (int block = 0; block < 64; block++) {
            rt.generic().setFloat("x", 1f, block * 4096);
        }
        Set<String> messages = ConcurrentHashMap.newKeySet();
        Set<String> otherOutcomes = ConcurrentHashMap.newKeySet();
        AtomicLong calls = new AtomicLong();
        AtomicBoolean onAWorker = new AtomicBoolean();
        CountDownLatch workerCalled = new CountDownLatch(1);
        AtomicReference<Throwable> launchFailure = new AtomicReference<>();
        Thread launcher = new Thread(() -> {
            try {
                rt.forEach("x", (Kernel1) i -> {
                    if (i % 4096 != 0) {
                        return;
                    }
                    calls.incrementAndGet();
                    if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
                        onAWorker.set(true);
                        workerCalled.countDown();
                    } else if (threads > 1) {
                        try {
                            workerCalled.await(TIMEOUT_S / 2, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    try {
                        rt.gc();
                        otherOutcomes.add("gc() returned");
                    } catch (IllegalStateException e) {
                        messages.add(e.getMessage());
                    } catch (Throwable e) {
                        otherOutcomes.add(e.toString());
                    }
                });
            } catch (Throwable e) {
                launchFailure.set(e);
            }
        }, "launch-calling-gc-p" + threads);
        launcher.setDaemon(true); // a hung launch must not keep the JVM alive
        launcher.start();
        launcher.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        assertThat(launcher.isAlive()).as("the launch at parallelism %d ended (gc() in a kernel did not hang)", threads)
                .isFalse();
        rt.close();
        assertThat(launchFailure.get()).isNull();
        assertThat(otherOutcomes).isEmpty();
        assertThat(calls.get()).isEqualTo(64);
        assertThat(messages).hasSize(1);
        return new Outcome(messages.iterator().next(), calls.get(), onAWorker.get());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void gcInsideAKernelThrowsTheSameIllegalStateExceptionOnEveryThreadOfTheLaunch(int threads) throws Exception {
        Outcome outcome = run(threads);
        assertThat(outcome.message()).contains("inside a launch");
        assertThat(outcome.message()).isEqualTo(messageAtParallelism1());
        if (threads > 1) {
            assertThat(outcome.onAWorker()).as("some call came from a worker of the pool").isTrue();
        }
    }
}
