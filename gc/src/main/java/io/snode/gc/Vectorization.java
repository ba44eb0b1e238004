package io.snode.gc;

/** Which kernels a collector zeroes and copies with. */
public enum Vectorization {
    /** The Vector API kernels when {@code jdk.incubator.vector} is in the module graph, else scalar (one warning per JVM). */
    AUTO,
    /** {@code MemorySegment.fill} and {@code MemorySegment.copy} only. */
    SCALAR,
    /** The Vector API kernels; building a collector fails if the module is absent. */
    VECTOR
}
