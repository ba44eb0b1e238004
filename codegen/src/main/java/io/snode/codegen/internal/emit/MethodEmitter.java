package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.BIPUSH;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LAND;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LDIV;
import static org.objectweb.asm.Opcodes.LMUL;
import static org.objectweb.asm.Opcodes.LREM;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LUSHR;
import static org.objectweb.asm.Opcodes.SIPUSH;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * One generated method whose locals have names: the parameters (named when the method is made)
 * and every {@link #newLocal} get an entry of the local-variable table that spans the method, so
 * {@code javap -l}, a debugger and {@code ./snode inspect} show {@code segment}, {@code offset},
 * {@code index} instead of slot numbers. {@link #markLevel} adds a line-number entry where a path
 * level starts (line {@code n}: level {@code n} of the path, the root's children being level 1),
 * so a listing and a stack trace through generated code show which level it is at. It is a
 * {@link MethodVisitor}: instructions go straight to the class writer.
 */
public final class MethodEmitter extends MethodVisitor {
    private record Local(String name, Type type, int slot) {
    }

    private final List<Local> locals = new ArrayList<>();
    private final Label start = new Label();
    private final Label end = new Label();
    private final int firstParameter;
    private int nextSlot;

    MethodEmitter(ClassVisitor writer, String owner, int access, String name, String descriptor,
                  List<String> parameterNames) {
        super(Opcodes.ASM9, writer.visitMethod(access, name, descriptor, null, null));
        Type[] parameters = Type.getArgumentTypes(descriptor);
        if (parameters.length != parameterNames.size()) {
            throw new IllegalArgumentException("parameterNames=" + parameterNames + " must name the "
                    + parameters.length + " parameters of " + name + descriptor);
        }
        for (String parameter : parameterNames) {
            visitParameter(parameter, 0);
        }
        visitCode();
        visitLabel(start);
        if ((access & ACC_STATIC) == 0) {
            newLocal("this", Type.getObjectType(owner));
        }
        firstParameter = nextSlot;
        for (int n = 0; n < parameters.length; n++) {
            newLocal(parameterNames.get(n), parameters[n]);
        }
    }

    /** The slot of parameter {@code n} (0 is the first declared parameter, after {@code this}). */
    public int parameter(int n) {
        return locals.get(n + (firstParameter == 0 ? 0 : 1)).slot();
    }

    /** Allocates a local of {@code type} named {@code name} for the whole method and returns its slot. */
    public int newLocal(String name, Type type) {
        int slot = nextSlot;
        locals.add(new Local(name, type, slot));
        nextSlot += type.getSize();
        return slot;
    }

    /** Marks where path level {@code level} (1 for the root's children) starts: a line-number entry. */
    public void markLevel(int level) {
        Label here = new Label();
        visitLabel(here);
        visitLineNumber(level, here);
    }

    /** Emits a call of a runtime method; its arguments are on the stack. */
    public void invoke(RuntimeMethod method) {
        method.invoke(this);
    }

    /** Ends the method: the local-variable table, then the frames and sizes ASM computes. */
    public void end() {
        visitLabel(end);
        for (Local local : locals) {
            visitLocalVariable(local.name(), local.type().getDescriptor(), null, start, end, local.slot());
        }
        visitMaxs(0, 0);
        visitEnd();
    }

    public void pushInt(int value) {
        if (value >= -1 && value <= 5) {
            visitInsn(ICONST_0 + value);
        } else if (value >= Byte.MIN_VALUE && value <= Byte.MAX_VALUE) {
            visitIntInsn(BIPUSH, value);
        } else if (value >= Short.MIN_VALUE && value <= Short.MAX_VALUE) {
            visitIntInsn(SIPUSH, value);
        } else {
            visitLdcInsn(value);
        }
    }

    public void pushLong(long value) {
        if (value == 0) {
            visitInsn(LCONST_0);
        } else if (value == 1) {
            visitInsn(LCONST_1);
        } else {
            visitLdcInsn(value);
        }
    }

    /** Adds a constant to the long on the stack (nothing for 0). */
    public void addLong(long value) {
        if (value != 0) {
            pushLong(value);
            visitInsn(LADD);
        }
    }

    /** Multiplies the long on the stack by a constant: a shift for powers of two, nothing for 1. */
    public void multiply(long factor) {
        if (factor != 1) {
            byConstant(factor, LSHL, LMUL);
        }
    }

    /** Divides the long on the stack by a positive constant: a shift for powers of two, nothing for 1. */
    public void divide(long divisor) {
        if (divisor != 1) {
            byConstant(divisor, LUSHR, LDIV);
        }
    }

    /** {@code shift} by log2 of a power of two, else {@code operation} with the constant. */
    private void byConstant(long constant, int shift, int operation) {
        if (Long.bitCount(constant) == 1) {
            pushInt(Long.numberOfTrailingZeros(constant));
            visitInsn(shift);
        } else {
            pushLong(constant);
            visitInsn(operation);
        }
    }

    /** The non-negative long on the stack modulo a positive constant: a mask for powers of two. */
    public void remainder(long divisor) {
        if (Long.bitCount(divisor) == 1) {
            pushLong(divisor - 1);
            visitInsn(LAND);
        } else {
            pushLong(divisor);
            visitInsn(LREM);
        }
    }
}
