package io.snode.codegen.testing;

/** Pieces of a generated class's disassembly ({@code GeneratedClass.disassembly()}, ASM's text form). */
public final class Disassembly {
    private Disassembly() {
    }

    /**
     * The text of the first method whose declaration line (it starts with an access modifier)
     * contains {@code header}, up to the next method's {@code // access flags} line.
     *
     * @throws AssertionError when no declaration contains {@code header}
     */
    public static String method(String disassembly, String header) {
        int at = 0;
        while (at < disassembly.length()) {
            int end = disassembly.indexOf('\n', at);
            String line = disassembly.substring(at, end < 0 ? disassembly.length() : end).strip();
            boolean declaration = line.startsWith("public ") || line.startsWith("private ")
                    || line.startsWith("protected ") || line.startsWith("static ");
            if (declaration && line.contains(header) && line.contains("(")) {
                int next = disassembly.indexOf("// access flags", at);
                return disassembly.substring(at, next < 0 ? disassembly.length() : next);
            }
            if (end < 0) {
                break;
            }
            at = end + 1;
        }
        throw new AssertionError("no method declaration with " + header + " in the disassembly");
    }
}
