package io.snode.codegen;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceClassVisitor;

/**
 * One class generated for a compiled layout, for inspection: its name, its bytes (write them to
 * a {@code .class} file for {@code javap -c}), a textual disassembly, the plan that explains
 * every constant in it, and what it was generated from.
 *
 * @param source what the class was generated from, in full: {@code layout: } and the layout's
 *               text for the layout and accessor classes (whose source attribute, the file name
 *               in stack traces, holds only its first 200 characters: a class file holds at most
 *               65,535 bytes in one string), the SNode served for struct-for drivers and walks
 */
public record GeneratedClass(String name, byte[] bytes, String plan, String source) {

    public GeneratedClass {
        bytes = bytes.clone();
    }

    /** A class whose source attribute is its whole {@link #source()}. */
    public GeneratedClass(String name, byte[] bytes, String plan) {
        this(name, bytes, plan, sourceAttribute(bytes));
    }

    private static String sourceAttribute(byte[] bytes) {
        String[] source = {""};
        new ClassReader(bytes).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
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

    /** The bytecode as text (ASM's {@code Textifier}), one method after another. */
    public String disassembly() {
        StringWriter text = new StringWriter();
        new ClassReader(bytes).accept(new TraceClassVisitor(null, new Textifier(), new PrintWriter(text)), 0);
        return text.toString();
    }

    /** The simple file name for a dump: the class name's last segment with {@code .class}. */
    public String fileName() {
        return name.substring(name.lastIndexOf('/') + 1) + ".class";
    }
}
