package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import org.junit.jupiter.api.Test;

/**
 * A generated write whose cell may be inactive calls the runtime's activation in a private method
 * of the SNode and the store's kind ({@code activate<id>$set_f32}, {@code activate<id>$add_f32})
 * and returns what it returns: the write's own method holds no call to the runtime's activation,
 * and both ways (a cell found active, a cell the activation method activates) store the value,
 * for a store and an atomic add, through the layout's methods and through a caching accessor.
 */
class OutlinedActivationTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }

    private static final Layout L2 = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");

    @Test
    void theLayoutsWritesCallTheirActivationMethod() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(code).contains("private static activate3$set_f32(IIIJF)V", "private static activate3$add_f32(IIIJF)F");
            String setter = method(code, "public static set_phi(IIIF)V");
            assertThat(setter).as("the setter's own body calls no runtime activation")
                    .doesNotContain("GeneratedCalls.activate (").contains(".activate3$set_f32 (IIIJF)V");
            assertThat(method(code, "public static add_phi(IIIF)F")).doesNotContain("GeneratedCalls.activate (")
                    .contains(".activate3$add_f32 (IIIJF)F");
            assertThat(method(code, "private static activate3$set_f32(IIIJF)V")).contains("GeneratedCalls.activate (");
        }
    }

    @Test
    void writesStoreWhetherTheyFindTheCellActiveOrActivateIt() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            for (Phi phi : new Phi[] {bound, cached}) {
                int i = phi == bound ? 100 : 1500;
                phi.phi(i, 7, 9, 2f); // new blocks: the outlined activation
                phi.phi(i, 7, 10, 3f); // same block, a new voxel: activated in place
                phi.phi(i, 7, 9, 4f); // active: the walk's own store
                assertThat(phi.addPhi(i, 900, 9, 1.5f)).as("a new cell's previous value").isZero();
                assertThat(phi.addPhi(i, 900, 9, 1.5f)).isEqualTo(1.5f);
                assertThat(phi.phi(i, 7, 9)).isEqualTo(4f);
                assertThat(phi.phi(i, 7, 10)).isEqualTo(3f);
                assertThat(phi.phi(i, 900, 9)).isEqualTo(3f);
                assertThat(rt.generic().isActive(L2.snode(3), i, 900, 9)).isTrue();
            }
            String accessor = rt.generatedCode().stream().map(GeneratedClass::disassembly)
                    .filter(text -> text.contains("phi$epoch")).findFirst().orElseThrow();
            assertThat(accessor).contains("private static activate3$set_f32(IIIJF)V", "private static activate3$add_f32(IIIJF)F");
        }
    }

}
