package io.snode.bench.workload;

import com.sun.management.HotSpotDiagnosticMXBean;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exact heap bytes of the objects a baseline structure holds (the "held" and "reserved"
 * bytes of its rows: a Java structure reserves what it holds), from the running JVM's object
 * layout, never from a heap-usage delta.
 *
 * <p>HotSpot's layout on a 64-bit JVM, as computed here:
 *
 * <pre>
 *   object header   8 B with compact object headers (UseCompactObjectHeaders), else
 *                   12 B (8 B mark word + 4 B class pointer, UseCompressedClassPointers), else 16 B
 *   reference       4 B with compressed oops (UseCompressedOops), else 8 B
 *   instance        header + the bytes of every instance field of the class and its superclasses
 *   array           header + 4 B length, then the elements; the elements start at an 8-byte
 *                   boundary when they are long, double, or references without compressed oops
 *   every object    rounded up to ObjectAlignmentInBytes (8 by default)
 * </pre>
 *
 * <p>The instance rule adds field sizes without holes. HotSpot packs fields by size, largest
 * first, into the first slot that fits, the slot after a 12-byte header included, so this is
 * exact for the classes counted here: {@code Long} (one long), the hash maps' nodes (an int and
 * references, a boolean last in a tree node), the lists of W6 (an int and a reference). With the
 * default layout (compressed oops and class pointers, no compact headers) a {@code HashMap.Node}
 * takes 32 bytes, a {@code Long} 24 and a {@code float[512]} 2,064.
 *
 * <p>Counting a map reads its private table: {@code HashMap} and {@code ConcurrentHashMap} need
 * {@code --add-opens java.base/java.util=ALL-UNNAMED} and {@code --add-opens
 * java.base/java.util.concurrent=ALL-UNNAMED}; without them the count fails with an
 * {@link IllegalStateException} that names the flag. Count a map at rest (no writer running).
 */
public final class HeapBytes {
    private final boolean compressedOops;
    private final boolean compressedClassPointers;
    private final boolean compactHeaders;
    private final int alignment;

    /**
     * A layout given by its flags.
     *
     * @param alignment ObjectAlignmentInBytes: a power of two from 8 to 256
     */
    public HeapBytes(boolean compressedOops, boolean compressedClassPointers, boolean compactHeaders, int alignment) {
        if (alignment < 8 || alignment > 256 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment=" + alignment + " (a power of two from 8 to 256)");
        }
        this.compressedOops = compressedOops;
        this.compressedClassPointers = compressedClassPointers;
        this.compactHeaders = compactHeaders;
        this.alignment = alignment;
    }

