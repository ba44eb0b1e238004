package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel1;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Layouts whose text passes the class file's 64 KiB limit on one string compile: the source
 * attribute of the generated classes holds a shortened text, the full one stays with the
 * {@link GeneratedClass}.
 */
class LargeLayoutTest {

    @Test
    void aLayoutOfSevenThousandFieldsCompiles() {
        StringJoiner fields = new StringJoiner(", ", "pointer(i,4).dense(i,2).place(", ")");
        for (int n = 0; n < 7_000; n++) {
            fields.add("f32 field" + n);
        }
        Layout layout = Layout.parse(fields.toString());
        assertThat(layout.toString().length()).isGreaterThan(65_535);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("field6999", 2.5f, 5);
            assertThat((float) rt.getter("field6999").invoke(5)).isEqualTo(2.5f);
            assertThat(rt.sum("field6999")).isEqualTo(2.5);
            AtomicLong visits = new AtomicLong();
            rt.forEach("field0", (Kernel1) i -> visits.incrementAndGet());
            assertThat(visits.get()).isEqualTo(2);
            GeneratedClass code = rt.generatedCode().get(0);
            assertThat(sourceAttribute(code).length()).isLessThan(1_000);
            assertThat(code.source()).isEqualTo("layout: " + layout);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLayoutWithOneVeryLongFieldNameCompiles() throws Throwable {
        String name = "x".repeat(65_520);
        Layout layout = Layout.parse("pointer(i,4).dense(i,2).place(f32 " + name + ", i32 y)");
        assertThat(layout.toString().length()).isGreaterThan(65_535);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.setter(name).invoke(3, 1.5f);
            assertThat(rt.generic().getFloat(name, 3)).isEqualTo(1.5f);
            assertThat(rt.count(name)).isEqualTo(2);
            assertThat(sourceAttribute(rt.generatedCode().get(0))).startsWith("layout: pointer(i,4)");
        }
    }

    @Test
    void aFieldNameTooLongForAMethodNameIsRejectedWithTheLimit() {
        Layout layout = Layout.parse("dense(i,2).place(f32 " + "y".repeat(70_000) + ")");
        assertThatThrownBy(() -> SNodeRuntime.compile(layout)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("70000 characters").hasMessageContaining("at most 65528");
    }

    private static String sourceAttribute(GeneratedClass code) {
        String[] source = {null};
        new ClassReader(code.bytes()).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visitSource(String file, String debug) {
                source[0] = file;
            }
        }, ClassReader.SKIP_CODE);
        return source[0];
    }
}
