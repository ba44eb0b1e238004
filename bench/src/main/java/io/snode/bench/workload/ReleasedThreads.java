package io.snode.bench.workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * W5's threads: {@code count} platform threads, started by the constructor and parked at a
 * latch (all of them, before it returns), then released together by {@link #run}, which times
 * from the release until the last one has finished. Starting them is set-up, never timed.
 * Daemon threads: a set of threads never released does not keep the JVM alive.
 */
final class ReleasedThreads {
    private static final Duration JOIN = Duration.ofMinutes(2);

    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch ready;
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch done;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private boolean ran;

    /**
     * Starts the threads; thread {@code t} runs {@code part.accept(t)} once released.
     *
     * @param count 1 or more
     */
    ReleasedThreads(int count, String name, IntConsumer part) {
        if (count < 1) {
            throw new IllegalArgumentException("count=" + count + " (1 or more)");
        }
        ready = new CountDownLatch(count);
        done = new CountDownLatch(count);
        for (int t = 0; t < count; t++) {
            int index = t;
            threads.add(Thread.ofPlatform().daemon(true).name(name + "-" + t).start(() -> {
                try {
                    ready.countDown();
                    go.await();
                    part.accept(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }));
        }
        await(ready);
    }

    /**
     * Releases the threads and returns the nanoseconds until all have finished; they are joined
     * after that, untimed. A thread's failure is rethrown here.
     */
    long run() {
        if (ran) {
            throw new IllegalStateException("the threads ran already: start new ones for each run");
        }
        ran = true;
        long start = System.nanoTime();
        go.countDown();
        await(done);
        long nanos = System.nanoTime() - start;
        for (Thread thread : threads) {
            try {
                if (!thread.join(JOIN)) {
                    throw new IllegalStateException(thread.getName() + " did not end within " + JOIN);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining " + thread.getName(), e);
            }
        }
        Throwable failed = failure.get();
        if (failed instanceof RuntimeException e) {
            throw e;
        }
        if (failed instanceof Error e) {
            throw e;
        }
        if (failed != null) {
            throw new IllegalStateException("a thread failed", failed);
        }
        return nanos;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the threads", e);
        }
    }
}
