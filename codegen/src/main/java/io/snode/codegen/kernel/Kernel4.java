package io.snode.codegen.kernel;

/**
 * A kernel over the active cells of a 4-dimensional SNode: called once per cell with its
 * 4 coordinates in axis order, from several threads at once in a parallel launch.
 */
@FunctionalInterface
public non-sealed interface Kernel4 extends Kernel {
    void apply(int i, int j, int k, int l);
}
