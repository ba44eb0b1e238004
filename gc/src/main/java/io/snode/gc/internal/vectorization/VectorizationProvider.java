package io.snode.gc.internal.vectorization;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * Chooses the {@link GcKernels} once per JVM (Lucene's {@code VectorizationProvider}).
 *
 * <p>Detection: if {@code ModuleLayer.boot().findModule("jdk.incubator.vector")} is present, the
 * Panama kernels are loaded reflectively (so no class of the collector that is always loaded
 * refers to the incubator module); they refuse CPUs whose preferred vectors are narrower than
 * 128 bits. Otherwise, or if loading fails, the scalar kernels are used and one warning is
 * logged through {@link System.Logger} ({@code io.snode.gc}), saying which flag to add. The
 * result is computed on first use and never changes.
 */
public final class VectorizationProvider {

    /** The module that holds the Vector API. */
    public static final String VECTOR_MODULE = "jdk.incubator.vector";
    /** What a user adds to the {@code java} command line to get the vector kernels. */
    public static final String ENABLE_FLAG = "--add-modules " + VECTOR_MODULE;

    private static final String PANAMA_CLASS = "io.snode.gc.internal.vectorization.PanamaGcKernels";

    private VectorizationProvider() {
    }

    /** The outcome of {@link #detect}: the kernels, and why the vector ones are missing if they are. */
    public record Detection(GcKernels kernels, Optional<String> unavailableReason) {
    }

    /** The kernels this JVM uses by default: detected once, with at most one warning. */
    public static GcKernels kernels() {
        return Holder.DETECTION.kernels();
    }

    /** Why the vector kernels are not in use, or empty when they are. */
    public static Optional<String> vectorUnavailableReason() {
        return Holder.DETECTION.unavailableReason();
    }

    /** The scalar kernels, always available. */
    public static GcKernels scalar() {
        return ScalarGcKernels.INSTANCE;
    }

    /** The vector kernels if this JVM can run them (the same instance as {@link #kernels()} then). */
    public static Optional<GcKernels> vector() {
        GcKernels kernels = kernels();
        return kernels.vectorized() ? Optional.of(kernels) : Optional.empty();
    }

    /**
     * Detection itself, without caching: {@code warn} receives the message a user sees when the
     * vector kernels cannot be used. Exposed for tests; {@link #kernels()} calls it once.
     */
    public static Detection detect(Consumer<String> warn) {
        String reason;
        if (ModuleLayer.boot().findModule(VECTOR_MODULE).isEmpty()) {
            reason = "module " + VECTOR_MODULE + " is not in the module graph";
        } else {
            try {
                Class<?> type = Class.forName(PANAMA_CLASS, true, VectorizationProvider.class.getClassLoader());
                GcKernels kernels = (GcKernels) type.getConstructor().newInstance();
                return new Detection(kernels, Optional.empty());
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                reason = "the Vector API kernels failed to load: " + cause;
            }
        }
        warn.accept("SNode GC uses scalar zeroing and copying: " + reason
                + ". Add '" + ENABLE_FLAG + "' to the java command line for the Vector API kernels.");
        return new Detection(ScalarGcKernels.INSTANCE, Optional.of(reason));
    }

    private static final class Holder {
        static final Detection DETECTION = detect(message ->
                System.getLogger("io.snode.gc").log(System.Logger.Level.WARNING, message));
    }
}
