package io.snode.codegen.internal;

import io.snode.runtime.internal.vectorization.ScanKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.lang.foreign.MemorySegment;

/**
 * Copies a bitmask from node memory into a snapshot, counting its bits: a vector at a time when
 * the Vector API is in use, else a word at a time. The kernels come from
 * {@link VectorizationProvider}, chosen once when this class is initialised ({@code static final},
 * so C2 inlines them); this class names no Vector API type.
 */
public final class MaskCopy {
    private static final ScanKernels KERNELS = VectorizationProvider.getInstance().scanKernels();

    private MaskCopy() {
    }

    /**
     * Copies the {@code words} mask words at {@code offset} of {@code segment} to
     * {@code masks[at ...]} (plain reads: the caller fences after the pass) and returns how many
     * bits they set.
     */
    public static int copy(MemorySegment segment, long offset, long[] masks, int at, int words) {
        return KERNELS.copyMasks(segment, offset, masks, at, words);
    }
}
