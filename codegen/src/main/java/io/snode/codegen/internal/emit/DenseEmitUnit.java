package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.GOTO;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/** Dense nodes: every cell is active, at {@code container + index * cellBytes}. */
final class DenseEmitUnit implements NodeEmitUnit {
    static final DenseEmitUnit INSTANCE = new DenseEmitUnit();

    private DenseEmitUnit() {
    }

    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        return false;
    }

    @Override
    public boolean activatesInPlace() {
        return true;
    }

    /** Always active: into the cell. */
    @Override
    public void activateInPlace(PathWalk walk, PathStep step) {
        emitEnter(walk, step, null);
    }

    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        walk.advance(step.containerOffset(), step.node().cellBytes());
    }

    /** {@code for (index = 0; index < cells; index++) visit(cell at index)} */
    @Override
    public void emitChildLoop(ChildLoop loop, SNodePlan child, Label done) {
        Label test = new Label();
        loop.loopHead(loop.index(), (int) child.cellCount(), test, done);
        loop.visitCell(0, child.cellBytes());
        loop.mv().visitIincInsn(loop.index(), 1);
        loop.mv().visitJumpInsn(GOTO, test);
    }

    @Override
    public void emitBlockCells(CellLoop loop) {
        loop.byCount(false);
    }
}
