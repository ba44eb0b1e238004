package io.snode.runtime.internal.vectorization;

/** The portable provider: plain {@code MemorySegment} loops, always available. */
final class DefaultVectorizationProvider extends VectorizationProvider {

    static final DefaultVectorizationProvider INSTANCE = new DefaultVectorizationProvider();

    private DefaultVectorizationProvider() {
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
    public GcKernels gcKernels() {
        return ScalarGcKernels.INSTANCE;
    }

    @Override
    public ScanKernels scanKernels() {
        return ScalarScanKernels.INSTANCE;
    }

    @Override
    public ReductionKernels reductionKernels() {
        return ScalarReductionKernels.INSTANCE;
    }
}
