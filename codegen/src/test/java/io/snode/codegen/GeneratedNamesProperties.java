package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Every method of a generated layout class has a name of its own, so that a handle by name
 * ({@link SNodeRuntime#handle}) is the one method: also where fields are named as SNodes are in
 * method names ({@code s2_dynamic}), which a per-field method ({@code append_s2_dynamic}) and a
 * per-node one would otherwise share.
 */
class GeneratedNamesProperties {
    private static final Pattern FIELD = Pattern.compile("\\b(f32|f64|i32|i64) (\\w+)");

    public interface ListApi {
        long appendS2_dynamic(int i, int value);

        int s2_dynamic(int i, int l);
    }

    @Example
    void aFieldNamedAsItsDynamicNodeKeepsItsAppend() throws Throwable {
        Layout layout = Layout.parse("dense(i,4).dynamic(l,16).place(i32 s2_dynamic)");
        SNode list = layout.snode(2);
        assertThat(list.kind()).isEqualTo(NodeKind.DYNAMIC);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            assertThat(rt.appender("s2_dynamic").type()).isEqualTo(MethodType.methodType(long.class, int.class, int.class));
            assertThat(rt.nodeHandle("appendZero", list).type()).isEqualTo(MethodType.methodType(long.class, int.class));
            assertThat((long) rt.appender("s2_dynamic").invoke(1, 42)).isZero();
            assertThat((long) rt.nodeHandle("appendZero", list).invoke(1)).isEqualTo(1);
            ListApi api = rt.bind(ListApi.class);
            assertThat(api.appendS2_dynamic(3, 5)).isZero();
            assertThat(rt.accessor(ListApi.class).appendS2_dynamic(3, 7)).isEqualTo(1);
            assertThat(api.s2_dynamic(1, 0)).isEqualTo(42);
            assertThat(api.s2_dynamic(1, 1)).isZero();
            assertThat(api.s2_dynamic(3, 1)).isEqualTo(7);
            assertThat((long) rt.nodeHandle("length", list).invoke(3)).isEqualTo(2);
            assertThatThrownBy(() -> rt.nodeHandle("append", list)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("operation=append is none of").hasMessageContaining("appendZero");
        }
    }

    @Property(tries = 40)
    void everyGeneratedMethodOfALayoutHasANameOfItsOwn(@ForAll("layouts") Layout random) throws Throwable {
        Layout layout = Layout.parse(renamed(random));
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            List<String> names = methodNames(rt.generatedCode().getFirst().bytes());
            assertThat(names).as(layout.toString()).doesNotHaveDuplicates();
            for (PlacedField field : layout.fields()) {
                MethodType read = rt.getter(field.name()).type();
                assertThat(read.returnType()).isEqualTo(field.type().javaType());
                assertThat(read.parameterCount()).isEqualTo(field.dimensionality());
                if (field.snode().kind() == NodeKind.DYNAMIC) {
                    MethodType append = rt.appender(field.name()).type();
                    assertThat(append.parameterCount()).isEqualTo(field.snode().parent().indexAxes().size() + 1);
                    assertThat(append.lastParameterType()).isEqualTo(field.type().javaType());
                }
            }
            for (SNode node : layout.snodes()) {
                if (node.kind() == NodeKind.DYNAMIC) {
                    assertThat(rt.nodeHandle("appendZero", node).type().parameterCount())
                            .isEqualTo(node.parent().indexAxes().size());
                }
            }
        }
    }

    /**
     * {@code random}'s text with its fields named as SNodes are in method names: a field of a
     * dynamic node as its node ({@code s<id>_dynamic}, the name its append would share with the
     * node's), the others as the layout's other SNodes, then as SNodes it has not.
     */
    private static String renamed(Layout random) {
        List<String> free = new ArrayList<>();
        for (SNode node : random.snodes()) {
            free.add("s" + node.id() + "_" + node.kind().text());
        }
        List<String> names = new ArrayList<>();
        for (PlacedField field : random.fields()) {
            String own = "s" + field.snode().id() + "_" + field.snode().kind().text();
            String name = field.snode().kind() == NodeKind.DYNAMIC && free.remove(own) ? own
                    : free.isEmpty() ? "s" + (random.snodes().size() + names.size()) + "_dynamic" : free.removeFirst();
            names.add(name);
        }
        Matcher matcher = FIELD.matcher(random.toString());
        StringBuilder text = new StringBuilder();
        int n = 0;
        while (matcher.find()) {
            // The text lists the fields in the order of fields().
            assertThat(matcher.group(1)).isEqualTo(random.fields().get(n).type().text());
            matcher.appendReplacement(text, matcher.group(1) + " " + names.get(n));
            n++;
        }
        matcher.appendTail(text);
        return text.toString();
    }

    private static List<String> methodNames(byte[] classFile) {
        List<String> names = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                names.add(name);
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return names;
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(StructForProperties.SMALL);
    }
}
