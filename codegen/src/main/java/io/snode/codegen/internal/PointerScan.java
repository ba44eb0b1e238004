package io.snode.codegen.internal;

import io.snode.runtime.PointerWord;
import io.snode.runtime.internal.vectorization.ScanKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.lang.foreign.MemorySegment;

/**
 * Finds the active words of a pointer container several at a time, for the generated walks
 * ({@link WalkerEmitter}): most words of a sparse container are {@link PointerWord#NULL}, and one
 * vector compare per {@link #LANES} words skips them without a branch per word.
 *
 * <p>The generated code calls {@link #activeWords} by name, so this class must load in every
 * JVM: it names no Vector API type. The kernels come from {@link VectorizationProvider}, chosen
 * once when this class is initialised and kept in a {@code static final} field, so C2 inlines the
 * chosen implementation into the walk. Without {@code jdk.incubator.vector} the scalar kernels
 * have one lane, and the walks are emitted with their loop a word at a time instead (they never
 * call this class then).
 */
public final class PointerScan {
    private static final ScanKernels KERNELS = VectorizationProvider.getInstance().scanKernels();
    /** Words per call: 8 with AVX-512, 4 with AVX2, 2 with SSE or NEON; 1 without the Vector API. */
    public static final int LANES = KERNELS.lanes();

    private PointerScan() {
    }

    /**
     * Bit {@code n} is set when the word at {@code offset + 8 n} ({@code n < LANES}) is active
     * (greater than zero, as {@link PointerWord#isActive}). A plain read: the caller re-reads a
     * word it follows, and fences before it reads what the word leads to.
     */
    public static long activeWords(MemorySegment segment, long offset) {
        return KERNELS.activeWords(segment, offset);
    }
}
