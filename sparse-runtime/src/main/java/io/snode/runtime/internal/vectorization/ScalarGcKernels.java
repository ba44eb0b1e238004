package io.snode.runtime.internal.vectorization;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The portable kernels: {@link MemorySegment#fill} and {@link MemorySegment#copy}. */
public final class ScalarGcKernels implements GcKernels {

    static final ScalarGcKernels INSTANCE = new ScalarGcKernels();

    private ScalarGcKernels() {
    }

    @Override
    public String name() {
        return "scalar";
    }

    @Override
    public boolean vectorized() {
        return false;
    }

    @Override
    public void zero(MemorySegment segment, long offset, long length) {
        segment.asSlice(offset, length).fill((byte) 0);
    }

    @Override
    public void copyInts(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        MemorySegment.copy(src, srcOffset, dst, dstOffset, count * ValueLayout.JAVA_INT.byteSize());
    }

    @Override
    public String toString() {
        return "GcKernels[" + name() + "]";
    }
}
