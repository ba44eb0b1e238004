package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.internal.LayoutEmitter;
import io.snode.codegen.kernel.Kernel1;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
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

    /**
     * A field name as long as compile accepts serves every way in: the accessor's and the view's
     * members derived from it ({@code NAME$chunkSegment}, for cells in chunks) fit a class file
     * too. The interface, whose one method bears that name, is made with ASM.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aFieldNameOfTheLongestLengthAcceptedServesAccessorsAndViews() throws Throwable {
        String name = "z".repeat(LayoutEmitter.MAX_FIELD_NAME);
        for (String text : java.util.List.of("pointer(i,4).dynamic(l,8,2).place(i32 " + name + ")",
                "dense(i,4).place(i32 " + name + ")", "pointer(i,4).bitmasked(i,2).place(i32 " + name + ")")) {
            for (RuntimeOptions options : java.util.List.of(RuntimeOptions.DEFAULT,
                    RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk()))) {
                try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(text), options)) {
                    int dims = rt.layout().field(name).dimensionality();
                    Class<?> api = longNameInterface(name, dims);
                    Object accessor = rt.accessor(api);
                    Object bound = rt.bind(api);
                    java.lang.reflect.Method read = api.getMethod(name, dims == 2 ? new Class<?>[] {int.class, int.class}
                            : new Class<?>[] {int.class});
                    Object[] at = dims == 2 ? new Object[] {1, 0} : new Object[] {1};
                    assertThat(read.invoke(accessor, at)).as(text).isEqualTo(0);
                    assertThat(read.invoke(bound, at)).as(text).isEqualTo(0);
                    rt.forEach(rt.layout().field(name).snode(), (Class<Object>) api,
                            ViewKernelProperties.kernel(dims, (view, where) -> { }));
                }
            }
        }
        assertThatThrownBy(() -> SNodeRuntime.compile(Layout.parse("dense(i,2).place(f32 " + name + "z)")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + LayoutEmitter.MAX_FIELD_NAME);
    }

    private static final java.util.Map<Integer, Class<?>> LONG_NAME_APIS = new java.util.HashMap<>();

    /** {@code public interface LongNameApi<dims> { int NAME(int i...); }} in this package, defined once. */
    private static Class<?> longNameInterface(String name, int dims) throws IllegalAccessException {
        Class<?> defined = LONG_NAME_APIS.get(dims);
        if (defined != null) {
            return defined;
        }
        org.objectweb.asm.ClassWriter writer = new org.objectweb.asm.ClassWriter(0);
        writer.visit(Opcodes.V21, Opcodes.ACC_PUBLIC | Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT,
                "io/snode/codegen/LongNameApi" + dims, null, "java/lang/Object", null);
        writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_ABSTRACT, name, "(" + "I".repeat(dims) + ")I", null, null)
                .visitEnd();
        writer.visitEnd();
        defined = java.lang.invoke.MethodHandles.lookup().defineClass(writer.toByteArray());
        LONG_NAME_APIS.put(dims, defined);
        return defined;
    }

    @Test
    void aFieldNameTooLongForAMethodNameIsRejectedWithTheLimit() {
        Layout layout = Layout.parse("dense(i,2).place(f32 " + "y".repeat(70_000) + ")");
        assertThatThrownBy(() -> SNodeRuntime.compile(layout)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("70000 characters").hasMessageContaining("at most " + LayoutEmitter.MAX_FIELD_NAME);
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
