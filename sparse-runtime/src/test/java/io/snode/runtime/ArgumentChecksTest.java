package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bad arguments of this module's public methods: each is refused up front with a message that
 * names it. Before, null lists and SNodes were accepted and failed later (or never), a null
 * mask array failed with the JVM's message, a null field name gave "field=null is not in the
 * layout" (an IllegalArgumentException), and a bad index into a plan the JDK's message-less
 * ArrayIndexOutOfBoundsException.
 */
class ArgumentChecksTest {
    static final Layout L = Layout.parse("pointer(ijk,4).dense(ijk,8).place(f32 phi); "
            + "pointer(i,4).dynamic(l,64,16).place(i32 particle)");

    @Test
    void nullsGivenToConstructorsAreNamed() {
        assertThatThrownBy(() -> new AxisSplit(null, 0, 1, 4, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("axis");
        SNodePlan node = Plan.of(L).node(1);
        assertThatThrownBy(() -> new PathStep(node, 0, null))
                .isInstanceOf(NullPointerException.class).hasMessage("splits");
        try (SparseRuntime rt = SparseRuntime.create(L)) {
            MemoryStats stats = rt.memoryStats();
            assertThatThrownBy(() -> new MemoryStats(null, List.of()))
                    .isInstanceOf(NullPointerException.class).hasMessage("pool");
            assertThatThrownBy(() -> new MemoryStats(stats.pool(), null))
                    .isInstanceOf(NullPointerException.class).hasMessage("snodes");
            MemoryStats.SNodeStats first = stats.snodes().getFirst();
            assertThatThrownBy(() -> new MemoryStats.SNodeStats(null, first.cells(), null))
                    .isInstanceOf(NullPointerException.class).hasMessage("snode");
            assertThatThrownBy(() -> new MemoryStats.SNodeStats(first.snode(), null, null, null))
                    .isInstanceOf(NullPointerException.class).hasMessage("cells");
        }
    }

    @Test
    void aNullMaskArrayIsNamed() {
        assertThatThrownBy(() -> BitmaskWords.set(null, 0, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("words");
        assertThatThrownBy(() -> BitmaskWords.isSet(null, 0, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("words");
    }

    @Test
    void nullFieldNamesAndListNodesAreNamed() {
        try (SparseRuntime rt = SparseRuntime.create(L)) {
            assertThatThrownBy(() -> rt.getFloat(null, 1, 2, 3)).isInstanceOf(NullPointerException.class).hasMessage("field");
            assertThatThrownBy(() -> rt.setFloat(null, 1f, 1, 2, 3)).isInstanceOf(NullPointerException.class).hasMessage("field");
            assertThatThrownBy(() -> rt.addDouble(null, 1, 1, 2, 3)).isInstanceOf(NullPointerException.class).hasMessage("field");
            assertThatThrownBy(() -> rt.appendInt(null, 1, 2)).isInstanceOf(NullPointerException.class).hasMessage("field");
            assertThatThrownBy(() -> rt.append(null, 2)).isInstanceOf(NullPointerException.class).hasMessage("dynamic");
            assertThatThrownBy(() -> rt.length(null, 2)).isInstanceOf(NullPointerException.class).hasMessage("dynamic");
            io.snode.api.SNode list = L.field("particle").snode();
            assertThatThrownBy(() -> rt.append(list, (int[]) null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("listCoordinates");
            assertThatThrownBy(() -> rt.length(list, (int[]) null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("listCoordinates");
        }
    }

    @Test
    void anIndexOutsideAPlanNamesItAndTheRange() {
        SNodePlan dense = Plan.of(L).node(2);
        assertThatThrownBy(() -> dense.stride(-1)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("axisIndex=-1 is not in [0, 3) (the axes of " + dense.snode().path() + ")");
        assertThatThrownBy(() -> dense.stride(3)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("axisIndex=3 is not in [0, 3) (the axes of " + dense.snode().path() + ")");
        assertThatThrownBy(() -> dense.fieldOffset(1)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("slot=1 is not in [0, 1) (the fields of " + dense.snode().path() + ")");
        assertThatThrownBy(() -> dense.childContainerOffset(0)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("index=0 is not in [0, 0) (the children of " + dense.snode().path() + ")");
    }

    /**
     * An SNode or field of another Layout object, equal or not, is refused with the way to the
     * runtime's own (audit g4: the message printed the same layout text twice and no hint;
     * Plan.node threw ArrayIndexOutOfBoundsException for an SNode of a larger layout).
     */
    @Test
    void anSNodeOrFieldOfAnotherLayoutObjectIsRefusedWithTheWayToTheRuntimesOwn() {
        String text = "pointer(i,4).bitmasked(i,4).place(f32 v)";
        try (SparseRuntime runtime = SparseRuntime.create(io.snode.api.Layout.parse(text))) {
            io.snode.api.Layout equal = io.snode.api.Layout.parse(text);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> runtime.isActive(equal.snode(2), 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("snode=root/pointer(i,4)/bitmasked(i,4) is not from this runtime's layout (an SNode of"
                            + " another Layout object; where the two layouts are equal, take the SNode from this"
                            + " runtime's own: layout().snode(2))");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> runtime.writeBits(equal.field("v"), 1, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("layout().field(\"v\")");
            io.snode.api.Layout larger = io.snode.api.Layout.parse("pointer(i,4).pointer(i,2).bitmasked(i,4).place(f32 v)");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> runtime.plan().node(larger.snode(3)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not from this plan's layout");
        }
    }
}
