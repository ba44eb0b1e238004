package io.snode.codegen.kernel;

/**
 * A kernel that receives a whole block at once (all cells of one dense or bitmasked container,
 * or one dynamic list as its chunks: {@link LeafBlock}), so that it can run vectorised loops
 * over contiguous memory.
 */
@FunctionalInterface
public interface BlockKernel {
    void apply(LeafBlock block);
}
