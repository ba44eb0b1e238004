package io.snode.codegen.kernel;

/**
 * The block form of a reduction: folds one block (a dense or bitmasked container, or a dynamic
 * list as its chunks: {@link LeafBlock}) into an accumulator. A launch gives
 * every task its own accumulator (so the reducer needs no atomics), calls this for each of the
 * task's blocks, and combines the tasks' accumulators in block order.
 *
 * @param <A> the accumulator: a mutable object, one per task
 */
@FunctionalInterface
public interface BlockReducer<A> {
    void accumulate(A accumulator, LeafBlock block);
}
