package io.snode.codegen;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceClassVisitor;

/**
 * One class generated for a compiled layout, for inspection: its name, its bytes (write them to
 * a {@code .class} file for {@code javap -c}), a textual disassembly, and the plan that explains
 * every constant in it.
 */
public record GeneratedClass(String name, byte[] bytes, String plan) {

    public GeneratedClass {
        bytes = bytes.clone();
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
