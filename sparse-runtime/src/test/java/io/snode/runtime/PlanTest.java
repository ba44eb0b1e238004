package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {
    static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    static final String L2 = "pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)";

    @Test
    void l1CellsAndContainers() {
        Plan plan = Plan.of(Layout.parse(L1));
        SNodePlan root = plan.node(0);
        SNodePlan outer = plan.node(1);
        SNodePlan inner = plan.node(2);
        SNodePlan leaf = plan.node(3);
        assertThat(outer.kind()).isEqualTo(NodeKind.POINTER);
        assertThat(outer.containerBytes()).isEqualTo(4096L * PointerWord.BYTES);
        assertThat(root.cellBytes()).isEqualTo(32768);
        assertThat(outer.cellBytes()).isEqualTo(32768); // holds the inner pointer words
        assertThat(inner.cellBytes()).isEqualTo(2048);  // one 8^3 block of f32
        assertThat(leaf.cellBytes()).isEqualTo(4);
        assertThat(leaf.cellAlignment()).isEqualTo(4);
        assertThat(leaf.fieldOffset(0)).isZero();
    }

    @Test
    void l1SplitsAreShiftsAndMasks() {
        Layout layout = Layout.parse(L1);
        Plan plan = Plan.of(layout);
        List<PathStep> path = plan.path(layout.field("phi"));
        assertThat(path).hasSize(3);
        AxisSplit outerI = path.get(0).splits().get(0);
        assertThat(outerI.divisor()).isEqualTo(128);
        assertThat(outerI.shift()).isEqualTo(7);
        assertThat(outerI.mask()).isEqualTo(15);
        assertThat(outerI.stride()).isEqualTo(256);
        AxisSplit innerK = path.get(1).splits().get(2);
        assertThat(innerK.shift()).isEqualTo(3);
        assertThat(innerK.stride()).isEqualTo(1);
        AxisSplit leafJ = path.get(2).splits().get(1);
        assertThat(leafJ.shift()).isZero();
        assertThat(leafJ.mask()).isEqualTo(7);
        assertThat(leafJ.stride()).isEqualTo(8);
        // Voxel (1000, 7, 1029): outer cell (7, 0, 8), inner (13, 0, 0), leaf (0, 7, 5).
        int[] voxel = {1000, 7, 1029};
        assertThat(path.get(0).cellIndex(voxel)).isEqualTo(7 * 256 + 0 * 16 + 8);
        assertThat(path.get(1).cellIndex(voxel)).isEqualTo(13 * 256);
        assertThat(path.get(2).cellIndex(voxel)).isEqualTo(0 * 64 + 7 * 8 + 5);
    }

    @Test
    void l2BitmaskPrecedesTheCells() {
        Plan plan = Plan.of(Layout.parse(L2));
        SNodePlan leaf = plan.node(3);
        assertThat(leaf.maskBytes()).isEqualTo(64);
        assertThat(leaf.cellsOffset()).isEqualTo(64);
        assertThat(plan.node(2).cellBytes()).isEqualTo(64 + 2048);
    }

    @Test
    void sizesThatAreNotPowersOfTwoDivide() {
        Layout layout = Layout.parse("pointer(i,5).dense(i,3).place(f64 x)");
        List<PathStep> path = Plan.of(layout).path(layout.field("x"));
        AxisSplit outer = path.get(0).splits().get(0);
        assertThat(outer.isPowerOfTwo()).isFalse();
        assertThat(outer.divisor()).isEqualTo(3);
        assertThat(outer.local(14)).isEqualTo(4);
        assertThat(path.get(1).splits().get(0).local(14)).isEqualTo(2);
    }

    @Test
    void taichiIndexSpaceConventionPutsX19InPointerCell1() {
        Layout layout = Layout.parse("pointer(i,16).dense(i,16).place(f32 x)");
        List<PathStep> path = Plan.of(layout).path(layout.field("x"));
        assertThat(path.get(0).cellIndex(new int[] {19})).isEqualTo(1);
        assertThat(path.get(1).cellIndex(new int[] {19})).isEqualTo(3);
    }

    @Test
    void aosFieldsAreNaturallyAlignedAndChildrenFollow() {
        Layout layout = Layout.parse("pointer(i,4){ place(i32 a, f64 b, f32 c); dense(i,2).place(i64 d) }");
        Plan plan = Plan.of(layout);
        SNodePlan pointer = plan.node(1);
        assertThat(pointer.fieldOffset(0)).isZero();
        assertThat(pointer.fieldOffset(1)).isEqualTo(8);
        assertThat(pointer.fieldOffset(2)).isEqualTo(16);
        assertThat(pointer.childContainerOffset(0)).isEqualTo(24);
        assertThat(pointer.cellBytes()).isEqualTo(40);
        assertThat(pointer.cellAlignment()).isEqualTo(8);
    }

    @Test
    void dynamicDirectoryIsTwoLevelAndSmall() {
        Plan plan = Plan.of(Layout.parse("pointer(ijk,16).pointer(ijk,16).dynamic(l,1048576,64).place(i32 p)"));
        SNodePlan list = plan.node(3);
        assertThat(list.containerBytes()).isEqualTo(DynamicHeader.BYTES);
        assertThat(list.maxChunks()).isEqualTo(16384);
        assertThat(list.directoryLeafFanout()).isEqualTo(128);
        assertThat((long) list.directoryTopFanout() * list.directoryLeafFanout())
                .isGreaterThanOrEqualTo(16384 - DynamicHeader.INLINE_CHUNKS);
        SNodePlan small = Plan.of(Layout.parse("dynamic(i,100,50).place(f32 x)")).node(1);
        assertThat(small.directoryLeafFanout()).isZero();
    }

    @Test
    void describeNamesEveryNodeAndConstant() {
        String text = Plan.of(Layout.parse(L1)).describe();
        assertThat(text).contains("snode 1 root/pointer(ijk,16)", "axis i: size 16 (4 bits)",
                "(c >>> 7) & 15", "field f32 phi at +0", "4096 pointer words");
    }
}
