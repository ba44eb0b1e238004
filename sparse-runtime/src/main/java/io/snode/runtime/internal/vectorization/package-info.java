/**
 * The Vector API behind one provider, for the whole library (internal: for gc and codegen only).
 *
 * <p>{@link io.snode.runtime.internal.vectorization.VectorizationProvider} probes once per JVM
 * whether {@code jdk.incubator.vector} is in the module graph and hands out three kernel families,
 * each an interface with a scalar twin and a Panama implementation:
 * <ul>
 *   <li>{@link io.snode.runtime.internal.vectorization.GcKernels}: zeroing recycled cells and
 *       copying index runs (gc's collection phases);</li>
 *   <li>{@link io.snode.runtime.internal.vectorization.ScanKernels}: the active words of a
 *       pointer container and bitmask copies with bit counts, the copies a word at a time in
 *       both (codegen's generated walks and snapshots, through {@code PointerScan} and
 *       {@code MaskCopy});</li>
 *   <li>{@link io.snode.runtime.internal.vectorization.ReductionKernels}: the loops of the built-in
 *       {@code sum}, {@code min} and {@code max} over a block's cells, with the one order of
 *       additions that both implementations follow (codegen's {@code Reductions}).</li>
 * </ul>
 * Only {@code PanamaGcKernels}, {@code PanamaScanKernels} and {@code PanamaReductionKernels} name
 * the incubator module, and only {@code PanamaVectorizationProvider} links them; it is loaded by
 * name after the module check, so without the module none of them is ever loaded, one warning
 * names the flag, and the scalar kernels give the same results (the reductions the same bits). Users keep the kernels in {@code static final} fields so that
 * C2 inlines the chosen implementation.
 */
package io.snode.runtime.internal.vectorization;
