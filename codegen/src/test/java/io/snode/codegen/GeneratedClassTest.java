package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GeneratedClass is a value: equal by content (its bytes included), printed without an array's identity, checked when made. */
class GeneratedClassTest {
    @Test
    void equalContentIsEqualAndPrintsTheByteCount() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(i,4).dense(i,8).place(f32 x)"))) {
            GeneratedClass g = rt.generatedCode().getFirst();
            GeneratedClass copy = new GeneratedClass(g.name(), g.bytes(), g.plan(), g.source(), g.constants());
            assertThat(copy).isEqualTo(g).hasSameHashCodeAs(g);
            assertThat(g.toString()).contains(g.name(), g.bytes().length + " bytes").doesNotContain("[B@");
        }
    }

    @Test
    void badContentIsRefusedByName() {
        assertThatThrownBy(() -> new GeneratedClass(null, new byte[0], "", "", List.of()))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> new GeneratedClass("x", new byte[0], "", "", null))
                .isInstanceOf(NullPointerException.class).hasMessage("constants");
        assertThatThrownBy(() -> new GeneratedClass("x", new byte[] {1, 2, 3}, "p"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a class file");
    }
}
