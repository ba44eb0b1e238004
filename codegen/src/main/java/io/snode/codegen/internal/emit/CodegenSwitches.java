package io.snode.codegen.internal.emit;

import java.nio.file.Path;

/**
 * The generator's two switches, read once:
 * <ul>
 *   <li>{@code -Dsnode.codegen.dump=DIR}: every generated class is also written to
 *   {@code DIR/<name>.class}, for {@code javap -c -p};</li>
 *   <li>{@code -Dsnode.codegen.verify=true}: every generated class is checked with ASM's
 *   {@code CheckClassAdapter} before it is defined (the JVM verifies it in any case; this gives
 *   a readable report).</li>
 * </ul>
 */
public final class CodegenSwitches {
    public static final Path DUMP_DIRECTORY = dumpDirectory();
    public static final boolean VERIFY = Boolean.getBoolean("snode.codegen.verify");

    private CodegenSwitches() {
    }

    private static Path dumpDirectory() {
        String value = System.getProperty("snode.codegen.dump");
        return value == null || value.isBlank() ? null : Path.of(value);
    }
}
