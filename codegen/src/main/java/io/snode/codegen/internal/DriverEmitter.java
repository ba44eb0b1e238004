package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.ATHROW;
import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IADD;
import static org.objectweb.asm.Opcodes.IALOAD;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.ISUB;
import static org.objectweb.asm.Opcodes.L2I;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LALOAD;
import static org.objectweb.asm.Opcodes.LAND;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LDIV;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LREM;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LSUB;
import static org.objectweb.asm.Opcodes.LUSHR;
import static org.objectweb.asm.Opcodes.NEWARRAY;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.T_INT;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Emits the struct-for drivers: one class per kernel class and SNode, whose static {@code run}
 * visits blocks {@code [from, to)} of an {@link ActiveBlocks} snapshot and calls the kernel. One
 * class per kernel class keeps the call site monomorphic, so the JIT inlines the kernel into the
 * loop; the target's sizes, strides, cell count and mask words are literals.
 *
 * <ul>
 *   <li>Per cell, {@code run(KernelN kernel, ActiveBlocks blocks, int from, int to)}: for every
 *       active cell of every block, {@code kernel.apply(coordinates)}. Coordinate {@code n} is
 *       {@code bases[baseAt + n] * size + local} on axes the target consumes, where
 *       {@code local} comes from the cell index with the plan's stride and size, and
 *       {@code bases[baseAt + n]} on the others. A throwing kernel stops the launch with a
 *       {@link io.snode.codegen.kernel.KernelException} that carries the cell's coordinates.</li>
 *   <li>Per block, {@code run(BlockKernel kernel, ActiveBlocks blocks, int from, int to)}:
 *       {@code kernel.apply(blocks.leaf(block, CELLS_OFFSET, CELL_BYTES, CELL_COUNT))} (the plan's
 *       numbers as literals, so an inlined kernel loops over a block of constant size); and for
 *       reductions {@code run(BlockReducer reducer, Object accumulator, ActiveBlocks blocks, int
 *       from, int to)}: {@code reducer.accumulate(accumulator, blocks.leaf(...))}. A throwing kernel stops the
 *       launch with the block's origin ({@link ActiveBlocks#failure}).</li>
 * </ul>
 */
public final class DriverEmitter {
    static final String KERNEL_EXCEPTION = "io/snode/codegen/kernel/KernelException";
    static final String BLOCKS = "io/snode/codegen/internal/structfor/ActiveBlocks";
    static final String BLOCK_KERNEL = "io/snode/codegen/kernel/BlockKernel";
    static final String BLOCK_REDUCER = "io/snode/codegen/kernel/BlockReducer";
    static final String LEAF_BLOCK = "io/snode/codegen/kernel/LeafBlock";

    // Locals of the per-cell driver.
    private static final int KERNEL = 0;
    private static final int SNAPSHOT = 1;
    private static final int FROM = 2;
    private static final int TO = 3;
    private static final int BASES = 4;
    private static final int MASKS = 5;
    private static final int BLOCK = 6;
    private static final int BASE_AT = 7;
    private static final int INDEX = 8;
    private static final int WORD = 10;
    private static final int BITS = 11;
    private static final int LENGTH = 13;
    private static final int MASK_AT = 15;
    private static final int FAILURE = 16;

    private DriverEmitter() {
    }

