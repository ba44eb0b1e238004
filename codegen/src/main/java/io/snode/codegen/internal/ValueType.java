package io.snode.codegen.internal;

import io.snode.api.FieldType;
import io.snode.codegen.internal.emit.RuntimeMethod;
import io.snode.codegen.internal.emit.RuntimeMethods;
import java.lang.foreign.ValueLayout;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Everything the emitter needs to know about one field type: its JVM type, the opcodes that
 * load, return and zero it, the {@code ValueLayout} constant that accesses it, and the segment's
 * get and set and the runtime's atomic add for it. The one table from which all four primitive
 * specialisations are made.
 */
enum ValueType {
    I32(FieldType.I32, Type.INT_TYPE, "JAVA_INT", ValueLayout.OfInt.class, Opcodes.ICONST_0,
            RuntimeMethods.GET_INT, RuntimeMethods.SET_INT, RuntimeMethods.ADD_INT),
    I64(FieldType.I64, Type.LONG_TYPE, "JAVA_LONG", ValueLayout.OfLong.class, Opcodes.LCONST_0,
            RuntimeMethods.GET_LONG, RuntimeMethods.SET_LONG, RuntimeMethods.ADD_LONG),
    F32(FieldType.F32, Type.FLOAT_TYPE, "JAVA_FLOAT", ValueLayout.OfFloat.class, Opcodes.FCONST_0,
            RuntimeMethods.GET_FLOAT, RuntimeMethods.SET_FLOAT, RuntimeMethods.ADD_FLOAT),
    F64(FieldType.F64, Type.DOUBLE_TYPE, "JAVA_DOUBLE", ValueLayout.OfDouble.class, Opcodes.DCONST_0,
            RuntimeMethods.GET_DOUBLE, RuntimeMethods.SET_DOUBLE, RuntimeMethods.ADD_DOUBLE);

    final FieldType fieldType;
    final Type type;
    final String layoutField;
    final Class<?> layoutClass;
    final int zero;
    final RuntimeMethod get;
    final RuntimeMethod set;
    final RuntimeMethod atomicAdd;

    ValueType(FieldType fieldType, Type type, String layoutField, Class<?> layoutClass, int zero, RuntimeMethod get,
              RuntimeMethod set, RuntimeMethod atomicAdd) {
        this.fieldType = fieldType;
        this.type = type;
        this.layoutField = layoutField;
        this.layoutClass = layoutClass;
        this.zero = zero;
        this.get = get;
        this.set = set;
        this.atomicAdd = atomicAdd;
    }

    static ValueType of(FieldType fieldType) {
        return values()[fieldType.ordinal()];
    }

    int load() {
        return type.getOpcode(Opcodes.ILOAD);
    }

    int returns() {
        return type.getOpcode(Opcodes.IRETURN);
    }

    /**
     * Pushes the unaligned {@code ValueLayout} constant of the type
     * ({@code ValueLayout.JAVA_INT_UNALIGNED}, ...) for plain reads and stores: the plan aligns
     * every field in node memory, so the aligned constant's check (an AND and a branch per
     * access in the compiled code) could never fail. Atomic operations keep aligned layouts.
     */
    void pushLayout(MethodVisitor mv) {
        mv.visitFieldInsn(Opcodes.GETSTATIC, Type.getInternalName(ValueLayout.class), layoutField + "_UNALIGNED",
                Type.getDescriptor(layoutClass));
    }
}
