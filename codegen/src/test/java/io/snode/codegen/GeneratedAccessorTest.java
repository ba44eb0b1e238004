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
            System.out.println(text);
            assertThat(text).contains("get_phi(III)F", "set_phi(IIIF)V", "isActive_s2_pointer");
        }
    }
}
