package io.snode.runtime.internal.vectorization;

/**
 * The Vector API provider. Loaded only reflectively by {@link VectorizationProvider}, after it
 * has checked that {@code jdk.incubator.vector} is in the module graph: this class links the
 * Panama kernels, which name the incubator module.
 */
final class PanamaVectorizationProvider extends VectorizationProvider {

    private final PanamaGcKernels gcKernels;
    private final PanamaScanKernels scanKernels;
    /** The Panama reductions, or the scalar ones where vectors hold fewer than four doubles. */
    private final ReductionKernels reductionKernels;

    /**
     * @throws UnsupportedOperationException if the preferred vectors are narrower than 128 bits
     *                                       (no SIMD worth using; C2 may also be off)
     */
    PanamaVectorizationProvider() {
        this.gcKernels = new PanamaGcKernels();
        this.scanKernels = new PanamaScanKernels();
        this.reductionKernels = PanamaReductionKernels.supported() ? new PanamaReductionKernels()
                : ScalarReductionKernels.INSTANCE;
    }

    @Override
    public String name() {
        return gcKernels.name();
    }

    @Override
    public boolean vectorized() {
        return true;
    }

    @Override
    public GcKernels gcKernels() {
        return gcKernels;
    }

    @Override
    public ScanKernels scanKernels() {
        return scanKernels;
    }

    @Override
    public ReductionKernels reductionKernels() {
        return reductionKernels;
    }
}
