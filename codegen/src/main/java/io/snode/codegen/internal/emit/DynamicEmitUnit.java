package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ACONST_NULL;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.GETFIELD;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLT;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.PUTFIELD;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import java.lang.foreign.MemorySegment;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * Dynamic nodes: the container is a list header (its length, then the chunk directory);
 * element {@code index} is cell {@code index % chunk} of chunk {@code index / chunk}, a cell of
 * the node's cell manager. A dynamic node is terminal: no walk loops over its children.
 */
final class DynamicEmitUnit implements NodeEmitUnit {
    static final DynamicEmitUnit INSTANCE = new DynamicEmitUnit();

    private DynamicEmitUnit() {
    }

    /**
     * {@code if (index >= listLength(header)) goto inactive}; where the walk's object remembers
     * the list ({@link PathWalk#rememberList}), {@code if (index >= this.<length>) { length =
     * listLength(header); this.<length> = length; if (index >= length) goto inactive; }}: an index
     * below a length read before is active without reading the length again.
     */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        MethodEmitter mv = walk.mv();
        PathWalk.ListMemo memo = walk.listMemo();
        if (memo == null) {
            mv.visitVarInsn(LLOAD, walk.index());
            walk.listLength(step);
            mv.visitInsn(LCMP);
            mv.visitJumpInsn(IFGE, inactive);
            return true;
        }
        Label known = new Label();
        mv.visitVarInsn(LLOAD, walk.index());
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, memo.owner(), memo.length(), "J");
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLT, known);
        int length = mv.newLocal("length", Type.LONG_TYPE);
        walk.listLength(step);
        mv.visitVarInsn(LSTORE, length);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, length);
        mv.visitFieldInsn(PUTFIELD, memo.owner(), memo.length(), "J");
        mv.visitVarInsn(LLOAD, walk.index());
        mv.visitVarInsn(LLOAD, length);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFGE, inactive);
        mv.visitLabel(known);
        return true;
    }

    /**
     * word = chunkReference(header, index / chunk, directory, fanout); if (word == 0) goto
     * inactive; segment, offset := the chunk's cell; offset += (index % chunk) * cellBytes. Where
     * the walk's object remembers the list ({@link PathWalk#rememberList}), a chunk it remembers
     * is entered without the lookup ({@link #enterRememberedChunk}).
     */
    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        MethodEmitter mv = walk.mv();
        SNodePlan node = step.node();
        PathWalk.ListMemo memo = walk.listMemo();
        if (memo == null) {
            mv.visitVarInsn(ALOAD, walk.segment());
            walk.containerOffset(step);
            mv.visitVarInsn(LLOAD, walk.index());
            mv.divide(node.chunkSize());
            enterChunk(walk, node, inactive);
        } else {
            enterRememberedChunk(walk, step, memo, inactive);
        }
        mv.visitVarInsn(LLOAD, walk.offset());
        mv.visitVarInsn(LLOAD, walk.index());
        mv.remainder(node.chunkSize());
        mv.multiply(node.cellBytes());
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, walk.offset());
    }

    /**
     * With the list's header and the chunk's number on the stack: word = chunkReference(header,
     * chunk, directory, fanout); if (word == 0) goto inactive; segment, offset := the chunk's cell.
     */
    private static void enterChunk(PathWalk walk, SNodePlan node, Label inactive) {
        MethodEmitter mv = walk.mv();
        pushDirectory(walk, node);
        mv.invoke(RuntimeMethods.CHUNK_REFERENCE);
        mv.visitVarInsn(LSTORE, walk.word());
        mv.visitVarInsn(LLOAD, walk.word());
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, inactive);
        walk.child(node);
    }

    /**
     * segment, offset := chunk {@code index / chunk}'s cell, remembered in the walk's object:
     * {@code chunk = index / CHUNK; if (chunk == this.<chunk>) { segment = REGION_<node> (or
     * this.<chunkSegment>); offset = this.<chunkOffset>; } else { as without memo, from chunk;
     * this.<chunk> = chunk; this.<chunkOffset> = offset; (this.<chunkSegment> = segment;) }}.
     */
    private static void enterRememberedChunk(PathWalk walk, PathStep step, PathWalk.ListMemo memo, Label inactive) {
        MethodEmitter mv = walk.mv();
        SNodePlan node = step.node();
        int chunk = mv.newLocal("chunk", Type.LONG_TYPE);
        Label found = new Label();
        Label entered = new Label();
        mv.visitVarInsn(LLOAD, walk.index());
        mv.divide(node.chunkSize());
        mv.visitVarInsn(LSTORE, chunk);
        mv.visitVarInsn(LLOAD, chunk);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, memo.owner(), memo.chunk(), "J");
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, found);
        mv.visitVarInsn(ALOAD, walk.segment());
        walk.containerOffset(step);
        mv.visitVarInsn(LLOAD, chunk);
        enterChunk(walk, node, inactive);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, chunk);
        mv.visitFieldInsn(PUTFIELD, memo.owner(), memo.chunk(), "J");
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, walk.offset());
        mv.visitFieldInsn(PUTFIELD, memo.owner(), memo.chunkOffset(), "J");
        if (memo.chunkSegment() != null) {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitVarInsn(ALOAD, walk.segment());
            mv.visitFieldInsn(PUTFIELD, memo.owner(), memo.chunkSegment(), SEGMENT);
        }
        mv.visitJumpInsn(GOTO, entered);
        mv.visitLabel(found);
        if (memo.chunkSegment() != null) {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, memo.owner(), memo.chunkSegment(), SEGMENT);
        } else {
            walk.owner().getConstant(mv, "REGION_" + node.id());
        }
        mv.visitVarInsn(ASTORE, walk.segment());
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, memo.owner(), memo.chunkOffset(), "J");
        mv.visitVarInsn(LSTORE, walk.offset());
        mv.visitLabel(entered);
    }

    private static final String SEGMENT = Type.getDescriptor(MemorySegment.class);

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
