package io.snode.codegen.internal.emit;

import io.snode.api.NodeKind;
import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * The code of one node kind in generated classes, as Taichi writes each kind once
 * ({@code node_<kind>.h}): the step of a path walk (is the cell active, then into it), and the
 * loops over active cells of the snapshot walk and of the struct-for drivers. The emitters
 * choose a unit with {@link #of} and never look at the kind themselves.
 */
public sealed interface NodeEmitUnit permits DenseEmitUnit, BitmaskedEmitUnit, PointerEmitUnit, HashEmitUnit,
        DynamicEmitUnit {

    /** The unit of {@code kind}; the root has none (it is no step of a path). */
    static NodeEmitUnit of(NodeKind kind) {
        return switch (kind) {
            case DENSE -> DenseEmitUnit.INSTANCE;
            case BITMASKED -> BitmaskedEmitUnit.INSTANCE;
            case POINTER -> PointerEmitUnit.INSTANCE;
            case HASH -> HashEmitUnit.INSTANCE;
            case DYNAMIC -> DynamicEmitUnit.INSTANCE;
            case ROOT -> throw new AssertionError("the root is no step of a path and no child");
        };
    }

    /**
     * Jumps to {@code inactive} when the cell at the walk's index is not active (a bitmasked
     * cell whose bit is clear, a null pointer, an index past a list's length); falls through
     * when it is.
     *
     * @return whether it can jump (a dense cell is always active)
     */
    boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive);

    /** segment, offset := the active cell at the walk's index; may still jump to {@code inactive}. */
    void emitEnter(PathWalk walk, PathStep step, Label inactive);

    /**
     * One step of a path walk; a read ({@code ambient}) steps through an inactive pointer into
     * the SNode's zeroed ambient cell, and into a bitmasked cell without its bit's test.
     *
     * @return whether the step can jump to {@code inactive}
     */
    default boolean lookup(PathWalk walk, PathStep step, Label inactive, boolean ambient) {
        boolean jumps = emitActiveTest(walk, step, inactive);
        emitEnter(walk, step, inactive);
        return jumps;
    }

    /**
     * Whether a write may activate a cell of this kind in the generated method itself: the
     * activation needs no memory and cannot fail (dense: always active; bitmasked: one atomic
     * OR). The runtime's {@code NodeUnit.activatesInPlace} says the same of its units.
     */
    default boolean activatesInPlace() {
        return false;
    }

    /**
     * One step of a write's walk where every later step also activates in place
     * ({@link PathWalk#inPlaceTail}): an inactive cell is activated here instead of jumping to
     * the runtime. Only kinds that {@link #activatesInPlace} are asked.
     */
    default void activateInPlace(PathWalk walk, PathStep step) {
        throw new AssertionError(getClass().getSimpleName() + " does not activate in place");
    }

    /** The loop of a snapshot walk over the active cells of {@code child}'s container; exits to {@code done}. */
    void emitChildLoop(ChildLoop loop, SNodePlan child, Label done);

    /** The loop of a struct-for driver over the active cells of a block of this kind. */
    void emitBlockCells(CellLoop loop);

    /**
     * A block driver's {@code LeafBlock} of block {@code b}: with the snapshot and {@code b} on the
     * stack, {@code blocks.leaf(b, CELLS_OFFSET, CELL_BYTES, CELL_COUNT)}, the plan's numbers as
     * literals (dense and bitmasked blocks; the block forms refuse other kinds before a driver is
     * made).
     */
    default void emitLeafBlock(MethodEmitter mv, SNodePlan target) {
        mv.pushLong(target.cellsOffset());
        mv.pushLong(target.cellBytes());
        mv.pushLong(target.cellCount());
        mv.invoke(RuntimeMethods.BLOCK_LEAF);
    }
}
