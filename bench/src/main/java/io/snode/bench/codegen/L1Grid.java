package io.snode.bench.codegen;

/** The application interface that benchmarks bind to layout L1. */
public interface L1Grid {
    float phi(int i, int j, int k);

    void phi(int i, int j, int k, float value);
}
