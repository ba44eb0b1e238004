package io.snode.codegen.internal;

import io.snode.api.FieldType;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Everything the emitter needs to know about one field type: its JVM type, the opcodes that
 * load, return and zero it, the {@code ValueLayout} constant that accesses it and the atomic
 * add of the runtime. The one table from which all four primitive specialisations are made.
 */
enum ValueType {
    I32(FieldType.I32, Type.INT_TYPE, "JAVA_INT", "java/lang/foreign/ValueLayout$OfInt", Opcodes.ICONST_0, "getAndAddInt"),
    I64(FieldType.I64, Type.LONG_TYPE, "JAVA_LONG", "java/lang/foreign/ValueLayout$OfLong", Opcodes.LCONST_0, "getAndAddLong"),
    F32(FieldType.F32, Type.FLOAT_TYPE, "JAVA_FLOAT", "java/lang/foreign/ValueLayout$OfFloat", Opcodes.FCONST_0, "getAndAddFloat"),
    F64(FieldType.F64, Type.DOUBLE_TYPE, "JAVA_DOUBLE", "java/lang/foreign/ValueLayout$OfDouble", Opcodes.DCONST_0, "getAndAddDouble");

    final FieldType fieldType;
    final Type type;
    final String layoutField;
    final String layoutClass;
    final int zero;
    final String atomicAdd;

    ValueType(FieldType fieldType, Type type, String layoutField, String layoutClass, int zero, String atomicAdd) {
        this.fieldType = fieldType;
        this.type = type;
        this.layoutField = layoutField;
        this.layoutClass = layoutClass;
        this.zero = zero;
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

    String layoutDescriptor() {
        return "L" + layoutClass + ";";
    }
}
