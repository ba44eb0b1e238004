package io.snode.runtime.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Atomic and ordered access to 64-bit words and 32-bit values in node memory, named by their
 * memory ordering (VarHandle vocabulary). All go through FFM's checked var handles.
 */
public final class Atomics {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private Atomics() {
    }

    public static long getAcquire(MemorySegment segment, long offset) {
        return (long) LONG.getAcquire(segment, offset);
    }

    public static long getVolatile(MemorySegment segment, long offset) {
        return (long) LONG.getVolatile(segment, offset);
    }

    public static void setRelease(MemorySegment segment, long offset, long value) {
        LONG.setRelease(segment, offset, value);
    }

    public static void setVolatile(MemorySegment segment, long offset, long value) {
        LONG.setVolatile(segment, offset, value);
    }

    public static boolean compareAndSet(MemorySegment segment, long offset, long expected, long value) {
        return LONG.compareAndSet(segment, offset, expected, value);
    }

    /**
     * Compare-and-set that returns the word's value before the call (it succeeded when that
     * equals {@code expected}); volatile semantics.
     */
    public static long compareAndExchange(MemorySegment segment, long offset, long expected, long value) {
        return (long) LONG.compareAndExchange(segment, offset, expected, value);
    }

    public static long getAndBitwiseOr(MemorySegment segment, long offset, long bits) {
        return (long) LONG.getAndBitwiseOr(segment, offset, bits);
    }

    public static long getAndBitwiseAnd(MemorySegment segment, long offset, long bits) {
        return (long) LONG.getAndBitwiseAnd(segment, offset, bits);
    }

    public static long getAndAddLong(MemorySegment segment, long offset, long delta) {
        return (long) LONG.getAndAdd(segment, offset, delta);
    }

    public static int getAndAddInt(MemorySegment segment, long offset, int delta) {
        return (int) INT.getAndAdd(segment, offset, delta);
    }

    /** Atomically adds {@code delta} to the float at {@code offset}; returns the previous value. */
    public static float getAndAddFloat(MemorySegment segment, long offset, float delta) {
        while (true) {
            int bits = (int) INT.getVolatile(segment, offset);
            float previous = Float.intBitsToFloat(bits);
            if (INT.compareAndSet(segment, offset, bits, Float.floatToRawIntBits(previous + delta))) {
                return previous;
            }
        }
    }

    /** Atomically adds {@code delta} to the double at {@code offset}; returns the previous value. */
    public static double getAndAddDouble(MemorySegment segment, long offset, double delta) {
        while (true) {
            long bits = (long) LONG.getVolatile(segment, offset);
            double previous = Double.longBitsToDouble(bits);
            if (LONG.compareAndSet(segment, offset, bits, Double.doubleToRawLongBits(previous + delta))) {
                return previous;
            }
        }
    }
}
