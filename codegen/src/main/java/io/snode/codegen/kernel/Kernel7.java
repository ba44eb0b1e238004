package io.snode.codegen.kernel;

/**
 * A kernel over the active cells of a 7-dimensional SNode: called once per cell with its
 * 7 coordinates in axis order, from several threads at once in a parallel launch.
 */
@FunctionalInterface
public non-sealed interface Kernel7 extends Kernel {
    void apply(int i, int j, int k, int l, int m, int n, int o);
}
