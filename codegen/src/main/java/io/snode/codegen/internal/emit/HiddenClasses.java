package io.snode.codegen.internal.emit;

import io.snode.codegen.GeneratedClass;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodHandles.Lookup.ClassOption;
import java.nio.file.Files;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The one place where generated classes become classes: every layout class, accessor, bound
 * interface, struct-for driver and snapshot walk is checked by the generator's switches
 * ({@link CodegenSwitches}: ASM's verifier, the dump directory) and defined here as a
 * {@code NESTMATE} hidden class, with its class data when it has any.
 */
public final class HiddenClasses {
    private HiddenClasses() {
    }

    /**
     * Defines {@code code} with {@code host}'s loader and package.
     *
     * @param classData what the class's {@code <clinit>} loads ({@link ClassEmitter#classData()}),
     *                  or null for a class without class data
     * @return the full-privilege lookup on the new class
     * @throws IllegalStateException when verification is on and the class fails it
     */
    public static MethodHandles.Lookup define(MethodHandles.Lookup host, GeneratedClass code, List<Object> classData)
            throws IllegalAccessException {
        byte[] bytes = code.bytes();
        if (CodegenSwitches.VERIFY) {
            verify(code.name(), bytes);
        }
        if (CodegenSwitches.DUMP_DIRECTORY != null) {
            dump(code);
        }
        return classData == null
                ? host.defineHiddenClass(bytes, true, ClassOption.NESTMATE)
                : host.defineHiddenClassWithClassData(bytes, List.copyOf(classData), true, ClassOption.NESTMATE);
    }

    private static void verify(String name, byte[] bytes) {
        StringWriter report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(bytes), false, new PrintWriter(report));
        if (!report.toString().isEmpty()) {
            throw new IllegalStateException("generated class " + name + " failed verification:\n" + report);
        }
    }

    private static void dump(GeneratedClass code) {
        try {
            Files.createDirectories(CodegenSwitches.DUMP_DIRECTORY);
            Files.write(CodegenSwitches.DUMP_DIRECTORY.resolve(code.fileName()), code.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot dump generated class " + code.name() + " to "
                    + CodegenSwitches.DUMP_DIRECTORY + " (the directory of -Dsnode.codegen.dump): " + e, e);
        }
    }
}
