package io.snode.runtime.internal.vectorization;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The one place that decides, once per JVM, whether SNode's bulk loops use the Vector API
 * (Lucene's {@code VectorizationProvider}, which serves all of Lucene the same way). Every SIMD
 * user of the project gets its kernels here: the collector's zeroing and copying
 * ({@link #gcKernels()}), the generated walks' pointer scans and the snapshots' mask copies
 * ({@link #scanKernels()}; the copies a word at a time in both families), the built-in
 * reductions' loops ({@link #reductionKernels()}). Each
 * family has a scalar twin with the same contract.
 *
 * <p>Detection: if {@code ModuleLayer.boot().findModule("jdk.incubator.vector")} is present, the
 * Panama provider is loaded reflectively, so that no class that is always loaded names the
 * incubator module; it refuses CPUs whose preferred vectors are narrower than 128 bits.
 * Otherwise, or if loading fails, the scalar provider is used and one warning is logged through
 * {@link System.Logger} (logger {@value #LOGGER}, level {@code WARNING}) that names the flag to
 * add. The result is computed on first use and never changes.
 *
 * <p>Callers keep what they get in a {@code static final} field, chosen at their class
 * initialisation: C2 treats the field as a constant, knows the exact class behind the interface,
 * and inlines the kernel into the caller (no type check or virtual call remains).
 */
public abstract class VectorizationProvider {

    /** The module that holds the Vector API. */
    public static final String VECTOR_MODULE = "jdk.incubator.vector";
    /** What a user adds to the {@code java} command line to get the vector kernels. */
    public static final String ENABLE_FLAG = "--add-modules " + VECTOR_MODULE;
    /** The {@link System.Logger} the one warning goes to. */
    public static final String LOGGER = "io.snode.runtime.internal.vectorization";

    private static final String PANAMA_CLASS = "io.snode.runtime.internal.vectorization.PanamaVectorizationProvider";

    VectorizationProvider() {
    }

    /** The outcome of {@link #detect}: the provider, and why the vector one is missing if it is. */
    public record Detection(VectorizationProvider provider, Optional<String> unavailableReason) {
    }

    /** The provider this JVM uses: detected once, with at most one warning. */
    public static VectorizationProvider getInstance() {
        return Holder.DETECTION.provider();
    }

    /** Why the vector kernels are not in use, or empty when they are. */
    public static Optional<String> vectorUnavailableReason() {
        return Holder.DETECTION.unavailableReason();
    }

    /** The scalar provider, always available. */
    public static VectorizationProvider scalar() {
        return DefaultVectorizationProvider.INSTANCE;
    }

    /** The vector provider if this JVM can run it (then the same instance as {@link #getInstance()}). */
    public static Optional<VectorizationProvider> vector() {
        VectorizationProvider provider = getInstance();
        return provider.vectorized() ? Optional.of(provider) : Optional.empty();
    }

    /** The warning a user sees when the vector kernels cannot be used for {@code reason}. */
    public static String warning(String reason) {
        return "SNode runs without the Vector API (scalar pointer scans, reductions and GC zeroing): " + reason
                + ". Add '" + ENABLE_FLAG + "' to the java command line to use it.";
    }

    /**
     * Detection itself, without caching: {@code warn} receives the {@link #warning} when the
     * vector kernels cannot be used. Exposed for tests; {@link #getInstance()} calls it once.
     */
    public static Detection detect(Consumer<String> warn) {
        String reason;
        Optional<Module> vectorModule = ModuleLayer.boot().findModule(VECTOR_MODULE);
        if (vectorModule.isEmpty()) {
            reason = "module " + VECTOR_MODULE + " is not in the module graph";
        } else {
            try {
                // On the module path this module must read the incubator module; on the class path
                // (an unnamed module reads every module) this is a no-op.
                VectorizationProvider.class.getModule().addReads(vectorModule.get());
                Class<?> type = Class.forName(PANAMA_CLASS, true, VectorizationProvider.class.getClassLoader());
                VectorizationProvider provider = (VectorizationProvider) MethodHandles.lookup()
                        .findConstructor(type, MethodType.methodType(void.class)).invoke();
                return new Detection(provider, Optional.empty());
            } catch (Throwable e) {
                if (e instanceof VirtualMachineError error) {
                    throw error;
                }
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                reason = "the Vector API kernels failed to load: " + cause;
            }
        }
        warn.accept(warning(reason));
        return new Detection(scalar(), Optional.of(reason));
    }

    /** A short name for reports: {@code "scalar"} or {@code "panama-512"} (the vector bit size). */
    public abstract String name();

    /** Whether the Vector API runs the kernels. */
    public abstract boolean vectorized();

    /** The collector's zeroing and copying. */
    public abstract GcKernels gcKernels();

    /** The pointer scans of the generated walks and the snapshots' mask copies. */
    public abstract ScanKernels scanKernels();

    /** The loops of the built-in reductions ({@code sum}, {@code min}, {@code max}). */
    public abstract ReductionKernels reductionKernels();

    @Override
    public String toString() {
        return "VectorizationProvider[" + name() + "]";
    }

    private static final class Holder {
        static final Detection DETECTION = detect(Holder::log);

        private static void log(String message) {
            System.getLogger(LOGGER).log(System.Logger.Level.WARNING, message);
        }
    }
}
