package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel3;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every generated class goes through the one define path: it is listed in
 * {@link SNodeRuntime#generatedCode()} (the bound interface included), and its listing names
 * the locals of every method.
 */
class DefinePathTest {
    static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";

    @Test
    void aBoundInterfaceIsListedWithTheOtherGeneratedClasses() {
        try (SNodeRuntime rt = SNodeRuntime.compile(InterfaceBindingTest.LAYOUT)) {
            InterfaceBindingTest.Grid grid = rt.bind(InterfaceBindingTest.Grid.class);
            grid.phi(1, 2, 3, 4f);
            List<GeneratedClass> bound = rt.generatedCode().stream().filter(c -> c.name().matches(".*/Bound\\d+_Grid"))
                    .toList();
            assertThat(bound).hasSize(1);
            assertThat(bound.getFirst().disassembly()).contains("INVOKEDYNAMIC phi(IIIF)V",
                    InterfaceBindingTest.Grid.class.getName().replace('.', '/'));
        }
    }

    /** Another interface called Grid, as a second library's might be. */
    public interface Grid {
        float phi(int i, int j, int k);
    }

    @Test
    void interfacesOfTheSameSimpleNameGetClassesOfDifferentNames() {
        try (SNodeRuntime rt = SNodeRuntime.compile(InterfaceBindingTest.LAYOUT)) {
            rt.bind(InterfaceBindingTest.Grid.class).phi(1, 2, 3, 4f);
            assertThat(rt.bind(Grid.class).phi(1, 2, 3)).isEqualTo(4f);
            List<String> names = rt.generatedCode().stream().map(GeneratedClass::fileName).toList();
            assertThat(names).doesNotHaveDuplicates();
            assertThat(names.stream().filter(n -> n.matches("Bound\\d+_Grid\\.class"))).hasSize(2);
        }
    }

    /**
     * Now that bound interfaces are listed, a program that binds in a loop must not define (and
     * keep) one class per call: the implementation of an interface is made once per runtime.
     */
    @Test
    void bindingAnInterfaceAgainDefinesNoNewClass() {
        try (SNodeRuntime rt = SNodeRuntime.compile(InterfaceBindingTest.LAYOUT)) {
            InterfaceBindingTest.Grid first = rt.bind(InterfaceBindingTest.Grid.class);
            int listed = rt.generatedCode().size();
            for (int n = 0; n < 100; n++) {
                rt.bind(InterfaceBindingTest.Grid.class).phi(1, 2, 3, n);
            }
            assertThat(rt.generatedCode()).hasSize(listed);
            assertThat(first.phi(1, 2, 3)).isEqualTo(99f);
        }
    }

    @Test
    void walksAndDriversNameTheirLocals() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(L1))) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            rt.forEach("phi", (Kernel3) (i, j, k) -> { });
            String walk = listing(rt, "Walk");
            assertThat(walk).contains("LOCALVARIABLE segment Ljava/lang/foreign/MemorySegment;",
                    "LOCALVARIABLE cell J", "LOCALVARIABLE count I", "LOCALVARIABLE container J",
                    "LOCALVARIABLE child J", "LOCALVARIABLE byCell [I");
            assertThat(walk).contains("LINENUMBER 1", "LINENUMBER 2");
            String driver = listing(rt, "Driver");
            assertThat(driver).contains("LOCALVARIABLE kernel Lio/snode/codegen/kernel/Kernel3;",
                    "LOCALVARIABLE bases [I", "LOCALVARIABLE block I", "LOCALVARIABLE index J");
            String layout = rt.generatedCode().getFirst().disassembly();
            assertThat(layout).contains("LOCALVARIABLE data Ljava/util/List;"); // <clinit>
        }
    }

    private static String listing(SNodeRuntime rt, String kind) {
        return rt.generatedCode().stream().filter(c -> c.name().contains(kind)).findFirst().orElseThrow()
                .disassembly();
    }
}
