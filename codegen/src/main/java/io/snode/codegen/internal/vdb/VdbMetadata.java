package io.snode.codegen.internal.vdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * OpenVDB metadata maps ({@code MetaMap::readMeta} / {@code writeMeta}): an int32 count, then per
 * entry a name string, a type-name string, an int32 byte size and the value. Read values are
 * {@code String} ("string"), {@code Boolean} ("bool"), {@code Integer} ("int32"), {@code Long}
 * ("int64"), {@code Float} ("float"), {@code Double} ("double"), {@code int[3]} ("vec3i"),
 * {@code double[3]} ("vec3s", "vec3d"); entries of other types (such as OpenVDB's
 * {@code __delayedload}) are skipped by their size. Written entries keep the order they are added in.
 */
final class VdbMetadata {
    private static final int MAX_ENTRIES = 1 << 16;

    private VdbMetadata() {
    }

    static Map<String, Object> read(VdbInput in) throws IOException {
        long at = in.position();
        int count = in.readInt();
        if (count < 0 || count > MAX_ENTRIES) {
            throw in.fail("metadata count " + count + " at offset " + at + " (allowed: 0 to " + MAX_ENTRIES
                    + "): damaged file");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = in.readString("metadata name");
            String type = in.readString("metadata type of '" + name + "'");
            long sizeAt = in.position();
            int size = in.readInt();
            if (size < 0) {
                throw in.fail("metadata '" + name + "' has size " + size + " at offset " + sizeAt + ": damaged file");
            }
            int expect = switch (type) {
                case "bool" -> 1;
                case "int32", "float" -> 4;
                case "int64", "double" -> 8;
                case "vec3i", "vec3s" -> 12;
                case "vec3d" -> 24;
                default -> -1;
            };
            if (expect >= 0 && size != expect) {
                throw in.fail("metadata '" + name + "' of type " + type + " has size " + size + " (expected "
                        + expect + "): damaged file");
            }
            Object value = switch (type) {
                case "string" -> {
                    byte[] b = new byte[checkLength(in, name, size)];
                    in.readFully(b, 0, size);
                    yield new String(b, StandardCharsets.UTF_8);
                }
                case "bool" -> in.readByte() != 0;
                case "int32" -> in.readInt();
                case "int64" -> in.readLong();
                case "float" -> (float) in.readValue(VdbValueType.FLOAT);
                case "double" -> in.readDouble();
                case "vec3i" -> new int[] {in.readInt(), in.readInt(), in.readInt()};
                case "vec3s" -> new double[] {in.readValue(VdbValueType.FLOAT), in.readValue(VdbValueType.FLOAT),
                    in.readValue(VdbValueType.FLOAT)};
                case "vec3d" -> new double[] {in.readDouble(), in.readDouble(), in.readDouble()};
                default -> {
                    in.skip(size);
                    yield null;
                }
            };
            if (value != null) {
                map.put(name, value);
            }
        }
        return map;
    }

    private static int checkLength(VdbInput in, String name, int size) throws IOException {
        if (size > VdbInput.MAX_STRING) {
            throw in.fail("metadata string '" + name + "' of " + size + " bytes is too long (allowed: up to "
                    + VdbInput.MAX_STRING + ")");
        }
        return size;
    }

    /** Metadata to write, in order. */
    static final class Writer {
        private final Map<String, Object> entries = new LinkedHashMap<>();

        Writer put(String name, Object value) {
            entries.put(name, value);
            return this;
        }

        void write(VdbOutput out) throws IOException {
            out.putInt(entries.size());
            for (Map.Entry<String, Object> e : entries.entrySet()) {
                out.putString(e.getKey());
                Object v = e.getValue();
                switch (v) {
                    case String s -> {
                        out.putString("string");
                        out.putString(s);
                    }
                    case Boolean b -> {
                        out.putString("bool");
                        out.putInt(1);
                        out.putByte(b ? 1 : 0);
                    }
                    case Long l -> {
                        out.putString("int64");
                        out.putInt(8);
                        out.putLong(l);
                    }
                    case int[] a when a.length == 3 -> {
                        out.putString("vec3i");
                        out.putInt(12);
                        for (int c : a) {
                            out.putInt(c);
                        }
                    }
                    default -> throw new AssertionError("metadata value of " + v.getClass());
                }
            }
        }
    }
}
