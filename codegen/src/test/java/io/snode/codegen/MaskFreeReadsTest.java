package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import org.junit.jupiter.api.Test;

/**
 * Generated reads of a field on a bitmasked SNode load the value without testing the cell's mask
 * bit: an inactive cell's bytes are zero (containers start zeroed, a deactivation zeroes the cell
 * after clearing its bit, and every write sets the bit before it stores). These tests hold the
 * generated code to that and check the promise behind it: a cell reads zero through the bound
 * interface and a caching accessor whenever the generic runtime says it is inactive, after each
 * way of deactivating it and after its container's memory was collected and handed out again.
 * (Threads reading beside writers and collections: {@link ZeroCellReadsTest}.)
 */
class MaskFreeReadsTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    private static final Layout L2 = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");


    @Test
    void aReadLoadsTheValueWithoutTheMaskBitsTestWhileWritesAndActivityTestsKeepIt() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            rt.bind(Phi.class);
            rt.accessor(Phi.class);
            String layoutClass = rt.generatedCode().getFirst().disassembly();
            assertThat(method(layoutClass, "get_phi(III)F")).doesNotContain("GeneratedCalls.maskBit");
            assertThat(method(layoutClass, "set_phi(IIIF)V")).contains("GeneratedCalls.activateBit"); // tests, then ORs
            assertThat(method(layoutClass, "isActive_s3_bitmasked(III)Z")).contains("GeneratedCalls.maskBit");
            String accessor = rt.generatedCode().getLast().disassembly();
            assertThat(method(accessor, "phi(III)F")).as("the accessor's read below its cached block")
                    .doesNotContain("GeneratedCalls.maskBit");
        }
    }

    @Test
    void aCellReadsZeroThroughGeneratedReadsWheneverTheRuntimeSaysItIsInactive() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            SNode voxels = L2.snode(3);
            SNode blocks = L2.snode(2);
            // Two blocks of 8^3, every voxel written.
            for (int i = 0; i < 16; i++) {
                for (int j = 0; j < 8; j++) {
                    for (int k = 0; k < 8; k++) {
                        bound.phi(i, j, k, value(i, j, k));
                    }
                }
            }
            assertAgree(rt, bound, cached, voxels);

            // One voxel at a time, a box of voxels, then a whole block through its pointer.
            assertThat(rt.deactivate(voxels, 3, 4, 5)).isTrue();
            assertThat(rt.deactivateBox(voxels, new int[] {0, 0, 0}, new int[] {2, 8, 8})).isEqualTo(128);
            assertThat(bound.phi(3, 4, 5)).isZero();
            assertThat(cached.phi(3, 4, 5)).isZero();
            assertAgree(rt, bound, cached, voxels);
            assertThat(rt.deactivate(blocks, 1, 0, 0)).as("the block of voxels (8..16, 0..8, 0..8)").isTrue();
            rt.gc();
            assertAgree(rt, bound, cached, voxels);

            // The collected block's memory is handed out again to a new block, half of it written:
            // the other half reads zero, as does everything of the block deactivated above.
            for (int i = 200; i < 208; i++) {
                for (int j = 0; j < 8; j++) {
                    for (int k = 0; k < 4; k++) {
                        bound.phi(i, j, k, value(i, j, k));
                    }
                }
            }
            assertThat(bound.phi(200, 0, 5)).isZero();
            assertThat(cached.phi(207, 7, 7)).isZero();
            assertThat(bound.phi(207, 7, 3)).isEqualTo(value(207, 7, 3));
            assertAgree(rt, bound, cached, voxels);

            rt.deactivateAll(voxels);
            assertAgree(rt, bound, cached, voxels);
            assertThat(bound.phi(4, 4, 4)).isZero();
            assertThat(cached.phi(204, 4, 2)).isZero();
        }
    }

    private static float value(int i, int j, int k) {
        return 1 + i * 65536f + j * 256f + k;
    }

    /** Every voxel of the blocks written above reads what the runtime says: zero when inactive. */
    private static void assertAgree(SNodeRuntime rt, Phi bound, Phi cached, SNode voxels) {
        int[][] ranges = {{0, 16}, {200, 208}};
        for (int[] range : ranges) {
            for (int i = range[0]; i < range[1]; i++) {
                for (int j = 0; j < 8; j++) {
                    for (int k = 0; k < 8; k++) {
                        boolean active = rt.generic().isActive(voxels, i, j, k);
                        float expected = active ? rt.generic().getFloat("phi", i, j, k) : 0f;
                        assertThat(bound.phi(i, j, k)).as("bound (%d, %d, %d), active=%s", i, j, k, active)
                                .isEqualTo(expected);
                        assertThat(cached.phi(i, j, k)).as("accessor (%d, %d, %d), active=%s", i, j, k, active)
                                .isEqualTo(expected);
                        if (!active) {
                            assertThat(rt.generic().getFloat("phi", i, j, k)).isZero();
                        }
                    }
                }
            }
        }
    }
}
