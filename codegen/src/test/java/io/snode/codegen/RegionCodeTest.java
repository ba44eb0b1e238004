package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import org.junit.jupiter.api.Test;

/**
 * Where the node managers keep their cells in reserved regions (the tests run with native
 * access), generated code takes each region as a constant and finds a child at
 * {@code cellIndex(word) * stride}, with no chunk lookup; reads and writes through it agree with
 * the generic runtime.
 */
class RegionCodeTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    @Test
    void generatedWalksUseTheRegionsAsConstants() {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = rt.bind(Phi.class);
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(code).contains("REGION_1 : Ljava/lang/foreign/MemorySegment;", "REGION_2 : Ljava/lang/foreign/MemorySegment;")
                    .contains("GeneratedCalls.regionOffset", "GeneratedCalls.regionOrZeroCell")
                    .as("a read of an inactive pointer selects an offset in the region, never another segment")
                    .contains("ZERO_CELL_1 = ", "ZERO_CELL_2 = ")
                    .doesNotContain("GeneratedCalls.child (", "GeneratedCalls.childOrAmbient (", "AMBIENT_1", "AMBIENT_2");
            phi.phi(1000, 5, 2047, 3f);
            phi.phi(0, 0, 0, 4f);
            assertThat(phi.phi(1000, 5, 2047)).isEqualTo(3f);
            assertThat(rt.generic().getFloat("phi", 1000, 5, 2047)).isEqualTo(3f);
            assertThat(phi.phi(0, 0, 0)).isEqualTo(4f);
            assertThat(phi.phi(1000, 6, 2047)).isZero();
            assertThat(phi.phi(2047, 2047, 2047)).as("an inactive pointer reads the ambient cell").isZero();
        }
    }
}
