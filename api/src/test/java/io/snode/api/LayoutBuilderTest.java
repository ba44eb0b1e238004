package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LayoutBuilderTest {

    private static Layout particleGrid() {
        return Layout.build(root -> {
            var block = root.pointer(Axes.IJK, 16).pointer(Axes.IJK, 16);
            block.dense(Axes.IJK, 8).place(Field.f32("phi"), Field.f32("vx"));
            block.dynamic(Axis.L, 1 << 20, 64).place(Field.i32("particle"));
        });
    }

    @Test
    void fieldsKnowTheirShapeAxesAndPath() {
        Layout layout = particleGrid();

        PlacedField phi = layout.field("phi");
        assertThat(phi.type()).isEqualTo(FieldType.F32);
        assertThat(phi.dimensionality()).isEqualTo(3);
        assertThat(phi.axes()).containsExactly(Axis.I, Axis.J, Axis.K);
        assertThat(phi.shape()).containsExactly(2048, 2048, 2048);
        assertThat(phi.path()).extracting(SNode::kind)
                .containsExactly(NodeKind.ROOT, NodeKind.POINTER, NodeKind.POINTER, NodeKind.DENSE);

        PlacedField particle = layout.field("particle");
        assertThat(particle.axes()).containsExactly(Axis.I, Axis.J, Axis.K, Axis.L);
        assertThat(particle.shape()).containsExactly(256, 256, 256, 1 << 20);
        assertThat(particle.snode().capacity()).isEqualTo(1 << 20);
        assertThat(particle.snode().chunkSize()).isEqualTo(64);
    }

    @Test
    void severalFieldsOnOneNodeShareItAndKeepPlacementOrder() {
        Layout layout = particleGrid();
        assertThat(layout.field("phi").snode()).isSameAs(layout.field("vx").snode());
        assertThat(layout.field("phi").slot()).isZero();
        assertThat(layout.field("vx").slot()).isEqualTo(1);
        assertThat(layout.field("particle").snode()).isNotSameAs(layout.field("phi").snode());
        assertThat(layout.fields()).extracting(PlacedField::name).containsExactly("phi", "vx", "particle");
    }

    @Test
    void nodesAreNumberedInPreOrderFromTheRoot() {
        Layout layout = particleGrid();
        assertThat(layout.snodes()).extracting(SNode::description).containsExactly(
                "root", "pointer(ijk,16)", "pointer(ijk,16)", "dense(ijk,8)", "dynamic(l,1048576,64)");
        for (SNode node : layout.snodes()) {
            assertThat(layout.snode(node.id())).isSameAs(node);
        }
        assertThat(layout.snode(4).path())
                .isEqualTo("root/pointer(ijk,16)/pointer(ijk,16)/dynamic(l,1048576,64)#1");
        assertThatThrownBy(() -> layout.snode(5)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("id=5");
    }

    @Test
    void anAxisSplitOverLevelsMultipliesItsSizes() {
        Layout layout = Layout.build(root -> root.pointer(Axes.I, 4).dense(Axes.I, 8).place(Field.f64("x")));
        assertThat(layout.field("x").shape()).containsExactly(32);
        SNode pointer = layout.snode(1);
        assertThat(pointer.indexShape()).containsExactly(4);
        assertThat(pointer.cellCount()).isEqualTo(4);
        assertThat(layout.field("x").snode().indexShape()).containsExactly(32);
    }

    @Test
    void perAxisSizesGiveANonCubicShape() {
        Layout layout = Layout.build(root ->
                root.bitmasked(Axes.IJ, 3, 6).bitmasked(Axes.I, 8).place(Field.f32("x")));
        assertThat(layout.field("x").shape()).containsExactly(24, 6);
        SNode top = layout.snode(1);
        assertThat(top.size(Axis.I)).isEqualTo(3);
        assertThat(top.size(Axis.J)).isEqualTo(6);
        assertThat(top.size(Axis.K)).isEqualTo(1);
        assertThat(top.uniformSize()).isFalse();
    }

    @Test
    void axesSkippedByALevelKeepTheirOrder() {
        Layout layout = Layout.build(root -> root.dense(Axes.of(Axis.K), 5).dense(Axes.of(Axis.I, Axis.K), 2, 3)
                .place(Field.i64("n")));
        PlacedField field = layout.field("n");
        assertThat(field.axes()).containsExactly(Axis.I, Axis.K);
        assertThat(field.shape()).containsExactly(2, 15);
    }

    @Test
    void rootFieldsAreScalarsAndNodesMayHoldFieldsBesideChildren() {
        Layout layout = Layout.build(root -> {
            root.place(Field.i32("steps"));
            root.pointer(Axes.IJK, 16).place(Field.f32("coarse")).dense(Axes.IJK, 8).place(Field.f32("phi"));
        });
        assertThat(layout.field("steps").dimensionality()).isZero();
        assertThat(layout.field("steps").shape()).isEmpty();
        assertThat(layout.field("coarse").shape()).containsExactly(16, 16, 16);
        assertThat(layout.field("phi").shape()).containsExactly(128, 128, 128);
        assertThat(layout.toString())
                .isEqualTo("place(i32 steps); pointer(ijk,16){ place(f32 coarse); dense(ijk,8).place(f32 phi) }");
    }

    @Test
    void unknownFieldNamesAreReportedWithTheKnownOnes() {
        Layout layout = particleGrid();
        assertThatThrownBy(() -> layout.field("rho")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field=rho").hasMessageContaining("phi, vx, particle");
    }

    @Test
    void treeStringShowsEveryNodeFieldAndShape() {
        String tree = particleGrid().treeString();
        assertThat(tree).contains("root", "  pointer(ijk,16)  shape [i=16, j=16, k=16]",
                "      dense(ijk,8)  shape [i=2048, j=2048, k=2048]", "f32 phi", "i32 particle",
                "dynamic(l,1048576,64)  shape [i=256, j=256, k=256, l=1048576]");
    }

    @Test
    void buildersAreDeadAfterTheLayoutIsBuilt() {
        NodeBuilder[] escaped = new NodeBuilder[1];
        Layout.build(root -> {
            escaped[0] = root;
            root.dense(Axes.I, 2).place(Field.f32("x"));
        });
        assertThatThrownBy(() -> escaped[0].dense(Axes.I, 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has been built");
    }

    @Test
    void equalLayoutsHaveEqualTextAndHash() {
        assertThat(particleGrid()).isEqualTo(particleGrid()).hasSameHashCodeAs(particleGrid());
        Layout other = Layout.build(root -> root.dense(Axes.IJK, 8).place(Field.f32("phi")));
        assertThat(particleGrid()).isNotEqualTo(other);
    }

    @Test
    void dynamicWithoutChunkSizeUsesItsCapacityUpToTheDefaultChunk() {
        Layout layout = Layout.build(root -> root.dynamic(Axis.I, 100).place(Field.f32("x")));
        assertThat(layout.snode(1).chunkSize()).isEqualTo(100);
        assertThat(layout.toString()).isEqualTo("dynamic(i,100,100).place(f32 x)");
        assertThatThrownBy(() -> layout.root().capacity()).isInstanceOf(IllegalStateException.class);
        Layout exact = Layout.build(root -> root.dynamic(Axis.I, NodeBuilder.DEFAULT_DYNAMIC_CHUNK).place(Field.f32("x")));
        assertThat(exact.snode(1).chunkSize()).isEqualTo(1024);
    }

    @Test
    void aLongDynamicListWithoutChunkSizeGrowsInChunksOfTheDefaultSize() {
        // Taichi's default chunk is the capacity: the first append would ask for the whole list.
        Layout layout = Layout.build(root -> root.dynamic(Axis.L, Integer.MAX_VALUE).place(Field.f32("x")));
        assertThat(NodeBuilder.DEFAULT_DYNAMIC_CHUNK).isEqualTo(1024);
        assertThat(layout.snode(1).chunkSize()).isEqualTo(NodeBuilder.DEFAULT_DYNAMIC_CHUNK);
        assertThat(layout.snode(1).capacity()).isEqualTo(Integer.MAX_VALUE);
        assertThat(layout.toString()).isEqualTo("dynamic(l,2147483647,1024).place(f32 x)");
        Layout small = Layout.build(root -> root.dynamic(Axis.L, 1025).place(Field.f32("x")));
        assertThat(small.snode(1).chunkSize()).isEqualTo(1024);
    }

    /** A null size array is named; a too-deep node that was refused is not left in the tree for a caller that goes on. */
    @Test
    void aNullSizeArrayIsNamedAndARefusedTooDeepNodeIsNotKept() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Layout.build(root -> root.dense(Axes.I, (int[]) null)))
                .isInstanceOf(NullPointerException.class).hasMessage("sizes");
        int[] refused = {0};
        Layout layout = Layout.build(root -> {
            NodeBuilder at = root;
            try {
                for (int depth = 0; depth <= LayoutRule.MAX_DEPTH; depth++) {
                    at = at.dense(Axes.I, 1);
                }
            } catch (LayoutException tooDeep) {
                org.assertj.core.api.Assertions.assertThat(tooDeep.rule()).isEqualTo(LayoutRule.TOO_DEEP);
                refused[0]++;
            }
            at.place(Field.f32("x"));
        });
        org.assertj.core.api.Assertions.assertThat(refused[0]).isEqualTo(1);
        org.assertj.core.api.Assertions.assertThat(layout.snodes()).hasSize(LayoutRule.MAX_DEPTH + 1);
    }
}
