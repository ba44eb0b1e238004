package io.snode.api;

/** The element types a field can have; each is stored with its natural alignment. */
public enum FieldType {
    I32("i32", 4, int.class),
    I64("i64", 8, long.class),
    F32("f32", 4, float.class),
    F64("f64", 8, double.class);

    private final String text;
    private final int byteSize;
    private final Class<?> javaType;

    FieldType(String text, int byteSize, Class<?> javaType) {
        this.text = text;
        this.byteSize = byteSize;
        this.javaType = javaType;
    }

    /** The name in the text form: {@code i32 i64 f32 f64}. */
    public String text() {
        return text;
    }

    public int byteSize() {
        return byteSize;
    }

    /** The Java primitive type that holds one value. */
    public Class<?> javaType() {
        return javaType;
    }

    public boolean isFloatingPoint() {
        return this == F32 || this == F64;
    }

    /** The type named {@code text}, or {@code null} when there is none. */
    public static FieldType fromText(String text) {
        for (FieldType type : values()) {
            if (type.text.equals(text)) {
                return type;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }
}
