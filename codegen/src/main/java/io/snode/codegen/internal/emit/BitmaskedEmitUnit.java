package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.LLOAD;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * Bitmasked nodes: the container holds the mask words ({@link CellArithmetic}), then the cells
 * at {@code cellsOffset}; a cell is active when its bit is set.
 */
final class BitmaskedEmitUnit implements NodeEmitUnit {
    static final BitmaskedEmitUnit INSTANCE = new BitmaskedEmitUnit();

    private BitmaskedEmitUnit() {
    }

    /** {@code if (!maskBit(segment, mask word address, index)) goto inactive} */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        emitActiveTest(walk, step, inactive, IFEQ);
        return true;
    }

    /** Tests the cell's bit and jumps to {@code target} when it is clear ({@code IFEQ}) or set ({@code IFNE}). */
    private static void emitActiveTest(PathWalk walk, PathStep step, Label target, int jump) {
        walk.maskWordAddress(step);
        walk.mv().visitVarInsn(LLOAD, walk.index());
        walk.mv().invoke(RuntimeMethods.MASK_BIT);
        walk.mv().visitJumpInsn(jump, target);
    }

    @Override
    public boolean activatesInPlace() {
        return true;
    }

    /**
     * {@code if (!maskBit(...)) activateBit(STRUCTURE, segment, mask word address, index)}, then
     * into the cell: the atomic OR and the change count of the runtime's inline activation,
     * without a call into it.
     */
    @Override
    public void activateInPlace(PathWalk walk, PathStep step) {
        Label active = new Label();
        emitActiveTest(walk, step, active, IFNE);
        walk.owner().getConstant(walk.mv(), "STRUCTURE");
        walk.maskWordAddress(step);
        walk.mv().visitVarInsn(LLOAD, walk.index());
        walk.mv().invoke(RuntimeMethods.ACTIVATE_BIT);
        walk.mv().visitLabel(active);
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
