package io.snode.runtime.internal;

import io.snode.runtime.internal.memory.MemoryPool;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Each runtime has a {@link Watch}, a phantom reference to it, kept in a set of this class's
 * until the runtime closes. The watches the garbage collector enqueued are reported by
 * {@link #report()}, which the runtimes call when one is created, closed or collected: so on a
 * thread of the application, and only once the library is used again after the garbage
 * collector found the runtime unreachable (a program that leaks one runtime and then never
 * creates, closes or collects another is not told). There is no thread of the library's here,
 * on purpose: a thread is a root of the garbage collector, and one that held the watches would
 * keep this library's class loader, and every unclosed runtime reachable from it (one kept in a
 * static field of an application packaged with the library, as a web application is), alive
 * forever; without it, a deployment whose loader is dropped is collected whole, unclosed
 * runtimes included (their off-heap memory stays held, as the README says).
 *
 * <p>A watch holds what the runtime's pool holds ({@link MemoryPool.Holdings}: two counters and a
 * flag), never the runtime nor the pool (whose allocator may be an application's: a plugin's
 * allocator would keep the plugin's loader, and the runtime it keeps, reachable from this
 * class's set), and where it was created as {@link StackTraceElement}s taken when it is made, which
 * refer to no class (a {@link Throwable} kept until the report would keep the classes of its
 * frames, and their loaders, reachable: an application's loader that created a runtime through
 * a library in a parent loader). {@link Watch#closed()}, called by the runtime's
 * {@code close()} once its pool is closed (the runtime stays reachable until then), forgets the
 * watch, so a closed runtime is never reported; a runtime whose pool is closed by other means
 * (a failing constructor) is not reported either.
 */
public final class UnclosedRuntimes {
    /** The {@link System.Logger} a runtime that became unreachable unclosed is reported to. */
    public static final String LOGGER = "io.snode.runtime.unclosed";

    /** How many reports are {@code WARNING}s before only those whose number is a power of two are. */
    public static final int WARNED = 16;

    /** Runtimes reported so far. */
    private static final AtomicLong REPORTED = new AtomicLong();

    /** Where the garbage collector puts the watches of runtimes it found unreachable. */
    private static final ReferenceQueue<Object> UNREACHABLE = new ReferenceQueue<>();

    /** The watches of runtimes not closed yet (a reference must stay reachable to be enqueued). */
    private static final Set<Watch> WATCHED = ConcurrentHashMap.newKeySet();

    private UnclosedRuntimes() {
    }

    /**
     * Watches {@code runtime}: once it is unreachable, unless {@link Watch#closed()} was called
     * or {@code pool} is closed, the next {@link #report()} names it as {@code description} with
     * what {@code pool} holds. {@code runtime} must not be reachable from {@code pool}. Reports
     * the runtimes found unreachable so far first.
     */
    public static Watch watch(Object runtime, MemoryPool pool, String description) {
        Objects.requireNonNull(runtime, "runtime");
        report();
        Watch watch = new Watch(runtime, pool.holdings(), description, callersFrames());
        WATCHED.add(watch);
        return watch;
    }

    /**
     * Reports each runtime that the garbage collector has found unreachable unclosed since the
     * last call. A logger that throws a {@link RuntimeException} loses its record; an
     * {@link Error} passes (runtimes call this after their own work is done).
     */
    public static void report() {
        Reference<?> found;
        while ((found = UNREACHABLE.poll()) != null) {
            Watch watch = (Watch) found;
            if (WATCHED.remove(watch)) {
                try {
                    watch.log();
                } catch (RuntimeException loggerFailed) {
                    // a report must not fail the creation, close or collection that made it
                }
            }
        }
    }

    /** How many frames of where a runtime was created a report shows, from the call into the library. */
    static final int FRAMES = 32;

    /** Walks without keeping classes: the frames it gives refer to none. */
    private static final StackWalker WALKER = StackWalker.getInstance();

    /**
     * The innermost {@value #FRAMES} frames of this thread from the call into the library
     * (without this class's and the constructors'), as text: a walk of those frames only, not of
     * the whole stack.
     */
    private static StackTraceElement[] callersFrames() {
        return WALKER.walk(frames -> frames
                .dropWhile(frame -> frame.getClassName().equals(UnclosedRuntimes.class.getName())
                        || frame.getMethodName().equals("<init>"))
                .limit(FRAMES)
                .map(StackWalker.StackFrame::toStackTraceElement)
                .toArray(StackTraceElement[]::new));
    }

    /** One runtime's watch (it refers to no runtime: the reference is phantom). */
    public static final class Watch extends PhantomReference<Object> {
        /** What the pool holds, without the pool (whose allocator may be an application's). */
        private final MemoryPool.Holdings holdings;
        private final String description;
        private final StackTraceElement[] created;

        private Watch(Object runtime, MemoryPool.Holdings holdings, String description, StackTraceElement[] created) {
            super(runtime, UNREACHABLE);
            this.holdings = Objects.requireNonNull(holdings, "holdings");
            this.description = Objects.requireNonNull(description, "description");
            this.created = created;
        }

        /**
         * The runtime is being closed: it is not reported, and nothing keeps its watch. Reports
         * other runtimes found unreachable meanwhile.
         */
        public void closed() {
            WATCHED.remove(this);
            clear();
            UnclosedRuntimes.report();
        }

        private void log() {
            if (holdings.closed()) {
                return;
            }
            long n = REPORTED.incrementAndGet();
            System.Logger.Level level = n <= WARNED || Long.bitCount(n) == 1
                    ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
            System.Logger logger = System.getLogger(LOGGER);
            if (!logger.isLoggable(level)) {
                return;
            }
            Throwable where = new Throwable("the unclosed runtime " + description + " was created here");
            where.setStackTrace(created);
            logger.log(level, "SNode runtime " + description + " became unreachable without close() (unclosed runtime "
                    + n + " of this library copy; the first " + WARNED + " and each power of two are reported as"
                    + " WARNING, the others as DEBUG): its " + holdings.bytesReserved()
                    + " bytes of off-heap memory (reserved: what a memory cap counts) and " + holdings.regionBytes()
                    + " bytes of reserved address space stay held until the JVM exits (they may still be"
                    + " in use by its bound interfaces or handles). Close every runtime, e.g. with"
                    + " try-with-resources; it was created where this record's exception shows.", where);
        }
    }
}
