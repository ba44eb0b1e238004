package io.snode.runtime.internal.vectorization;

import io.snode.runtime.internal.node.PointerUnit;
import java.lang.foreign.MemorySegment;

/**
 * The portable scans, a word at a time. The provider's instance has one lane, so that the
 * generated walks keep their loop a word at a time; {@link #withLanes} makes the same scan over
 * as many words as a vector holds, the model the Panama kernels are tested against.
 */
public final class ScalarScanKernels implements ScanKernels {

    static final ScalarScanKernels INSTANCE = new ScalarScanKernels(1);

    private final int lanes;

    private ScalarScanKernels(int lanes) {
        this.lanes = lanes;
    }

    /**
     * Scalar kernels whose {@link #activeWords} looks at {@code lanes} words.
     *
     * @throws IllegalArgumentException unless {@code 1 <= lanes <= 64}
     */
    public static ScalarScanKernels withLanes(int lanes) {
        if (lanes < 1 || lanes > Long.SIZE) {
            throw new IllegalArgumentException("lanes=" + lanes + " (allowed: 1 to 64, one bit per word)");
        }
        return lanes == 1 ? INSTANCE : new ScalarScanKernels(lanes);
    }

    @Override
    public String name() {
        return "scalar";
    }

    @Override
    public int lanes() {
        return lanes;
    }

    @Override
    public long activeWords(MemorySegment segment, long offset) {
        return PointerUnit.activeMask(segment, offset, lanes);
    }

    @Override
    public String toString() {
        return "ScanKernels[" + name() + ", lanes=" + lanes + "]";
    }
}
