package io.snode.api;

import java.util.Objects;

/**
 * A field to place on a node: a name and an element type. The name is checked when the layout
 * is built ({@code [A-Za-z_][A-Za-z0-9_]*}, unique in the layout).
 */
public record Field(String name, FieldType type) {
    public Field {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    public static Field i32(String name) {
        return new Field(name, FieldType.I32);
    }

    public static Field i64(String name) {
        return new Field(name, FieldType.I64);
    }

    public static Field f32(String name) {
        return new Field(name, FieldType.F32);
    }

    public static Field f64(String name) {
        return new Field(name, FieldType.F64);
    }

    /** The text form: type, a space, the name ({@code f32 phi}). */
    @Override
    public String toString() {
        return type.text() + " " + name;
    }
}
