package io.snode.codegen;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceClassVisitor;

/**
 * One class generated for a compiled layout, for inspection: its name, its bytes (write them to
 * a {@code .class} file for {@code javap -c}), a textual disassembly, the plan that explains
 * the numbers in its code, what it was generated from, and what each of its constants is.
 * Every constructor refuses a null argument with a {@link NullPointerException} whose message
 * names it; the one without a source refuses bytes that are not a class file with an
 * {@link IllegalArgumentException}.
 *
 * @param source    what the class was generated from, in full: {@code layout: } and the layout's
 *                  text for the layout and accessor classes (whose source attribute, the file name
 *                  in stack traces, holds only its first 200 characters: a class file holds at most
 *                  65,535 bytes in one string) and for view drivers; the SNode served for struct-for
 *                  drivers and walks; {@code binds <interface> to layout <text>} for a bound
 *                  interface's class
 * @param constants one line per {@code private static final} field of the class, in declaration
 *                  order: its name (and its value, where the class file holds it), then what it is
 *                  and where its value comes from. The runtime objects (the root container, node
 *                  managers, regions) and a region's zero cell depend on the runtime the layout was
 *                  compiled into, not on the plan alone, so these lines say what the plan cannot.
 *                  Empty for a class without constants.
 */
public record GeneratedClass(String name, byte[] bytes, String plan, String source, List<String> constants) {

    public GeneratedClass {
        Objects.requireNonNull(name, "name");
        bytes = Objects.requireNonNull(bytes, "bytes").clone();
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(source, "source");
        constants = List.copyOf(Objects.requireNonNull(constants, "constants"));
    }

    /** Equal when every component is, the bytes compared by content. */
    @Override
    public boolean equals(Object other) {
        return other instanceof GeneratedClass that && name.equals(that.name) && Arrays.equals(bytes, that.bytes)
                && plan.equals(that.plan) && source.equals(that.source) && constants.equals(that.constants);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, Arrays.hashCode(bytes), plan, source, constants);
    }

    /** The name and the size of the class file (the plan, source and constants have getters of their own). */
    @Override
    public String toString() {
        return "GeneratedClass[" + name + ", " + bytes.length + " bytes, " + constants.size() + " constants]";
    }

    /** A class without constants. */
    public GeneratedClass(String name, byte[] bytes, String plan, String source) {
        this(name, bytes, plan, source, List.of());
    }

    /** A class without constants whose source attribute is its whole {@link #source()}. */
    public GeneratedClass(String name, byte[] bytes, String plan) {
        this(name, bytes, plan, sourceAttribute(Objects.requireNonNull(bytes, "bytes")));
    }

    private static String sourceAttribute(byte[] bytes) {
        String[] source = {""};
        reader(bytes).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
            @Override
            public void visitSource(String file, String debug) {
                source[0] = file == null ? "" : file;
            }
        }, ClassReader.SKIP_CODE);
        return source[0];
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * The bytecode as text (ASM's {@code Textifier}), one method after another, after a comment
     * that lists the {@link #constants}.
     */
    public String disassembly() {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        if (!constants.isEmpty()) {
            out.println("// constants (static final fields), each with what it is and where its value comes from:");
            for (String constant : constants) {
                out.println("//   " + constant);
            }
            out.println();
        }
        reader(bytes).accept(new TraceClassVisitor(null, new Textifier(), out), 0);
        out.flush();
        return text.toString();
    }

    /** A reader of {@code bytes}, or an IllegalArgumentException when they are not a class file. */
    private static ClassReader reader(byte[] bytes) {
        try {
            return new ClassReader(bytes);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bytes: not a class file (" + bytes.length + " bytes): " + e, e);
        }
    }

    /** The simple file name for a dump: the class name's last segment with {@code .class}. */
    public String fileName() {
        return name.substring(name.lastIndexOf('/') + 1) + ".class";
    }
}
