package io.snode.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Bad arguments of this module's public methods: each is refused up front with a message that
 * names it (a null field name gave "field=null is not in the layout", a bad axis index the
 * JDK's message-less ArrayIndexOutOfBoundsException).
 */
class ArgumentChecksTest {
    static final Layout L = Layout.parse("pointer(ijk,4).dense(ijk,8).place(f32 phi)");

    @Test
    void aNullFieldNameIsNamed() {
        assertThatThrownBy(() -> L.field(null)).isInstanceOf(NullPointerException.class).hasMessage("name");
    }

    @Test
    void anAxisIndexOutsideTheAxesNamesItAndTheRange() {
        assertThatThrownBy(() -> Axes.IJK.get(-1)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("index=-1 is not in [0, 3) (axes ijk)");
        assertThatThrownBy(() -> Axes.IJK.get(3)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("index=3 is not in [0, 3) (axes ijk)");
        assertThatThrownBy(() -> Axes.I.get(1)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("index=1 is not in [0, 1) (axes i)");
    }
}
