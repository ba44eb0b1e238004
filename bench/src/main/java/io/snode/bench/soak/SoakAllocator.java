package io.snode.bench.soak;

import io.snode.runtime.internal.memory.ForwardingAllocator;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's allocator: the runtime's allocator, with {@link Soak.Config#faultEvery} injecting
 * faults: while it is armed, about one request in {@code every} throws an {@link InjectedFault}. A request
 * is a place where the pool takes memory that the cap has accepted: a chunk allocated
 * ({@link #allocate}) or a part of a region handed out as a chunk ({@link #commit}), on whichever
 * thread needs it. The fault is an {@link OutOfMemoryError}, what {@code Arena.allocate} throws
 * when the system has no memory left, so the soak also finds paths that clean up after a
 * RuntimeException only. Which requests fail, in the order they come, follows from the seed;
 * which call makes which request depends on the threads' order.
 */
final class SoakAllocator extends ForwardingAllocator {

    /** What a failing request throws. */
    static final class InjectedFault extends OutOfMemoryError {
        private static final long serialVersionUID = 1L;

        InjectedFault(long request) {
            super("injected allocator fault at request " + request);
        }
    }

    private final long every;
    /** Draws which requests fail; requests are rare (growth only), so one lock is cheap. */
    private final SplittableRandom draws;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong faults = new AtomicLong();
    private volatile boolean armed;

    /** @param every a request in this many fails, on average; 1 for every request, 0 for none */
    SoakAllocator(MemoryAllocator real, long every, long seed) {
        super(real);
        if (every < 0) {
            throw new IllegalArgumentException("every=" + every + " must be 0 (no faults) or positive");
        }
        this.every = every;
        this.draws = new SplittableRandom(seed);
    }

    /** Whether requests may fail from now on; requests are counted only while armed. */
    void arm(boolean on) {
        armed = on;
    }

    /** Requests made while armed. */
    long requests() {
        return requests.get();
    }

    /** Requests that failed. */
    long faults() {
        return faults.get();
    }

    private void maybeFail() {
        if (!armed || every == 0) {
            return;
        }
        long request = requests.incrementAndGet();
        boolean fail;
        synchronized (draws) {
            fail = draws.nextLong(every) == 0;
        }
        if (fail) {
            faults.incrementAndGet();
            throw new InjectedFault(request);
        }
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        maybeFail();
        return super.allocate(byteSize, byteAlignment);
    }

    @Override
    public void commit(MemorySegment region, long offset, long byteSize) {
        maybeFail();
        super.commit(region, offset, byteSize);
    }

    @Override
    public String toString() {
        return "SoakAllocator[" + (every == 0 ? "no faults" : "one request in " + every + " fails") + ", over " + delegate()
                + "]";
    }
}
