package io.snode.codegen.kernel;

/**
 * A kernel that receives a whole active leaf block at once (all cells of one dense or
 * bitmasked container), so that it can run vectorised loops over the block's memory.
 */
@FunctionalInterface
public interface BlockKernel {
    void apply(LeafBlock block);
}
