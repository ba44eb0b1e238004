package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.lang.invoke.MethodHandle;
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
            // leaf: offset += (i % 3) * 8 bytes
            assertThat(getter).contains("ILOAD 0 ICONST_3 IREM I2L LSTORE 6 LLOAD 2 LLOAD 6 ICONST_3 LSHL LADD");
        }
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
