package io.snode.codegen.kernel;

/**
 * A per-cell kernel over a 7-dimensional SNode that reads and writes through a view: called
 * once per active cell with the task's view (an implementation of the application interface
 * that knows the block being visited) and the cell's 7 coordinates in axis order, from several
 * threads at once in a parallel launch (each with its own view).
 *
 * @param <T> the application interface the view implements
 */
@FunctionalInterface
public non-sealed interface ViewKernel7<T> extends ViewKernel<T> {
    void apply(T view, int i, int j, int k, int l, int m, int n, int o);
}
