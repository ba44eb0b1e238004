package io.snode.codegen.kernel;

/**
 * A kernel over the active cells of a 2-dimensional SNode: called once per cell with its
 * 2 coordinates in axis order, from several threads at once in a parallel launch.
 */
@FunctionalInterface
public non-sealed interface Kernel2 extends Kernel {
    void apply(int i, int j);
}