    /** The layout of the running JVM, read from its HotSpot flags. */
    public static HeapBytes current() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return new HeapBytes(flag(vm, "UseCompressedOops", "true").equals("true"),
                flag(vm, "UseCompressedClassPointers", "true").equals("true"),
                flag(vm, "UseCompactObjectHeaders", "false").equals("true"),
                Integer.parseInt(flag(vm, "ObjectAlignmentInBytes", "8")));
    }

    private static String flag(HotSpotDiagnosticMXBean vm, String name, String absent) {
        try {
            return vm.getVMOption(name).getValue();
        } catch (IllegalArgumentException unknown) {
            return absent; // a flag this JVM no longer has: its fixed behaviour
        }
    }

    /** The bytes of an object header. */
    public int header() {
        return compactHeaders ? 8 : compressedClassPointers ? 12 : 16;
    }

    /** The bytes of a reference field or array element. */
    public int reference() {
        return compressedOops ? 4 : 8;
    }

    /** The bytes of an instance of {@code type} (not of the objects its fields refer to). */
    public long instance(Class<?> type) {
        if (type.isArray() || type.isPrimitive()) {
            throw new IllegalArgumentException("type=" + type.getTypeName() + " (a class; arrays: array())");
        }
        long bytes = header();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    bytes += bytes(field.getType());
                }
            }
        }
        return align(bytes);
    }

    /** The bytes of an array of {@code length} elements of {@code component}. */
    public long array(Class<?> component, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("length=" + length + " (0 or more)");
        }
        int element = bytes(component);
        long base = header() + 4L;
        if (element == 8) {
            base = (base + 7) & -8L;
        }
        return align(base + element * length);
    }

    /**
     * The bytes of a {@link HashMap} or {@link ConcurrentHashMap} without its values: the table,
     * every node (plain or tree, each by its class) and every key object; not the map object
     * (48 bytes) nor a {@code ConcurrentHashMap}'s counter cells (a few, made under contention).
     */
    public long hashTable(Map<?, ?> map) {
        Object[] table;
        Field next;
        Field treeFirst = null;
        if (map instanceof HashMap<?, ?>) {
            table = (Object[]) read(field(HashMap.class, "table"), map);
            next = field(HashMap.class, "java.util.HashMap$Node", "next");
        } else if (map instanceof ConcurrentHashMap<?, ?>) {
            table = (Object[]) read(field(ConcurrentHashMap.class, "table"), map);
            next = field(ConcurrentHashMap.class, "java.util.concurrent.ConcurrentHashMap$Node", "next");
            treeFirst = field(ConcurrentHashMap.class, "java.util.concurrent.ConcurrentHashMap$TreeBin", "first");
        } else {
            throw new IllegalArgumentException("map=" + map.getClass().getName()
                    + " (counted: java.util.HashMap, java.util.concurrent.ConcurrentHashMap)");
        }
        long bytes = table == null ? 0 : array(Object.class, table.length);
        long nodes = 0;
        for (Object head : table == null ? new Object[0] : table) {
            Object node = head;
            if (node != null && treeFirst != null && treeFirst.getDeclaringClass() == node.getClass()) {
                bytes += instance(node.getClass()); // a TreeBin: its tree nodes hang from first
                node = read(treeFirst, node);
            }
            for (; node != null; node = read(next, node)) {
                if (!next.getDeclaringClass().isInstance(node)) {
                    throw new IllegalStateException("a bin holds a " + node.getClass().getName()
                            + ": count a map only while no thread writes to it");
                }
                bytes += instance(node.getClass());
                nodes++;
            }
        }
        if (nodes != map.size()) {
            throw new IllegalStateException("counted " + nodes + " nodes in a map of size " + map.size()
                    + ": count a map only while no thread writes to it");
        }
        for (Object key : map.keySet()) {
            bytes += instance(key.getClass()); // distinct keys are distinct objects
        }
        return bytes;
    }

    /** The bytes of a fastutil {@code Long2ObjectOpenHashMap} without its values: its key and value arrays. */
    public long openHashTable(Long2ObjectOpenHashMap<?> map) {
        long[] keys = (long[]) read(field(Long2ObjectOpenHashMap.class, "key"), map);
        Object[] values = (Object[]) read(field(Long2ObjectOpenHashMap.class, "value"), map);
        return array(long.class, keys.length) + array(Object.class, values.length);
    }

    /** This layout in words, with the sizes the baselines' counts use. */
    public String describe() {
        try {
            return String.format(Locale.ROOT,
                    "header %d B, references %d B, alignment %d B: HashMap.Node %d B, Long %d B, float[512] %d B",
                    header(), reference(), alignment, instance(Class.forName("java.util.HashMap$Node")),
                    instance(Long.class), array(float.class, 512));
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    private int bytes(Class<?> type) {
        if (!type.isPrimitive()) {
            return reference();
        }
        if (type == long.class || type == double.class) {
            return 8;
        }
        if (type == int.class || type == float.class) {
            return 4;
        }
        if (type == short.class || type == char.class) {
            return 2;
        }
        if (type == byte.class || type == boolean.class) {
            return 1;
        }
        throw new IllegalArgumentException("type=" + type + " (no instances or elements)");
    }

    private long align(long bytes) {
        return (bytes + alignment - 1) & -(long) alignment;
    }

    private static Field field(Class<?> map, String name) {
        return field(map, map.getName(), name);
    }

    private static Field field(Class<?> map, String declaringClass, String name) {
        try {
            Field field = Class.forName(declaringClass, false, map.getClassLoader()).getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (InaccessibleObjectException e) {
            throw new IllegalStateException("counting the bytes of a " + map.getSimpleName() + " reads its "
                    + name + " field: run the JVM with --add-opens " + map.getModule().getName() + "/"
                    + map.getPackageName() + "=ALL-UNNAMED", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JVM's " + declaringClass + " has no field " + name, e);
        }
    }

    private static Object read(Field field, Object from) {
        try {
            return field.get(from);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e); // accessible since field()
        }
    }
}
