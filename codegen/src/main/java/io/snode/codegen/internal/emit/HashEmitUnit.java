package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSTORE;

import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.Label;

/**
 * Hash nodes: the container is a {@link io.snode.runtime.HashHeader} naming a table
 * ({@code TABLES_<id>}) whose entry for the index holds a pointer word; an active word names
 * the child cell in the node's cell manager ({@code CELLS_<id>}), as for a pointer node. The
 * probe is {@code HashUnit.word}, a static method of a few loads that the JIT inlines.
 */
final class HashEmitUnit implements NodeEmitUnit {
    static final HashEmitUnit INSTANCE = new HashEmitUnit();

    private HashEmitUnit() {
    }

    /** {@code word = HashUnit.word(TABLES, segment, offset + container, index); if (word <= 0) goto inactive} */
    @Override
    public boolean emitActiveTest(PathWalk walk, PathStep step, Label inactive) {
        storeWord(walk, step);
        walk.jumpUnlessActiveWord(inactive);
        return true;
    }

    @Override
    public void emitEnter(PathWalk walk, PathStep step, Label inactive) {
        walk.child(step.node());
    }

    /** A read steps through an absent or inactive entry into the ambient cell: it never jumps. */
    @Override
    public boolean lookup(PathWalk walk, PathStep step, Label inactive, boolean ambient) {
        if (!ambient) {
            return NodeEmitUnit.super.lookup(walk, step, inactive, false);
        }
        storeWord(walk, step);
        walk.childOrAmbient(step.node());
        return false;
    }

    /** word := the entry's pointer word for the walk's index, 0 when there is none. */
    private static void storeWord(PathWalk walk, PathStep step) {
        MethodEmitter mv = walk.mv();
        walk.owner().getConstant(mv, tables(step.node()));
        mv.visitVarInsn(ALOAD, walk.segment());
        walk.containerOffset(step);
        mv.visitVarInsn(LLOAD, walk.index());
        mv.invoke(RuntimeMethods.HASH_WORD);
        mv.visitVarInsn(LSTORE, walk.word());
    }

    static String tables(SNodePlan node) {
        return "TABLES_" + node.id();
    }

    /**
     * Never called: {@code WalkerEmitter.applies} leaves chains with a hash node to the
     * snapshot walk of the node units, which iterates a table's live entries.
     */
    @Override
    public void emitChildLoop(ChildLoop loop, SNodePlan child, Label done) {
        throw new IllegalStateException("no generated walk below " + child.snode().path()
                + ": chains with hash nodes take the node units' snapshot walk");
    }

    /** A hash target's snapshot blocks are single cells with their own coordinates. */
    @Override
    public void emitBlockCells(CellLoop loop) {
        loop.single();
    }
}
