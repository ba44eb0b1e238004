package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LSUB;

import io.snode.codegen.internal.PointerScan;
import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * Pointer nodes: the container holds one pointer word per cell (see
 * {@link io.snode.runtime.PointerWord}); a positive word is active and names its child cell in
 * the node's cell manager ({@code CELLS_<id>}).
 */
final class PointerEmitUnit implements NodeEmitUnit {
    static final PointerEmitUnit INSTANCE = new PointerEmitUnit();

    private PointerEmitUnit() {
    }

    /** {@code word = pointerWord(index); if (word <= 0) goto inactive} */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        walk.pointerWord(step);
        walk.mv().visitVarInsn(LSTORE, walk.word());
        walk.jumpUnlessActiveWord(inactive);
        return true;
    }

    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        walk.child(step.node());
    }

    /** A read steps through an inactive pointer into the ambient cell: it never jumps. */
    @Override
    public boolean lookup(PathWalk walk, PathStep step, Label inactive, boolean ambient) {
        if (!ambient) {
            return NodeEmitUnit.super.lookup(walk, step, inactive, false);
        }
        walk.pointerWord(step);
        walk.mv().visitVarInsn(LSTORE, walk.word());
        walk.childOrAmbient(step.node());
        return false;
    }

    static String cells(SNodePlan node) {
        return "CELLS_" + node.id();
    }

    /**
     * for (index = 0; index < cells; index++) { <the word at index> }, or, when the Vector API is
     * in use ({@link PointerScan#LANES} {@code > 1}) and the cell count is a multiple of
     * {@code LANES}, a vector of words at a time:
     * <pre>{@code
     * for (group = 0; group < cells; group += LANES)
     *   for (bits = PointerScan.activeWords(segment, container + group * 8); bits != 0; bits &= bits - 1) {
     *     index = group + tz(bits); <the word at index>
     *   }
     * }</pre>
     */
    @Override
    public void emitChildLoop(ChildLoop loop, SNodePlan child, Label done) {
        MethodEmitter mv = loop.mv();
        if (PointerScan.LANES > 1 && child.cellCount() % PointerScan.LANES == 0) {
            loop.bitLoop(loop.group(), (int) child.cellCount(), PointerScan.LANES,
                    () -> {
                        loop.wordAddress(loop.group(), false);
                        mv.invoke(RuntimeMethods.ACTIVE_WORDS);
                    },
                    () -> mv.visitVarInsn(ILOAD, loop.group()),
                    next -> followWord(loop, next),
                    done);
            return;
        }
        Label test = new Label();
        Label next = new Label();
        loop.loopHead(loop.index(), (int) child.cellCount(), test, done);
        followWord(loop, next);
        mv.visitLabel(next);
        mv.visitIincInsn(loop.index(), 1);
        mv.visitJumpInsn(GOTO, test);
    }

    /**
     * The pointer word at the index: read plainly; if it is not active, goto {@code next}; else
     * {@code child = word - 1} and the child is recorded (at the record level) or visited, after
     * an acquire fence. Falls through when done.
     */
    private static void followWord(ChildLoop loop, Label next) {
        MethodEmitter mv = loop.mv();
        loop.wordAddress(loop.index(), true);
        mv.invoke(RuntimeMethods.GET_LONG);
        mv.visitInsn(DUP2);
        mv.visitVarInsn(LSTORE, loop.pointer());
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLE, next);
        if (!loop.atRecordLevel()) {
            // The child's container is read next. Recorded cells are read only after the walk,
            // which ends with one fence: a fence here would keep the JIT from hoisting the
            // segment's checks out of the scan.
            mv.invoke(RuntimeMethods.ACQUIRE_FENCE);
        }
        mv.visitVarInsn(LLOAD, loop.pointer());
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitVarInsn(LSTORE, loop.child());
        loop.childCoordinates();
        if (loop.atRecordLevel()) {
            loop.record(next);
        } else {
            loop.visitChild();
        }
    }

    @Override
    public void emitBlockCells(CellLoop loop) {
        loop.byMask();
    }
}
