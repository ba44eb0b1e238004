package io.snode.codegen.internal.emit;

/**
 * What a struct-for driver ({@link io.snode.codegen.internal.DriverEmitter}) offers the loop over
 * the active cells of one snapshot block; the target kind's {@link NodeEmitUnit#emitBlockCells}
 * chooses one.
 */
public interface CellLoop {
    /** Every cell of the block, by index: the container's cells, or the list's length with {@code perBlockLength}. */
    void byCount(boolean perBlockLength);

    /** The cells whose bits are set in the snapshot's mask words of the block. */
    void byMask();

    /** The block is one cell, and its base coordinates are the cell's (a hash target's blocks). */
    void single();
}
