package io.snode.runtime.internal.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Padding against false sharing for fields that one thread writes while others read
 * neighbouring memory. HotSpot lays out a superclass's fields first, so a class that extends
 * {@link Before} and is followed by its own trailing padding has its fields two cache lines
 * away from anything else on both sides.
 */
final class Padding {
    private Padding() {
    }

    /**
     * Two cache lines of padding (one more than a line, against adjacent-line prefetch). The
     * {@code int} takes the 4-byte gap after the object header: without it HotSpot puts a
     * subclass's {@code int} there (it fills empty slots of superclasses), in front of the
     * padding; that is where a thread cache's {@code size} landed.
     */
    @SuppressWarnings("unused")
    abstract static class Before {
        int headerGap;
        long p00, p01, p02, p03, p04, p05, p06, p07;
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    private abstract static class CursorValue extends Before {
        @SuppressWarnings("unused")
        long value;
    }

    /**
     * A {@code long} that threads write to each other (a free-list cursor), padded on both
     * sides; method names say the memory ordering.
     */
    @SuppressWarnings("unused")
    static final class Cursor extends CursorValue {
        private static final VarHandle VALUE;

        static {
            try {
                VALUE = MethodHandles.lookup().findVarHandle(CursorValue.class, "value", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        long q00, q01, q02, q03, q04, q05, q06, q07;
        long q10, q11, q12, q13, q14, q15, q16, q17;

        long getAndAdd(long delta) {
            return (long) VALUE.getAndAdd(this, delta);
        }

        boolean compareAndSet(long expected, long value) {
            return VALUE.compareAndSet(this, expected, value);
        }

        long getAcquire() {
            return (long) VALUE.getAcquire(this);
        }

        void setRelease(long value) {
            VALUE.setRelease(this, value);
        }
    }
}
