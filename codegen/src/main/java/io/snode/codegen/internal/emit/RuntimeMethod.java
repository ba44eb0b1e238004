package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.H_INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESPECIAL;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/**
 * A method that generated code calls: owner, name, descriptor and invoke opcode, all taken from
 * the real {@link Method} (or {@link Constructor}) when the entry is made, as the JDK's
 * generators keep their {@code DESCR_*} constants. Entries live in static finals
 * ({@link RuntimeMethods}), so a helper that was renamed or changed its parameters fails when
 * the table loads, with its name, not as a {@code NoSuchMethodError} in the first generated call.
 */
public record RuntimeMethod(int opcode, String owner, String name, String descriptor, boolean isInterface) {

    /**
     * The method {@code name(parameters)} declared by {@code owner}, public or not.
     *
     * @throws IllegalStateException naming the method when {@code owner} declares none such
     */
    public static RuntimeMethod of(Class<?> owner, String name, Class<?>... parameters) {
        Method method;
        try {
            method = owner.getDeclaredMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            throw missing(owner, name, parameters, e);
        }
        int opcode = Modifier.isStatic(method.getModifiers()) ? INVOKESTATIC
                : owner.isInterface() ? INVOKEINTERFACE : INVOKEVIRTUAL;
        return new RuntimeMethod(opcode, Type.getInternalName(owner), name, Type.getMethodDescriptor(method),
                owner.isInterface());
    }

    /**
     * The constructor {@code owner(parameters)}, called with {@code invokespecial} after a
     * {@code new} and {@code dup}.
     *
     * @throws IllegalStateException naming the constructor when {@code owner} declares none such
     */
    public static RuntimeMethod constructor(Class<?> owner, Class<?>... parameters) {
        Constructor<?> constructor;
        try {
            constructor = owner.getDeclaredConstructor(parameters);
        } catch (NoSuchMethodException e) {
            throw missing(owner, "<init>", parameters, e);
        }
        return new RuntimeMethod(INVOKESPECIAL, Type.getInternalName(owner), "<init>",
                Type.getConstructorDescriptor(constructor), false);
    }

    private static IllegalStateException missing(Class<?> owner, String name, Class<?>[] parameters,
                                                 NoSuchMethodException cause) {
        String list = Arrays.stream(parameters).map(Class::getSimpleName).collect(Collectors.joining(", "));
        return new IllegalStateException("runtime method " + owner.getName() + "." + name + "(" + list
                + ") that generated code calls does not exist; was it renamed or its parameters changed?", cause);
    }

    /** Emits the call; its arguments are on the stack. */
    public void invoke(MethodVisitor mv) {
        mv.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
    }

    /** The handle of a static method, for a bootstrap method of {@code invokedynamic}. */
    public Handle handle() {
        if (opcode != INVOKESTATIC) {
            throw new IllegalStateException(this + " is not static: no bootstrap method");
        }
        return new Handle(H_INVOKESTATIC, owner, name, descriptor, isInterface);
    }

    /** {@code Owner.name(descriptor)}, as in messages and disassemblies. */
    @Override
    public String toString() {
        return owner + "." + name + descriptor;
    }
}
