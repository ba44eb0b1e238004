package io.snode.codegen.testing;

import io.snode.codegen.SNodeRuntime;
import java.lang.management.ManagementFactory;

/**
 * The bytes the current thread allocates on the Java heap while a test's code runs (HotSpot's
 * {@code com.sun.management.ThreadMXBean}), for tests that claim a path allocates nothing.
 */
public final class HeapAllocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private HeapAllocations() {
    }

    /** Code of a test that may throw anything (method handles do). */
    public interface Step {
        void run() throws Throwable;
    }

    /** The bytes this thread allocated while {@code step} ran. */
    public static long allocatedBy(Step step) throws Throwable {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        step.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    /**
     * Three passes, each over an emptied and collected runtime: {@code prepare} (not counted),
     * then {@code measured}; returns the bytes the thread allocated during the last pass's
     * {@code measured}, after two passes compiled the code and filled the free lists.
     */
    public static long inLastOfThreePasses(SNodeRuntime rt, Step prepare, Step measured) throws Throwable {
        long allocated = 0;
        for (int pass = 0; pass < 3; pass++) {
            rt.deactivateAll(rt.layout().root());
            rt.gc();
            prepare.run();
            allocated = allocatedBy(measured);
        }
        return allocated;
    }

    /**
     * Three passes, each over an emptied and collected runtime: {@code step} into the empty
     * runtime, then {@code step} again over what it made; returns the bytes the thread allocated
     * during the last pass's first run beyond its second: what making new cells (blocks, lists)
     * allocated beyond the same call over existing ones, after two passes compiled the code and
     * filled the free lists.
     */
    public static long beyondARepeatInLastOfThreePasses(SNodeRuntime rt, Step step) throws Throwable {
        long fresh = 0;
        long repeated = 0;
        for (int pass = 0; pass < 3; pass++) {
            rt.deactivateAll(rt.layout().root());
            rt.gc();
            fresh = allocatedBy(step);
            repeated = allocatedBy(step);
        }
        return fresh - repeated;
    }
}
