package io.snode.codegen.internal.structfor;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Parts {@code 0 .. parts - 1} of one job (a launch's ranges, a split walk's parts), each run
 * once by whichever thread claims it first: the calling thread ({@link #claimAll}) and helpers
 * it submits to a pool ({@link #help}), every one taking the next part not yet claimed until
 * none is left. Work starts at once on the calling thread, so a job never waits for a pool
 * thread to wake, and a helper that starts after the last claim finds nothing and leaves: it
 * must not touch the job's state before a claim (the job may be over). {@link #await} returns
 * once every part has ended (run, failed or skipped), after everything the parts wrote (a
 * part's count-down of the latch orders its writes before the await's return).
 *
 * <p>The first exception of a part is kept ({@link #failure}) and the parts claimed after it
 * are skipped; the job's caller rethrows it after the await, so no part of a failed job is
 * still running when the caller sees the failure.
 */
final class Claims {
    /** What a thread does with a part it claimed. */
    @FunctionalInterface
    interface Part {
        void run(int part) throws Throwable;
    }

    private final int parts;
    private final AtomicInteger next = new AtomicInteger();
    /** Counted down once per part, run, failed or skipped. */
    private final CountDownLatch ended;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Claims(int parts) {
        this.parts = parts;
        this.ended = new CountDownLatch(parts);
    }

    /**
     * Submits {@code helpers} tasks to {@code pool}, each claiming parts for {@code part}; a pool
     * that refuses (shut down: the runtime closes) leaves the rest to the calling thread.
     */
    void help(ForkJoinPool pool, int helpers, Part part) {
        for (int h = 0; h < helpers; h++) {
            try {
                pool.execute(() -> claimAll(part));
            } catch (RejectedExecutionException e) {
                return;
            }
        }
    }

    /** Claims and runs parts until none is left; a part's exception is kept, and later claims are skipped. */
    void claimAll(Part part) {
        for (int p = next.getAndIncrement(); p < parts; p = next.getAndIncrement()) {
            try {
                if (failure.get() == null) {
                    part.run(p);
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                ended.countDown();
            }
        }
    }

    /** Waits until every part has ended, also when interrupted (the parts write what the caller reads next). */
    void await() {
        boolean interrupted = false;
        while (true) {
            try {
                ended.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The first exception of a part, or null. */
    Throwable failure() {
        return failure.get();
    }

    /** Records {@code e} as the job's failure unless one is recorded (later claims are skipped). */
    void fail(Throwable e) {
        failure.compareAndSet(null, e);
    }
}
