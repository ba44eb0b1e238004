package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** One test per layout rule, through the builder and through the text form. */
class LayoutRulesTest {

    private static LayoutException violation(Consumer<NodeBuilder> declaration) {
        return catchLayout(() -> Layout.build(declaration));
    }

    private static LayoutException catchLayout(ThrowingCallable call) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(thrown).isInstanceOf(LayoutException.class).isInstanceOf(IllegalArgumentException.class);
        return (LayoutException) thrown;
    }

    @Test
    void dynamicConsumesExactlyOneAxis() {
        LayoutException e = violation(root -> root.dynamic(Axes.IJ, 8, 8).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.DYNAMIC_ONE_AXIS);
        assertThat(e).hasMessageStartingWith("root/dynamic(ij,8,8): ")
                .hasMessageContaining("exactly one axis").hasMessageContaining("axes=ij");
    }

    @Test
    void dynamicIsTerminal() {
        LayoutException e = violation(root -> root.dense(Axes.I, 4).dynamic(Axis.J, 8).dense(Axes.K, 2)
                .place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.DYNAMIC_TERMINAL);
        assertThat(e.path()).isEqualTo("root/dense(i,4)/dynamic(j,8,8)");
        assertThat(e).hasMessageContaining("terminal").hasMessageContaining("dense(k,2)");
    }

    @Test
    void dynamicAxisIsNotConsumedByAnAncestor() {
        LayoutException e = violation(root -> root.pointer(Axes.IJ, 4).dynamic(Axis.J, 8).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.DYNAMIC_AXIS_REUSED);
        assertThat(e).hasMessageContaining("root/pointer(ij,4)/dynamic(j,8,8)")
                .hasMessageContaining("axis j is consumed by root/pointer(ij,4)");
    }

    @Test
    void dynamicChunkLiesBetweenOneAndTheCapacity() {
        assertThat(violation(root -> root.dynamic(Axis.I, 8, 0).place(Field.f32("x"))).rule())
                .isEqualTo(LayoutRule.DYNAMIC_CHUNK);
        LayoutException e = violation(root -> root.dynamic(Axis.I, 8, 16).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.DYNAMIC_CHUNK);
        assertThat(e).hasMessageContaining("chunk=16, capacity=8");
    }

    @Test
    void dynamicCapacityIsPositive() {
        LayoutException e = violation(root -> root.dynamic(Axis.I, 0, 1).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_POSITIVE);
        assertThat(e).hasMessageContaining("capacity=0");
    }

    /** Without a chunk size written, a refused capacity is shown as written, without the chunk derived from it. */
    @Test
    void aRefusedCapacityIsShownAsWritten() {
        for (int capacity : new int[] {0, -5}) {
            LayoutException e = violation(root -> root.dynamic(Axis.L, capacity).place(Field.i32("p")));
            assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_POSITIVE);
            assertThat(e).hasMessageContaining("dynamic(l," + capacity + ")").hasMessageNotContaining("dynamic(l," + capacity + ",");
            assertThatThrownBy(() -> Layout.parse("dynamic(l," + capacity + ").place(i32 p)"))
                    .hasMessageContaining("dynamic(l," + capacity + ")").hasMessageNotContaining("dynamic(l," + capacity + ",");
        }
    }

    @ParameterizedTest
    @CsvSource({"0", "-1", "-2147483648"})
    void sizesArePositive(int size) {
        LayoutException e = violation(root -> root.pointer(Axes.IJ, 4, size).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_POSITIVE);
        assertThat(e).hasMessageContaining("positive").hasMessageContaining("size=" + size);
        assertThat(e.path()).isEqualTo("root/pointer(ij,[4," + size + "])");
    }

    @Test
    void sizesAreOneForAllAxesOrOnePerAxis() {
        LayoutException e = violation(root -> root.dense(Axes.IJK, 4, 4).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_COUNT);
        assertThat(e).hasMessageContaining("2 sizes for 3 axes (ijk)");
        assertThat(violation(root -> root.dense(Axes.IJ).place(Field.f32("x"))).rule())
                .isEqualTo(LayoutRule.SIZE_COUNT);
    }

    @Test
    void aNodeConsumesAtLeastOneAxis() {
        LayoutException e = violation(root -> root.dense(Axes.of(), 4).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.AXES_EMPTY);
        assertThat(e).hasMessageContaining("at least one axis");
    }

    @Test
    void duplicateAxesInOneNodeAreRejected() {
        LayoutException e = violation(root -> root.dense(Axes.of(Axis.I, Axis.I), 4).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.AXES_DUPLICATE);
        assertThat(e).hasMessageContaining("axes=ii repeats i");
        assertThat(catchLayout(() -> Layout.parse("dense(ijj,4).place(f32 x)")).rule())
                .isEqualTo(LayoutRule.AXES_DUPLICATE);
    }

    @Test
    void axesAreWrittenInOrder() {
        LayoutException e = violation(root -> root.dense(Axes.of(Axis.J, Axis.I), 4).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.AXES_ORDER);
        assertThat(e).hasMessageContaining("in order i, j, k").hasMessageContaining("axes=ji");
    }

    @Test
    void everyAxisExtentFitsAnInt() {
        LayoutException e = violation(root -> root.pointer(Axes.IJK, 1 << 16).dense(Axes.K, 1 << 15)
                .place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.EXTENT_TOO_LARGE);
        assertThat(e).hasMessageContaining("2^31 - 1").hasMessageContaining("axis k reaches extent 2147483648");
        // Exactly 2^31 - 1 is allowed.
        Layout largest = Layout.build(root -> root.dense(Axes.I, Integer.MAX_VALUE).place(Field.i32("x")));
        assertThat(largest.field("x").shape()).containsExactly(Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "dense(ijklmnop,256).place(f32 x)|root/dense(ijklmnop,256)",
            "dense(ijkl,65536).place(f32 x)|root/dense(ijkl,65536)",
            "pointer(ijklmnop,256).place(f32 x)|root/pointer(ijklmnop,256)",
            "dense(ijklmnop,[256,256,256,256,256,256,256,128]).place(f32 x)"
                    + "|root/dense(ijklmnop,[256,256,256,256,256,256,256,128])",
            "pointer(i,4).bitmasked(ijkl,[65536,65536,65536,32768]).place(f32 x)"
                    + "|root/pointer(i,4)/bitmasked(ijkl,[65536,65536,65536,32768])"})
    void aNodeWhoseCellCountOverflowsALongIsRejected(String text, String path) {
        LayoutException e = catchLayout(() -> Layout.parse(text));
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_OVERFLOW);
        assertThat(e.path()).isEqualTo(path);
        assertThat(e).hasMessageContaining("fits a signed 64-bit integer")
                .hasMessageContaining("more than 9223372036854775807 cells");
    }

    @Test
    void theBuilderRejectsAnOverflowingCellCountToo() {
        LayoutException e = violation(root -> root.dense(Axes.parse("ijklmnop"), 256).place(Field.f32("x")));
        assertThat(e.rule()).isEqualTo(LayoutRule.SIZE_OVERFLOW);
        assertThat(e).hasMessageStartingWith("root/dense(ijklmnop,256): ")
                .hasMessageContaining("sizes [256,256,256,256,256,256,256,256]");
    }

    @Test
    void theLargestCellCountThatFitsALongIsCountedExactly() {
        // 2^56 * 127 < 2^63 - 1: the layout rules allow it (the memory plan then rejects its bytes).
        Layout layout = Layout.parse("dense(ijklmnop,[256,256,256,256,256,256,256,127]).place(f32 x)");
        assertThat(layout.snode(1).cellCount()).isEqualTo(127L << 56);
        assertThat(LayoutRule.MAX_CONTAINER_BYTES).isEqualTo(128L << 20);
        assertThat(LayoutRule.CONTAINER_TOO_LARGE.statement()).contains("134217728 bytes (128 MiB)")
                .contains("dense, bitmasked or pointer").contains("root cell").contains("one cell of a pointer or hash node");
        assertThat(LayoutRule.DYNAMIC_CHUNK_TOO_LARGE.statement()).contains("134217728 bytes (128 MiB)");
    }

    @Test
    void aLayoutIsAtMostMaxDepthDeep() {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> Layout.build(root -> {
            NodeBuilder node = root;
            for (int n = 0; n < LayoutRule.MAX_DEPTH + 1; n++) {
                node = node.dense(Axes.I, 1);
            }
            node.place(Field.f32("x"));
        }));
        assertThat(thrown).isInstanceOf(LayoutException.class).hasMessageContaining("256 nodes deep");
        assertThat(((LayoutException) thrown).rule()).isEqualTo(LayoutRule.TOO_DEEP);
    }

    @ParameterizedTest
    @CsvSource({"''", "1x", "a-b", "a b", "é"})
    void fieldNamesAreWellFormed(String name) {
        LayoutException e = violation(root -> root.dense(Axes.I, 4).place(new Field(name, FieldType.F32)));
        assertThat(e.rule()).isEqualTo(LayoutRule.FIELD_NAME_MALFORMED);
        assertThat(e).hasMessageContaining("[A-Za-z_][A-Za-z0-9_]*").hasMessageContaining("name=\"" + name + "\"");
        assertThat(e.path()).isEqualTo("root/dense(i,4)");
    }

    @Test
    void aFieldNameIsPlacedOnceInTheWholeLayout() {
        LayoutException e = violation(root -> {
            root.dense(Axes.I, 4).place(Field.f32("x"));
            root.dense(Axes.J, 4).place(Field.i32("x"));
        });
        assertThat(e.rule()).isEqualTo(LayoutRule.FIELD_NAME_DUPLICATE);
        assertThat(e).hasMessageContaining("placed once").hasMessageContaining("name=x is also placed at root/dense(i,4)#0");
        assertThat(e.path()).isEqualTo("root/dense(j,4)#1");
    }

    @Test
    void aNodeWithNoFieldBelowIsRejected() {
        LayoutException e = violation(root -> {
            root.dense(Axes.I, 4).place(Field.f32("x"));
            root.pointer(Axes.J, 4).dense(Axes.J, 2);
        });
        assertThat(e.rule()).isEqualTo(LayoutRule.NO_FIELD_BELOW);
        assertThat(e.path()).isEqualTo("root/pointer(j,4)#1/dense(j,2)");
        assertThat(e).hasMessageContaining("field placed on it or below it");
    }

    @Test
    void anEmptyLayoutIsRejected() {
        LayoutException e = violation(root -> { });
        assertThat(e.rule()).isEqualTo(LayoutRule.NO_FIELD_BELOW);
        assertThat(e).hasMessageContaining("the layout declares no field");
    }

    @Test
    void atMostEightAxesAndOnlyTheLettersIToP() {
        assertThatThrownBy(() -> Layout.parse("dense(ijklmnopi,2).place(f32 x)"))
                .isInstanceOf(LayoutParseException.class).hasMessageContaining("at most 8 axes");
        assertThatThrownBy(() -> Layout.parse("dense(ijq,2).place(f32 x)"))
                .isInstanceOf(LayoutParseException.class).hasMessageContaining("axis letter i, j, k");
        assertThatThrownBy(() -> Axes.parse("xyz")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("axis='x'");
        Layout eight = Layout.parse("dense(ijklmnop,2).place(f32 x)");
        assertThat(eight.field("x").dimensionality()).isEqualTo(8);
    }

    @Test
    void textThatParsesButBreaksARuleGetsTheBuildersException() {
        LayoutException fromText = catchLayout(() -> Layout.parse("pointer(ij,4).dynamic(j,8).place(f32 x)"));
        LayoutException fromBuilder = violation(root -> root.pointer(Axes.IJ, 4).dynamic(Axis.J, 8)
                .place(Field.f32("x")));
        assertThat(fromText.rule()).isEqualTo(fromBuilder.rule());
        assertThat(fromText).hasMessage(fromBuilder.getMessage());

        assertThat(catchLayout(() -> Layout.parse("dense(i,0).place(f32 x)")).rule())
                .isEqualTo(LayoutRule.SIZE_POSITIVE);
        assertThat(catchLayout(() -> Layout.parse("dense(i,4).place(f32 9lives)")).rule())
                .isEqualTo(LayoutRule.FIELD_NAME_MALFORMED);
        assertThat(catchLayout(() -> Layout.parse("dense(ij,[1,2,3]).place(f32 x)")).rule())
                .isEqualTo(LayoutRule.SIZE_COUNT);
        assertThat(catchLayout(() -> Layout.parse("dynamic(ij,4).place(f32 x)")).rule())
                .isEqualTo(LayoutRule.DYNAMIC_ONE_AXIS);
        assertThat(catchLayout(() -> Layout.parse("dynamic(i,4){ place(f32 x); dense(j,2).place(f32 y) }")).rule())
                .isEqualTo(LayoutRule.DYNAMIC_TERMINAL);
        assertThat(catchLayout(() -> Layout.parse("dense(i,2).place(f32 x); dense(i,2).place(f64 x)")).rule())
                .isEqualTo(LayoutRule.FIELD_NAME_DUPLICATE);
    }
}
