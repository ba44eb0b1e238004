package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Generated methods check their coordinates before anything else. Where every extent is a power
 * of two, one test covers all axes and a method of the SNode names the first coordinate outside;
 * elsewhere each axis has its test. Either way the exception is the same: the first axis whose
 * coordinate lies outside {@code [0, extent)}, through the layout's methods, bound interfaces and
 * caching accessors alike, and nothing is written.
 */
class GeneratedBoundsChecksTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    public interface X {
        float x(int i, int j);

        void x(int i, int j, float value);
    }

    private static final int[] EDGES = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE};

    @Test
    void equalPowerOfTwoExtentsAreCheckedWithOneTest() throws Throwable {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            String getter = method(rt.generatedCode().getFirst().disassembly(), "get_phi(III)F");
            assertThat(getter).contains("SIPUSH -2048", "outside3 (Ljava/lang/String;III)")
                    .doesNotContain("Integer.compareUnsigned");
            char[] axes = {'i', 'j', 'k'};
            for (int axis = 0; axis < 3; axis++) {
                for (int bad : new int[] {2048, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 4096}) {
                    int[] c = {2047, 0, 5};
                    c[axis] = bad;
                    String message = "field=phi: axis " + axes[axis] + " index=" + bad + " is outside [0, 2048)";
                    assertThatThrownBy(() -> bound.phi(c[0], c[1], c[2], 1f)).hasMessage(message)
                            .isInstanceOf(IndexOutOfBoundsException.class);
                    assertThatThrownBy(() -> bound.phi(c[0], c[1], c[2])).hasMessage(message);
                    assertThatThrownBy(() -> cached.phi(c[0], c[1], c[2], 1f)).hasMessage(message);
                    assertThatThrownBy(() -> cached.phi(c[0], c[1], c[2])).hasMessage(message);
                }
            }
            // Two coordinates outside: the first one is named.
            assertThatThrownBy(() -> bound.phi(5, -3, 9999, 1f))
                    .hasMessage("field=phi: axis j index=-3 is outside [0, 2048)");
            SNode inner = layout.snode(2);
            MethodHandle isActive = rt.nodeHandle("isActive", inner);
            // A node method takes the SNode's own coordinates: 256 cells of 8 voxels per axis.
            assertThatThrownBy(() -> { boolean b = (boolean) isActive.invokeExact(0, 0, 256); })
                    .hasMessage("snode=" + inner.path() + ": axis k index=256 is outside [0, 256)");
            bound.phi(2047, 2047, 2047, 3f);
            assertThat(cached.phi(2047, 2047, 2047)).isEqualTo(3f);
            assertThat(rt.count("phi")).as("only the block of (2047, 2047, 2047) was activated").isEqualTo(512);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "dense(ij,[4,8]).bitmasked(ij,[2,4]).place(f32 x)", // 8 x 32: powers of two, not equal
            "dense(ij,[3,6]).bitmasked(ij,[2,2]).place(f32 x)", // 6 x 12: a test per axis
            "pointer(ij,[1,16]).dense(ij,[8,2]).place(f32 x)"}) // 8 x 32 through a pointer
    void everyAxisNamesItsOwnExtent(String text) {
        Layout layout = Layout.parse(text);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            X bound = rt.bind(X.class);
            X cached = rt.accessor(X.class);
            int[] extents = layout.field("x").snode().indexShape();
            char[] axes = {'i', 'j'};
            for (int axis = 0; axis < 2; axis++) {
                for (int bad : new int[] {extents[axis], extents[axis] + 1, EDGES[0], EDGES[1], EDGES[2]}) {
                    int[] c = {extents[0] - 1, extents[1] - 1};
                    c[axis] = bad;
                    String message = "field=x: axis " + axes[axis] + " index=" + bad + " is outside [0, "
                            + extents[axis] + ")";
                    assertThatThrownBy(() -> bound.x(c[0], c[1], 1f)).hasMessage(message)
                            .isInstanceOf(IndexOutOfBoundsException.class);
                    assertThatThrownBy(() -> bound.x(c[0], c[1])).hasMessage(message);
                    assertThatThrownBy(() -> cached.x(c[0], c[1], 1f)).hasMessage(message);
                    assertThatThrownBy(() -> cached.x(c[0], c[1])).hasMessage(message);
                }
            }
            assertThat(rt.count("x")).as("no refused write activated anything").isZero();
            for (int i = 0; i < extents[0]; i++) {
                for (int j = 0; j < extents[1]; j++) {
                    bound.x(i, j, i * 100 + j + 1);
                }
            }
            for (int i = 0; i < extents[0]; i++) {
                for (int j = 0; j < extents[1]; j++) {
                    assertThat(cached.x(i, j)).isEqualTo(i * 100 + j + 1);
                }
            }
        }
    }

}
