package io.snode.codegen.kernel;

/**
 * A kernel of a struct-for launch: {@link Kernel1} to {@link Kernel8} by the number of
 * coordinates. The launch calls it once per active cell, in parallel unless the runtime's
 * parallelism is 1. Kernels may read, write, atomically add, activate and deactivate; cells they
 * activate are not visited by the same launch.
 */
public sealed interface Kernel permits Kernel1, Kernel2, Kernel3, Kernel4, Kernel5, Kernel6, Kernel7, Kernel8 {
}
