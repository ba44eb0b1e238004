package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.LLOAD;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * Bitmasked nodes: the container holds the mask words ({@link CellArithmetic}), then the cells
 * at {@code cellsOffset}; a cell is active when its bit is set.
 *
 * <p>A read does not test the bit. An inactive cell's bytes are zero: a container starts zeroed,
 * the runtime zeroes a cell when it clears its bit ({@code BitmaskedUnit.deactivate}), every
 * write sets the bit before it stores, and a bulk write stores only into containers whose
 * activation succeeded, then sets their bits. So the value in memory is what the mask test
 * would give (the cell's value, or zero), without the mask word's load and a branch that random
 * reads mispredict. A read that races a deactivation of its cell gives the value or zero, as with
 * the test. A store that a writer races past a deactivation stays in the cell (the caller's race,
 * see {@code NodeTree}); reads then give it, as the block forms and the reductions, which read
 * every cell of a block, already do.
 */
final class BitmaskedEmitUnit implements NodeEmitUnit {
    static final BitmaskedEmitUnit INSTANCE = new BitmaskedEmitUnit();

    private BitmaskedEmitUnit() {
    }

    /** {@code if (!maskBit(segment, mask word address, index)) goto inactive} */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        walk.maskWordAddress(step);
        walk.mv().visitVarInsn(LLOAD, walk.index());
        walk.mv().invoke(RuntimeMethods.MASK_BIT);
        walk.mv().visitJumpInsn(IFEQ, inactive);
        return true;
    }

    /**
     * A read ({@code ambient}) enters the cell without its bit's test (see the class comment)
     * and never jumps; other walks test the bit.
     */
    @Override
    public boolean lookup(PathWalk walk, PathStep step, Label inactive, boolean ambient) {
        if (!ambient) {
            return NodeEmitUnit.super.lookup(walk, step, inactive, false);
        }
        emitEnter(walk, step, inactive);
        return false;
    }

    @Override
    public boolean activatesInPlace() {
        return true;
    }

    /**
     * {@code activateBit(STRUCTURE, segment, mask word address, index)} (which tests the bit
     * first, then makes the atomic OR and the change count of the runtime's inline activation,
     * without a call into the runtime), then into the cell.
     */
    @Override
    public void activateInPlace(PathWalk walk, PathStep step) {
        walk.owner().getConstant(walk.mv(), "STRUCTURE");
        walk.maskWordAddress(step);
        walk.mv().visitVarInsn(LLOAD, walk.index());
        walk.mv().invoke(RuntimeMethods.ACTIVATE_BIT);
        emitEnter(walk, step, null);
    }

    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        walk.advance(step.containerOffset() + step.node().cellsOffset(), step.node().cellBytes());
    }

    /**
     * for (word = 0; word < words; word++)
     *   for (bits = getAcquire(mask word); bits != 0; bits &= bits - 1)
     *     index = word * 64 + tz(bits); visit(cell at index)
     */
    @Override
    public void emitChildLoop(ChildLoop loop, SNodePlan child, Label done) {
        MethodEmitter mv = loop.mv();
        int words = (int) ((child.cellCount() + 63) >>> CellArithmetic.CELLS_PER_WORD_SHIFT);
        loop.bitLoop(loop.wordIndex(), words, 1,
                () -> {
                    loop.wordAddress(loop.wordIndex(), false);
                    mv.invoke(RuntimeMethods.GET_ACQUIRE);
                },
                () -> {
                    mv.visitVarInsn(ILOAD, loop.wordIndex());
                    CellArithmetic.firstCellOfWord(mv);
                },
                next -> loop.visitCell(child.cellsOffset(), child.cellBytes()),
                done);
    }

    @Override
    public void emitBlockCells(CellLoop loop) {
        loop.byMask();
    }
}
