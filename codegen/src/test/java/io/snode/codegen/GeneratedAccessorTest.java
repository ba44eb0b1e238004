package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.lang.invoke.MethodHandle;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GeneratedAccessorTest {
    static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";

    @Test
    void setThenGetThroughGeneratedMethods() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(L1))) {
            MethodHandle get = rt.getter("phi");
            MethodHandle set = rt.setter("phi");
            MethodHandle add = rt.adder("phi");
            assertThat((float) get.invokeExact(1000, 7, 1029)).isZero();
            set.invokeExact(1000, 7, 1029, 2.5f);
            assertThat((float) get.invokeExact(1000, 7, 1029)).isEqualTo(2.5f);
            assertThat((float) add.invokeExact(1000, 7, 1029, 1f)).isEqualTo(2.5f);
            assertThat(rt.generic().getFloat("phi", 1000, 7, 1029)).isEqualTo(3.5f);
            SNode inner = rt.layout().snode(2);
            MethodHandle isActive = rt.nodeHandle("isActive", inner);
            assertThat((boolean) isActive.invokeExact(125, 0, 128)).isTrue();
            assertThat((boolean) isActive.invokeExact(125, 0, 129)).isFalse();
            assertThatThrownBy(() -> { float v = (float) get.invokeExact(0, 2048, 0); })
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("field=phi: axis j index=2048 is outside [0, 2048)");
        }
    }

    @Test
    void disassemblyIsReadable() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(L1))) {
            String text = rt.generatedCode().getFirst().disassembly();
            assertThat(text).contains("get_phi(III)F", "set_phi(IIIF)V", "add_phi(IIIF)F", "isActive_s2_pointer",
                    "deactivateAll_s1_pointer", "// parameter  i", "// parameter  value");
        }
    }

    @Test
    void powerOfTwoSplitsAreShiftsAndMasksWithThePlansConstants() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(L1))) {
            String getter = method(rt.generatedCode().getFirst().disassembly(), "get_phi");
            // Outer pointer: (i >>> 7) * 256 + (j >>> 7) * 16 + (k >>> 7); no mask (outermost level).
            assertThat(squeeze(getter)).contains("ILOAD 0 BIPUSH 7 IUSHR I2L BIPUSH 8 LSHL ILOAD 1 BIPUSH 7 IUSHR I2L"
                    + " ICONST_4 LSHL LADD ILOAD 2 BIPUSH 7 IUSHR I2L LADD");
            // Inner pointer: ((i >>> 3) & 15) * 256 + ...
            assertThat(squeeze(getter)).contains("ILOAD 0 ICONST_3 IUSHR BIPUSH 15 IAND I2L BIPUSH 8 LSHL");
            // Leaf: (i & 7) * 64 + (j & 7) * 8 + (k & 7), cell of 4 bytes.
            assertThat(squeeze(getter)).contains("ILOAD 0 BIPUSH 7 IAND I2L BIPUSH 6 LSHL");
            assertThat(getter).doesNotContain("IDIV", "IREM", "LDIV", "LMUL");
        }
    }

    @Test
    void otherSizesDivideByThePlansConstants() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(i,5).dense(i,3).place(f64 x)"))) {
            String getter = squeeze(method(rt.generatedCode().getFirst().disassembly(), "get_x"));
            assertThat(getter).contains("ILOAD 0 ICONST_3 IDIV I2L");      // outer: i / 3
            // leaf: index = i % 3; offset += index * 8 bytes, in the locals named index and offset
            int i = local(getter, "i", "I");
            int index = local(getter, "index", "J");
            int offset = local(getter, "offset", "J");
            assertThat(getter).contains("ILOAD " + i + " ICONST_3 IREM I2L LSTORE " + index + " LLOAD " + offset
                    + " LLOAD " + index + " ICONST_3 LSHL LADD");
        }
    }

    @Test
    void theListingNamesLocalsAndMarksWherePathLevelsStart() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(L1))) {
            String getter = method(rt.generatedCode().getFirst().disassembly(), "get_phi");
            assertThat(getter).contains("LOCALVARIABLE i I", "LOCALVARIABLE j I", "LOCALVARIABLE k I",
                    "LOCALVARIABLE segment Ljava/lang/foreign/MemorySegment;", "LOCALVARIABLE offset J",
                    "LOCALVARIABLE word J", "LOCALVARIABLE index J");
            // One line-number entry per level of the path: pointer, pointer, dense.
            assertThat(getter.lines().map(String::strip).filter(line -> line.startsWith("LINENUMBER"))
                    .map(line -> line.split(" ")[1]).toList()).containsExactly("1", "2", "3");
        }
    }

    /** The slot of the local {@code name} of {@code descriptor}, from the method's local-variable table. */
    private static int local(String method, String name, String descriptor) {
        Matcher entry = Pattern.compile("LOCALVARIABLE " + Pattern.quote(name) + " " + Pattern.quote(descriptor)
                + " L\\d+ L\\d+ (\\d+)").matcher(method);
        assertThat(entry.find()).as("local " + name + " in\n" + method).isTrue();
        return Integer.parseInt(entry.group(1));
    }

    private static String method(String disassembly, String name) {
        int start = disassembly.indexOf(" " + name + "(");
        int end = disassembly.indexOf("MAXLOCALS", start);
        return disassembly.substring(start, end);
    }

    private static String squeeze(String text) {
        return text.lines().map(String::strip).filter(line -> !line.matches("L\\d+"))
                .filter(line -> !line.startsWith("FRAME") && !line.startsWith("LINENUMBER"))
                .reduce((a, b) -> a + " " + b).orElse("");
    }
}
