package io.snode.codegen.kernel;

/**
 * A kernel over the active cells of a 6-dimensional SNode: called once per cell with its
 * 6 coordinates in axis order, from several threads at once in a parallel launch.
 */
@FunctionalInterface
public non-sealed interface Kernel6 extends Kernel {
    void apply(int i, int j, int k, int l, int m, int n);
}
