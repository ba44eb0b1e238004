package io.snode.codegen.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.MemoryCapExceededException;
import io.snode.codegen.SNodeRuntime;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Refusals of node memory for tests, through the runtime's allocation probe: the memory cap's
 * exception ({@code "cap"}) or an injected allocator fault ({@code "fault"}) thrown at chosen
 * allocations, before the allocation takes anything.
 */
public final class AllocationRefusals {
    private AllocationRefusals() {
    }

    /**
     * Refuses the allocations for which {@code refuse} holds (called with the allocation's number,
     * from 1, counted over every thread) with {@code failure}'s exception, until {@link #stop}.
     */
    public static void refuse(SNodeRuntime rt, String failure, Predicate<Integer> refuse) {
        AtomicInteger allocations = new AtomicInteger();
        rt.generic().internalTree().probeAllocations(owner -> {
            if (refuse.test(allocations.incrementAndGet())) {
                throw failure.equals("cap") ? new MemoryCapExceededException(owner.path(), 0, 1, 1)
                        : new IllegalStateException("injected allocator fault");
            }
        });
    }

    /**
     * A third of the allocation numbers, scattered: those whose splitmix64 hash is a multiple of
     * 3. Not {@code n % 3 == 0}: an append that takes three allocations (a new block, its list's
     * first chunk, or a chunk and two directory blocks) would meet a refused number at every try
     * when nothing else allocates between its tries, and its list would never grow.
     */
    public static boolean aThird(int n) {
        long z = n * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return Long.remainderUnsigned(z ^ (z >>> 31), 3) == 0;
    }

    /** Ends {@link #refuse}: every allocation goes through again. */
    public static void stop(SNodeRuntime rt) {
        rt.generic().internalTree().probeAllocations(null);
    }

    /** Whether {@code thrown} is one that {@link #refuse} throws. */
    public static boolean isRefusal(Throwable thrown) {
        return thrown instanceof MemoryCapExceededException
                || thrown instanceof IllegalStateException && "injected allocator fault".equals(thrown.getMessage());
    }

    /** The runtime's activation stamp, which every counted activation changes. */
    public static long stamp(SNodeRuntime rt) {
        return rt.generic().internalTree().activationStamp();
    }

    /**
     * {@code call} with only its {@code nth} allocation refused: it throws the cap's or the fault's
     * exception, and no activation is counted.
     */
    public static void refusedAtAllocation(SNodeRuntime rt, String failure, int nth, Runnable call) {
        long before = stamp(rt);
        refuse(rt, failure, n -> n == nth);
        try {
            assertThatThrownBy(call::run).satisfies(thrown -> assertThat(isRefusal(thrown)).as("%s", thrown).isTrue());
        } finally {
            stop(rt);
        }
        assertThat(stamp(rt)).isEqualTo(before);
    }
}
