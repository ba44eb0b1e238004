package io.snode.runtime.internal;

import io.snode.runtime.internal.memory.MemoryPool;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reports a runtime that becomes unreachable before its {@code close()}: one {@link System.Logger}
 * record (logger {@value #LOGGER}) per such runtime, naming it, how many have been reported in
 * this library copy (it is the n-th), the memory it still holds, and, as the record's exception,
 * where it was created. The first {@value #WARNED} and then the {@code n}-th where {@code n} is a
 * power of two are {@code WARNING}s, the others {@code DEBUG} records: a program that drops
 * runtimes in a loop is told at once, and its log grows with the logarithm of the leaks, not
 * with their number (enable {@code DEBUG} on the logger to see each). Nothing is freed: a bound
 * interface or handle of the runtime may still be in use when the runtime object itself is
 * unreachable, and its memory must stay valid for it (and freeing memory that generated code
 * still reads would end the JVM).
 *
 * <p>A {@link Cleaner} of this library copy's own (one daemon thread, {@code snode-unclosed-runtimes},
 * started with the first runtime) runs the check. The watch holds the runtime's
 * {@link MemoryPool}, never the runtime: the pool refers to no runtime, so the watch does not
 * keep the runtime reachable. {@link Watch#closed()}, called first thing by the runtime's
 * {@code close()}, takes the watch off the cleaner, so a closed runtime is never reported; a
 * runtime whose pool is closed by other means (a failing constructor) is not reported either.
 * The creation trace is a {@link Throwable} made when the watch is, whose stack is not turned
 * into text unless the record is written (about a microsecond per runtime, beside the
 * milliseconds a runtime takes to create).
 */
public final class UnclosedRuntimes {
    /** The {@link System.Logger} a runtime that became unreachable unclosed is reported to. */
    public static final String LOGGER = "io.snode.runtime.unclosed";

    /** How many reports are {@code WARNING}s before only those whose number is a power of two are. */
    public static final int WARNED = 16;

    /** Runtimes reported so far. */
    private static final AtomicLong REPORTED = new AtomicLong();

    /**
     * Its thread holds nothing of the thread that first created a runtime: no context class
     * loader (an application server's deployment loader would stay reachable from it for as long
     * as the thread runs), no inheritable thread-locals.
     */
    private static final Cleaner CLEANER = Cleaner.create(task -> {
        Thread thread = Thread.ofPlatform().name("snode-unclosed-runtimes").daemon(true)
                .inheritInheritableThreadLocals(false).unstarted(task);
        thread.setContextClassLoader(null);
        return thread;
    });

    private UnclosedRuntimes() {
    }

    /**
     * Watches {@code runtime}: once it is unreachable, unless {@link Watch#closed()} was called
     * or {@code pool} is closed, one warning names it as {@code description} with what
     * {@code pool} holds. {@code runtime} must not be reachable from {@code pool}.
     */
    public static Watch watch(Object runtime, MemoryPool pool, String description) {
        Objects.requireNonNull(runtime, "runtime");
        Watch watch = new Watch(pool, description, new Throwable("the unclosed runtime " + description + " was created here"));
        watch.cleanable = CLEANER.register(runtime, watch);
        return watch;
    }

    /** One runtime's watch: the cleaner's action (it refers to no runtime). */
    public static final class Watch implements Runnable {
        private final MemoryPool pool;
        private final String description;
        private final Throwable created;
        private volatile boolean closed;
        private Cleaner.Cleanable cleanable;

        private Watch(MemoryPool pool, String description, Throwable created) {
            this.pool = Objects.requireNonNull(pool, "pool");
            this.description = Objects.requireNonNull(description, "description");
            this.created = created;
        }

        /** The runtime is being closed: it is not reported, and the cleaner forgets it now. */
        public void closed() {
            closed = true;
            cleanable.clean(); // runs run() once, here, which now reports nothing
        }

        @Override
        public void run() {
            if (closed || pool.isClosed()) {
                return;
            }
            long n = REPORTED.incrementAndGet();
            System.Logger.Level level = n <= WARNED || Long.bitCount(n) == 1
                    ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
            System.Logger logger = System.getLogger(LOGGER);
            if (!logger.isLoggable(level)) {
                return;
            }
            // The trace from the application's call: without this class's frames and the constructor's.
            StackTraceElement[] frames = created.getStackTrace();
            int first = 0;
            while (first < frames.length - 1 && (frames[first].getClassName().equals(UnclosedRuntimes.class.getName())
                    || frames[first].getMethodName().equals("<init>"))) {
                first++;
            }
            created.setStackTrace(Arrays.copyOfRange(frames, first, frames.length));
            logger.log(level, "SNode runtime " + description + " became unreachable without close() (unclosed runtime "
                    + n + " of this library copy; the first " + WARNED + " and each power of two are reported as"
                    + " WARNING, the others as DEBUG): its " + pool.bytesCommitted()
                    + " bytes of off-heap memory and " + pool.regionBytes()
                    + " bytes of reserved address space stay held until the JVM exits (they may still be"
                    + " in use by its bound interfaces or handles). Close every runtime, e.g. with"
                    + " try-with-resources; it was created where this record's exception shows.", created);
        }
    }
}
