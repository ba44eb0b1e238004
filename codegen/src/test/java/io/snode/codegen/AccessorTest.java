package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.api.SNode;
import org.junit.jupiter.api.Test;

class AccessorTest {
    static final Layout L1 = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }

    @Test
    void coherentAccessesAgreeWithTheGenericPath() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L1)) {
            Phi phi = rt.accessor(Phi.class);
            for (int i = 0; i < 40; i++) {
                for (int k = 0; k < 40; k++) {
                    phi.phi(1000 + i, 7, 1000 + k, i * 100 + k);
                }
            }
            for (int i = 0; i < 40; i++) {
                for (int k = 0; k < 40; k++) {
                    assertThat(rt.generic().getFloat("phi", 1000 + i, 7, 1000 + k)).isEqualTo(i * 100 + k);
                    assertThat(phi.phi(1000 + i, 7, 1000 + k)).isEqualTo(i * 100 + k);
                }
            }
            assertThat(phi.addPhi(1000, 7, 1000, 0.5f)).isZero();
            assertThat(phi.phi(1000, 7, 1000)).isEqualTo(0.5f);
            assertThat(phi.phi(5, 5, 5)).isZero();
        }
    }

    @Test
    void aRememberedBlockIsDroppedWhenItIsDeactivatedCollectedAndReused() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L1)) {
            Phi phi = rt.accessor(Phi.class);
            SNode block = L1.snode(2);
            phi.phi(8, 8, 8, 1f);
            assertThat(phi.phi(8, 8, 9)).isZero();   // remembers the block of (8, 8, 8)
            assertThat(rt.generic().deactivate(block, 1, 1, 1)).isTrue();
            rt.gc();
            // Reuse: enough new blocks that every free cell, the recycled one included, is handed out.
            long allocated = rt.memoryStats().of(block).cells().cellsAllocated();
            for (int b = 0; b < allocated + 1; b++) {
                rt.generic().setFloat("phi", 7f + b, 800 + 8 * b, 800, 809);
            }
            assertThat(rt.memoryStats().of(block).cells().cellsFree()).isLessThan(allocated);
            assertThat(phi.phi(8, 8, 9)).isZero();
            assertThat(phi.phi(800, 800, 809)).isEqualTo(7f);
            assertThat(phi.phi(8, 8, 8)).isZero();
            phi.phi(8, 8, 8, 2f);
            assertThat(rt.generic().getFloat("phi", 8, 8, 8)).isEqualTo(2f);
            assertThat(rt.generic().getFloat("phi", 800, 800, 809)).isEqualTo(7f);
        }
    }

    @Test
    void withoutRegionsTheAccessorKeepsTheCachedSegmentInAField() {
        RuntimeOptions chunks = RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(L1, chunks)) {
            Phi phi = rt.accessor(Phi.class);
            phi.phi(1, 2, 3, 4f);
            phi.phi(1, 2, 4, 5f);
            phi.phi(900, 2, 4, 6f);
            assertThat(phi.phi(1, 2, 3)).isEqualTo(4f);
            assertThat(phi.phi(1, 2, 4)).isEqualTo(5f);
            assertThat(phi.phi(900, 2, 4)).isEqualTo(6f);
            assertThat(rt.generatedCode().get(1).disassembly()).contains("phi$segment").doesNotContain("REGION_");
        }
    }

    @Test
    void accessorsAreIndependentAndShowUpInTheGeneratedCode() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L1)) {
            Phi first = rt.accessor(Phi.class);
            Phi second = rt.accessor(Phi.class);
            assertThat(first).isNotSameAs(second);
            first.phi(1, 2, 3, 4f);
            assertThat(second.phi(1, 2, 3)).isEqualTo(4f);
            assertThat(rt.generatedCode()).hasSize(2);
            // The cached cell's segment is the region of its level (the tests run with native
            // access); without regions it would be a field, phi$segment.
            assertThat(rt.generatedCode().get(1).disassembly()).contains("phi$epoch", "phi$offset", "REGION_2",
                    "implements").doesNotContain("phi$segment");
            // The three block keys (i, j, k divided by 8: 8 bits each) share one int.
            assertThat(rt.generatedCode().get(1).disassembly()).contains("I phi$key").doesNotContain("phi$key0");
        }
    }

    /**
     * Where the block keys need more than 31 bits together (a hash node's index space of 2^23
     * per axis: 20 bits per key), each has a field of its own; blocks whose keys differ in the
     * high bits alone are still told apart.
     */
    @Test
    void keysTooWideForOneIntKeepAFieldEach() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)"))) {
            Phi cached = rt.accessor(Phi.class);
            assertThat(rt.generatedCode().get(1).disassembly()).contains("I phi$key0", "I phi$key2");
            int far = 1 << 22;
            cached.phi(3, 4, 5, 1f);
            cached.phi(far + 3, 4, 5, 2f);
            cached.phi(3, far + 4, 5, 3f);
            cached.phi(3, 4, far + 5, 4f);
            assertThat(cached.phi(3, 4, 5)).isEqualTo(1f);
            assertThat(cached.phi(far + 3, 4, 5)).isEqualTo(2f);
            assertThat(cached.phi(3, far + 4, 5)).isEqualTo(3f);
            assertThat(cached.phi(3, 4, far + 5)).isEqualTo(4f);
            assertThat(rt.generic().getFloat("phi", far + 3, 4, 5)).isEqualTo(2f);
        }
    }

    /** Packed keys: blocks that differ on one axis only, in each key's highest bit, are different blocks. */
    @Test
    void packedKeysTellBlocksApartOnEveryAxis() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)"))) {
            Phi cached = rt.accessor(Phi.class);
            int high = 1024; // block key 128: the highest of the 8 bits per key
            float v = 1;
            for (int[] at : new int[][] {{0, 0, 0}, {high, 0, 0}, {0, high, 0}, {0, 0, high}, {high, high, high}}) {
                cached.phi(at[0], at[1], at[2], v++);
            }
            v = 1;
            for (int[] at : new int[][] {{0, 0, 0}, {high, 0, 0}, {0, high, 0}, {0, 0, high}, {high, high, high}}) {
                assertThat(cached.phi(at[0], at[1], at[2])).isEqualTo(v);
                assertThat(rt.generic().getFloat("phi", at[0], at[1], at[2])).isEqualTo(v++);
            }
        }
    }
}