    /** The per-cell driver of a KernelN ({@code arity} coordinates) over {@code target}. */
    public static byte[] emit(String className, SNodePlan target, int arity) {
        String kernel = "io/snode/codegen/kernel/Kernel" + arity;
        ClassWriter writer = writer(className, target);
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC | ACC_STATIC, "run",
                "(L" + kernel + ";L" + BLOCKS + ";II)V", null, null);
        for (String name : new String[] {"kernel", "blocks", "from", "to"}) {
            mv.visitParameter(name, 0);
        }
        mv.visitCode();
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
        // bases = blocks.bases(); masks = blocks.masks(); locals the handler reads start at 0
        mv.visitVarInsn(ALOAD, SNAPSHOT);
        mv.visitMethodInsn(INVOKEVIRTUAL, BLOCKS, "bases", "()[I", false);
        mv.visitVarInsn(ASTORE, BASES);
        mv.visitVarInsn(ALOAD, SNAPSHOT);
        mv.visitMethodInsn(INVOKEVIRTUAL, BLOCKS, "masks", "()[J", false);
        mv.visitVarInsn(ASTORE, MASKS);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, BASE_AT);
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(LSTORE, INDEX);
        // for (block = from; block < to; block++) { baseAt = block * arity; <cells of the block> }
        Label blockTest = new Label();
        Label blockBody = new Label();
        emitFirstBlock(mv, FROM, BLOCK, start, blockTest, blockBody);
        mv.visitVarInsn(ILOAD, BLOCK);
        LayoutEmitter.pushInt(mv, arity);
        mv.visitInsn(IMUL);
        mv.visitVarInsn(ISTORE, BASE_AT);
        if (target.kind() == NodeKind.BITMASKED || target.kind() == NodeKind.POINTER) {
            emitMaskLoop(mv, target, kernel, arity);
        } else {
            emitCountLoop(mv, target, kernel, arity);
        }
        emitNextBlock(mv, BLOCK, TO, blockTest, blockBody, end);

        // handler: throw new KernelException(path, coordinates of INDEX in BLOCK, failure)
        mv.visitLabel(handler);
        mv.visitVarInsn(ASTORE, FAILURE);
        mv.visitTypeInsn(Opcodes.NEW, KERNEL_EXCEPTION);
        mv.visitInsn(DUP);
        mv.visitLdcInsn(target.snode().path());
        LayoutEmitter.pushInt(mv, arity);
        mv.visitIntInsn(NEWARRAY, T_INT);
        for (int n = 0; n < arity; n++) {
            mv.visitInsn(DUP);
            LayoutEmitter.pushInt(mv, n);
            emitCoordinate(mv, target, n);
            mv.visitInsn(IASTORE);
        }
        mv.visitVarInsn(ALOAD, FAILURE);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, KERNEL_EXCEPTION, "<init>",
                "(Ljava/lang/String;[ILjava/lang/Throwable;)V", false);
        mv.visitInsn(ATHROW);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    /**
     * The per-block driver over {@code target}: of a BlockKernel, or with {@code reducer} of a
     * BlockReducer that takes the task's accumulator.
     */
    public static byte[] emitBlock(String className, SNodePlan target, boolean reducer) {
        ClassWriter writer = writer(className, target);
        String descriptor = reducer
                ? "(L" + BLOCK_REDUCER + ";Ljava/lang/Object;L" + BLOCKS + ";II)V"
                : "(L" + BLOCK_KERNEL + ";L" + BLOCKS + ";II)V";
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC | ACC_STATIC, "run", descriptor, null, null);
        String[] names = reducer
                ? new String[] {"reducer", "accumulator", "blocks", "from", "to"}
                : new String[] {"kernel", "blocks", "from", "to"};
        for (String name : names) {
            mv.visitParameter(name, 0);
        }
        int shift = reducer ? 1 : 0;
        int blocks = 1 + shift;
        int from = 2 + shift;
        int to = 3 + shift;
        int block = 4 + shift;
        int failure = 5 + shift;
        mv.visitCode();
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
        Label test = new Label();
        Label body = new Label();
        emitFirstBlock(mv, from, block, start, test, body);
        mv.visitVarInsn(ALOAD, 0);
        if (reducer) {
            mv.visitVarInsn(ALOAD, 1);
        }
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        LayoutEmitter.pushLong(mv, target.cellsOffset());
        LayoutEmitter.pushLong(mv, target.cellBytes());
        LayoutEmitter.pushLong(mv, target.cellCount());
        mv.visitMethodInsn(INVOKEVIRTUAL, BLOCKS, "leaf", "(IJJJ)L" + LEAF_BLOCK + ";", false);
        if (reducer) {
            mv.visitMethodInsn(INVOKEINTERFACE, BLOCK_REDUCER, "accumulate",
                    "(Ljava/lang/Object;L" + LEAF_BLOCK + ";)V", true);
        } else {
            mv.visitMethodInsn(INVOKEINTERFACE, BLOCK_KERNEL, "apply", "(L" + LEAF_BLOCK + ";)V", true);
        }
        emitNextBlock(mv, block, to, test, body, end);
        // handler: throw blocks.failure(block, failure)
        mv.visitLabel(handler);
        mv.visitVarInsn(ASTORE, failure);
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ALOAD, failure);
        mv.visitMethodInsn(INVOKEVIRTUAL, BLOCKS, "failure", "(ILjava/lang/Throwable;)Ljava/lang/RuntimeException;",
                false);
        mv.visitInsn(ATHROW);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    /** The start of a loop over blocks: block = from; start: (the try range) goto test; body: */
    private static void emitFirstBlock(MethodVisitor mv, int from, int block, Label start, Label test, Label body) {
        mv.visitVarInsn(ILOAD, from);
        mv.visitVarInsn(ISTORE, block);
        mv.visitLabel(start);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(body);
    }

    /** The end of a loop over blocks: block++; test: if (block < to) goto body; end: return */
    private static void emitNextBlock(MethodVisitor mv, int block, int to, Label test, Label body, Label end) {
        mv.visitIincInsn(block, 1);
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ILOAD, to);
        mv.visitJumpInsn(Opcodes.IF_ICMPLT, body);
        mv.visitLabel(end);
        mv.visitInsn(RETURN);
    }

    private static ClassWriter writer(String className, SNodePlan target) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String first, String second) {
                return "java/lang/Object";
            }
        };
        writer.visit(Opcodes.V25, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object", null);
        writer.visitSource("driver of " + target.snode().path(), null);
        return writer;
    }

    /** length = cell count (or blocks.length(block) for a dynamic list); for (index = 0; index < length; index++) call(index) */
    private static void emitCountLoop(MethodVisitor mv, SNodePlan target, String kernel, int arity) {
        if (target.kind() == NodeKind.DYNAMIC) {
            mv.visitVarInsn(ALOAD, SNAPSHOT);
            mv.visitVarInsn(ILOAD, BLOCK);
            mv.visitMethodInsn(INVOKEVIRTUAL, BLOCKS, "length", "(I)J", false);
        } else {
            LayoutEmitter.pushLong(mv, target.cellCount());
        }
        mv.visitVarInsn(LSTORE, LENGTH);
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(LSTORE, INDEX);
        Label test = new Label();
        Label body = new Label();
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(body);
        emitCall(mv, target, kernel, arity);
        mv.visitVarInsn(LLOAD, INDEX);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, INDEX);
        mv.visitLabel(test);
        mv.visitVarInsn(LLOAD, INDEX);
        mv.visitVarInsn(LLOAD, LENGTH);
        mv.visitInsn(LCMP);
        Label done = new Label();
        mv.visitJumpInsn(IFGE, done);
        mv.visitJumpInsn(GOTO, body);
        mv.visitLabel(done);
    }

    /**
     * maskAt = block * WORDS;
     * for (word = maskAt; word < maskAt + WORDS; word++)
     *   for (bits = masks[word]; bits != 0; bits &= bits - 1) call((word - maskAt) * 64 + tz(bits))
     */
    private static void emitMaskLoop(MethodVisitor mv, SNodePlan target, String kernel, int arity) {
        int words = (int) ((target.cellCount() + 63) / 64);
        mv.visitVarInsn(ILOAD, BLOCK);
        LayoutEmitter.pushInt(mv, words);
        mv.visitInsn(IMUL);
        mv.visitInsn(DUP);
        mv.visitVarInsn(ISTORE, MASK_AT);
        mv.visitVarInsn(ISTORE, WORD);
        Label wordTest = new Label();
        Label wordBody = new Label();
        Label bitsTest = new Label();
        Label bitsBody = new Label();
        Label done = new Label();
        mv.visitJumpInsn(GOTO, wordTest);
        mv.visitLabel(wordBody);
        mv.visitVarInsn(ALOAD, MASKS);
        mv.visitVarInsn(ILOAD, WORD);
        mv.visitInsn(LALOAD);
        mv.visitVarInsn(LSTORE, BITS);
        mv.visitJumpInsn(GOTO, bitsTest);
        mv.visitLabel(bitsBody);
        // index = (word - maskAt) << 6 + numberOfTrailingZeros(bits)
        mv.visitVarInsn(ILOAD, WORD);
        mv.visitVarInsn(ILOAD, MASK_AT);
        mv.visitInsn(ISUB);
        mv.visitInsn(I2L);
        LayoutEmitter.pushInt(mv, 6);
        mv.visitInsn(LSHL);
        mv.visitVarInsn(LLOAD, BITS);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "numberOfTrailingZeros", "(J)I", false);
        mv.visitInsn(I2L);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, INDEX);
        // bits &= bits - 1
        mv.visitVarInsn(LLOAD, BITS);
        mv.visitVarInsn(LLOAD, BITS);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitInsn(LAND);
        mv.visitVarInsn(LSTORE, BITS);
        emitCall(mv, target, kernel, arity);
        mv.visitLabel(bitsTest);
        mv.visitVarInsn(LLOAD, BITS);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        Label nextWord = new Label();
        mv.visitJumpInsn(IFEQ, nextWord);
        mv.visitJumpInsn(GOTO, bitsBody);
        mv.visitLabel(nextWord);
        mv.visitIincInsn(WORD, 1);
        mv.visitLabel(wordTest);
        mv.visitVarInsn(ILOAD, WORD);
        mv.visitVarInsn(ILOAD, MASK_AT);
        LayoutEmitter.pushInt(mv, words);
        mv.visitInsn(IADD);
        mv.visitJumpInsn(IF_ICMPGE, done);
        mv.visitJumpInsn(GOTO, wordBody);
        mv.visitLabel(done);
    }

    /** kernel.apply(coordinates of INDEX) */
    private static void emitCall(MethodVisitor mv, SNodePlan target, String kernel, int arity) {
        mv.visitVarInsn(ALOAD, KERNEL);
        for (int n = 0; n < arity; n++) {
            emitCoordinate(mv, target, n);
        }
        mv.visitMethodInsn(INVOKEINTERFACE, kernel, "apply", "(" + "I".repeat(arity) + ")V", true);
    }

    /** Pushes coordinate {@code n} of cell INDEX: bases[baseAt + n] * size + local, or bases[baseAt + n]. */
    private static void emitCoordinate(MethodVisitor mv, SNodePlan target, int n) {
        SNode node = target.snode();
        Axis axis = node.indexAxes().get(n);
        int position = node.axes().list().indexOf(axis);
        mv.visitVarInsn(ALOAD, BASES);
        mv.visitVarInsn(ILOAD, BASE_AT);
        if (n > 0) {
            LayoutEmitter.pushInt(mv, n);
            mv.visitInsn(IADD);
        }
        mv.visitInsn(IALOAD);
        if (position < 0) {
            return;
        }
        int size = node.sizes()[position];
        long stride = target.stride(position);
        LayoutEmitter.pushInt(mv, size);
        mv.visitInsn(IMUL);
        mv.visitVarInsn(LLOAD, INDEX);
        if (stride > 1) {
            if (Long.bitCount(stride) == 1) {
                LayoutEmitter.pushInt(mv, Long.numberOfTrailingZeros(stride));
                mv.visitInsn(LUSHR);
            } else {
                LayoutEmitter.pushLong(mv, stride);
                mv.visitInsn(LDIV);
            }
        }
        boolean outermost = stride * size == target.cellCount();
        if (!outermost) {
            if (Integer.bitCount(size) == 1) {
                LayoutEmitter.pushLong(mv, size - 1);
                mv.visitInsn(LAND);
            } else {
                LayoutEmitter.pushLong(mv, size);
                mv.visitInsn(LREM);
            }
        }
        mv.visitInsn(L2I);
        mv.visitInsn(IADD);
    }
}
