package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ARRAYLENGTH;
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
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.ISTORE;
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
import static org.objectweb.asm.Opcodes.IFGE;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.SNodePlan;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Emits the driver of one kernel class over one SNode: a static
 * {@code run(KernelN kernel, int[] base, long[] mask, long length)} that visits the active cells
 * of one block and calls the kernel with each cell's coordinates. One class per kernel class
 * keeps the call site monomorphic, so the JIT inlines the kernel into the loop; the target's
 * sizes and strides are literals.
 *
 * <p>Per coordinate {@code n} of the target: {@code base[n] * size + local} on axes the target
 * consumes, where {@code local} comes from the cell index with the plan's stride and size;
 * {@code base[n]} on the others. A throwing kernel stops the block with a
 * {@link io.snode.codegen.kernel.KernelException} that carries the cell's coordinates.
 */
public final class DriverEmitter {
    static final String KERNEL_EXCEPTION = "io/snode/codegen/kernel/KernelException";

    private static final int KERNEL = 0;
    private static final int BASE = 1;
    private static final int MASK = 2;
    private static final int LENGTH = 3;
    private static final int INDEX = 5;
    private static final int WORD = 7;
    private static final int BITS = 8;
    private static final int FAILURE = 10;

    private DriverEmitter() {
    }

    public static byte[] emit(String className, SNodePlan target, int arity) {
        String kernel = "io/snode/codegen/kernel/Kernel" + arity;
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String first, String second) {
                return "java/lang/Object";
            }
        };
        writer.visit(Opcodes.V25, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object", null);
        writer.visitSource("driver of " + target.snode().path(), null);
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC | ACC_STATIC, "run", "(L" + kernel + ";[I[JJ)V", null, null);
        for (String name : new String[] {"kernel", "base", "mask", "length"}) {
            mv.visitParameter(name, 0);
        }
        mv.visitCode();
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(LSTORE, INDEX);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, WORD);
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(LSTORE, BITS);
        mv.visitLabel(start);
        if (target.kind() == NodeKind.BITMASKED || target.kind() == NodeKind.POINTER) {
            emitMaskLoop(mv, target, kernel, arity);
        } else {
            emitCountLoop(mv, target, kernel, arity);
        }
        mv.visitLabel(end);
        mv.visitInsn(RETURN);

        // handler: throw new KernelException(path, coordinates of INDEX, failure)
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

    /** for (index = 0; index < length; index++) call(index) */
    private static void emitCountLoop(MethodVisitor mv, SNodePlan target, String kernel, int arity) {
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
     * for (word = 0; word < mask.length; word++)
     *   for (bits = mask[word]; bits != 0; bits &= bits - 1) call(word * 64 + tz(bits))
     */
    private static void emitMaskLoop(MethodVisitor mv, SNodePlan target, String kernel, int arity) {
        Label wordTest = new Label();
        Label wordBody = new Label();
        Label bitsTest = new Label();
        Label bitsBody = new Label();
        Label done = new Label();
        mv.visitJumpInsn(GOTO, wordTest);
        mv.visitLabel(wordBody);
        mv.visitVarInsn(ALOAD, MASK);
        mv.visitVarInsn(ILOAD, WORD);
        mv.visitInsn(LALOAD);
        mv.visitVarInsn(LSTORE, BITS);
        mv.visitJumpInsn(GOTO, bitsTest);
        mv.visitLabel(bitsBody);
        // index = word << 6 + numberOfTrailingZeros(bits)
        mv.visitVarInsn(ILOAD, WORD);
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
        mv.visitVarInsn(ALOAD, MASK);
        mv.visitInsn(ARRAYLENGTH);
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

    /** Pushes coordinate {@code n} of cell INDEX: base[n] * size + local, or base[n]. */
    private static void emitCoordinate(MethodVisitor mv, SNodePlan target, int n) {
        SNode node = target.snode();
        Axis axis = node.indexAxes().get(n);
        int position = node.axes().list().indexOf(axis);
        mv.visitVarInsn(ALOAD, BASE);
        LayoutEmitter.pushInt(mv, n);
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
