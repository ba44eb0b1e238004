package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ACONST_NULL;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLT;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSTORE;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * Dynamic nodes: the container is a list header (its length, then the chunk directory);
 * element {@code index} is cell {@code index % chunk} of chunk {@code index / chunk}, a cell of
 * the node's cell manager. A dynamic node is terminal: no walk loops over its children.
 */
final class DynamicEmitUnit implements NodeEmitUnit {
    static final DynamicEmitUnit INSTANCE = new DynamicEmitUnit();

    private DynamicEmitUnit() {
    }

    /** {@code if (index >= listLength(header)) goto inactive} */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        walk.mv().visitVarInsn(LLOAD, walk.index());
        walk.listLength(step);
        walk.mv().visitInsn(LCMP);
        walk.mv().visitJumpInsn(IFGE, inactive);
        return true;
    }

    /**
     * word = chunkReference(header, index / chunk, directory, fanout); if (word == 0) goto
     * inactive; segment, offset := the chunk's cell; offset += (index % chunk) * cellBytes
     */
    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        MethodEmitter mv = walk.mv();
        SNodePlan node = step.node();
        mv.visitVarInsn(ALOAD, walk.segment());
        walk.containerOffset(step);
        mv.visitVarInsn(LLOAD, walk.index());
        mv.divide(node.chunkSize());
        pushDirectory(walk, node);
        mv.invoke(RuntimeMethods.CHUNK_REFERENCE);
        mv.visitVarInsn(LSTORE, walk.word());
        mv.visitVarInsn(LLOAD, walk.word());
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, inactive);
        walk.child(node);
        mv.visitVarInsn(LLOAD, walk.offset());
        mv.visitVarInsn(LLOAD, walk.index());
        mv.remainder(node.chunkSize());
        mv.multiply(node.cellBytes());
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, walk.offset());
    }

    /**
     * index := tryAppend(STRUCTURE, SNODE_<list>, segment, header, chunk, capacity, directory,
     * fanout) (a missing chunk is published there); if (index < 0) goto slow.
     */
    void emitTakeIndex(PathWalk walk, PathStep step, Label slow) {
        MethodEmitter mv = walk.mv();
        SNodePlan node = step.node();
        walk.owner().getConstant(mv, "STRUCTURE");
        walk.owner().getConstant(mv, "SNODE_" + node.snode().id());
        mv.visitVarInsn(ALOAD, walk.segment());
        walk.containerOffset(step);
        mv.pushInt(node.chunkSize());
        mv.pushInt(node.capacity());
        pushDirectory(walk, node);
        mv.invoke(RuntimeMethods.TRY_APPEND);
        mv.visitVarInsn(LSTORE, walk.index());
        mv.visitVarInsn(LLOAD, walk.index());
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLT, slow);
    }

    /**
     * {@link #emitTakeIndex}, then into the element as {@link #emitEnter} (to {@code emptied}
     * when its chunk is gone: a deactivation raced the append).
     */
    void emitTryAppend(PathWalk walk, PathStep step, Label slow, Label emptied) {
        emitTakeIndex(walk, step, slow);
        emitEnter(walk, step, emptied);
    }

    /** Pushes the node's directory manager (null when the inline references cover the capacity) and the directory fan-out. */
    private static void pushDirectory(PathWalk walk, SNodePlan node) {
        MethodEmitter mv = walk.mv();
        if (node.directoryLeafFanout() > 0) {
            walk.owner().getConstant(mv, "DIRECTORY_" + node.id());
        } else {
            mv.visitInsn(ACONST_NULL);
        }
        mv.pushInt(node.directoryLeafFanout());
    }

    @Override
    public void emitChildLoop(ChildLoop loop, SNodePlan child, Label done) {
        throw new AssertionError("a dynamic node is terminal: no snapshot walk loops over its children");
    }

    /** Every element of the list, up to its length in the snapshot. */
    @Override
    public void emitBlockCells(CellLoop loop) {
        loop.byCount(true);
    }

    /** {@code blocks.list(b, CHUNK_SIZE, CELL_BYTES)}: the list with its chunks; a full chunk's size is a literal. */
    @Override
    public void emitLeafBlock(MethodEmitter mv, SNodePlan target) {
        mv.pushLong(target.chunkSize());
        mv.pushLong(target.cellBytes());
        mv.invoke(RuntimeMethods.BLOCK_LIST);
    }
}
