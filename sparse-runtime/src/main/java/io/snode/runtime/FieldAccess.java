package io.snode.runtime;

import io.snode.api.FieldType;
import io.snode.runtime.internal.Atomics;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Loads, stores and atomic adds of one field value as raw bits: i32 and f32 travel as the low
 * 32 bits of a long (upper bits zero), i64 and f64 as all 64. The one place where field types meet memory; the
 * typed methods of {@link SparseRuntime} only convert bits.
 */
final class FieldAccess {
    private FieldAccess() {
    }

    static long load(FieldType type, MemorySegment segment, long offset) {
        return switch (type) {
            case I32, F32 -> segment.get(ValueLayout.JAVA_INT, offset) & 0xFFFF_FFFFL;
            case I64, F64 -> segment.get(ValueLayout.JAVA_LONG, offset);
        };
    }

    static void store(FieldType type, MemorySegment segment, long offset, long bits) {
        switch (type) {
            case I32, F32 -> segment.set(ValueLayout.JAVA_INT, offset, (int) bits);
            case I64, F64 -> segment.set(ValueLayout.JAVA_LONG, offset, bits);
        }
    }

    /** Adds the value that {@code deltaBits} encodes; returns the previous value's bits. */
    static long add(FieldType type, MemorySegment segment, long offset, long deltaBits) {
        return switch (type) {
            case I32 -> Atomics.getAndAddInt(segment, offset, (int) deltaBits) & 0xFFFF_FFFFL;
            case I64 -> Atomics.getAndAddLong(segment, offset, deltaBits);
            case F32 -> Float.floatToRawIntBits(
                    Atomics.getAndAddFloat(segment, offset, Float.intBitsToFloat((int) deltaBits))) & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits(
                    Atomics.getAndAddDouble(segment, offset, Double.longBitsToDouble(deltaBits)));
        };
    }
}
