package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.LayoutParseException;
import io.snode.api.NodeKind;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link Contenders#create} with names and with layout texts, and what {@link WorkloadLayout}
 * makes of a layout: its leaf, its activity, W4's blocks, the workloads it takes no part in, and
 * an error that says what is required and what the layout has.
 */
class ContendersTest {
    static final String DEEPER_L1 = "pointer(ijk,64).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    static final String DEEPER_L2 = "pointer(ijk,16).pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)";

    @Test
    void theNamesGiveTheirContendersInAnyCase() {
        assertThat(Contenders.create(" l1 ").structure()).isEqualTo("L1");
        assertThat(Contenders.create("HashMap").structure()).isEqualTo("hashmap");
        assertThat(Contenders.canonical("DENSE")).isEqualTo("dense");
        assertThat(Contenders.isLayout("L2")).isFalse();
    }

    @Test
    void aDenseLeafedLayoutTextIsAContenderWithBlockActivity() {
        String spaced = "pointer(ijk, 64) .pointer(ijk,16). dense(ijk,8).place(f32 phi)";
        try (SNodeContender contender = (SNodeContender) Contenders.create(spaced)) {
            assertThat(contender.structure()).isEqualTo(DEEPER_L1).isEqualTo(Layout.parse(spaced).toString());
            assertThat(contender.activity()).isEqualTo(DataSet.Activity.BLOCK);
            WorkloadLayout layout = contender.workloadLayout();
            assertThat(layout.leaf().description()).isEqualTo("dense(ijk,8)");
            assertThat(layout.blocks()).map(b -> b.description()).contains("pointer(ijk,16)");
            assertThat(layout.notApplicable()).containsOnlyKeys(Workload.W6, Workload.W6V);
            assertThat(layout.notApplicable().get(Workload.W6)).contains("run with L1");
        }
        assertThat(Contenders.isLayout(DEEPER_L1)).isTrue();
    }

    @Test
    void aBitmaskedLeafActivatesPerVoxelAndW4TakesTheSparseNodeOfItsBlocks() {
        WorkloadLayout layout = WorkloadLayout.parse(DEEPER_L2);
        assertThat(layout.activity()).isEqualTo(DataSet.Activity.VOXEL);
        assertThat(layout.leaf().kind()).isEqualTo(NodeKind.BITMASKED);
        assertThat(layout.blocks()).map(b -> b.id()).contains(3);
        assertThat(layout.describe()).isEqualTo("activity per voxel (a bitmasked(ijk,8) leaf, as L2);"
                + " W4 deactivates 8^3 blocks, the cells of pointer(ijk,4)");
    }

    @Test
    void l1AndL2UseTheNodesTheyAlwaysUsed() {
        WorkloadLayout l1 = SNodeContender.l1().workloadLayout();
        WorkloadLayout l2 = SNodeContender.l2().workloadLayout();
        assertThat(l1.leaf()).isSameAs(l1.layout().snode(3));
        assertThat(l1.blocks()).containsSame(l1.layout().snode(2));
        assertThat(l1.activity()).isEqualTo(DataSet.Activity.BLOCK);
        assertThat(l1.notApplicable()).isEmpty();
        assertThat(l2.leaf()).isSameAs(l2.layout().snode(3));
        assertThat(l2.blocks()).containsSame(l2.layout().snode(2));
        assertThat(l2.activity()).isEqualTo(DataSet.Activity.VOXEL);
        assertThat(l2.notApplicable()).containsOnlyKeys(Workload.W6, Workload.W6V);
    }

    @Test
    void aLayoutWithoutPhiSaysWhatItNeedsAndWhatItHas() {
        assertThatThrownBy(() -> Contenders.create("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 rho)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot run the workloads: they need an f32 field phi on i, j, k (3-D)")
                .hasMessageContaining("it has no field phi; its fields are f32 rho on ijk");
    }

    @Test
    void aTwoDimensionalLayoutIsRefused() {
        assertThatThrownBy(() -> Contenders.create("pointer(ij,64).dense(ij,32).place(f32 phi)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an f32 field phi on i, j, k (3-D)")
                .hasMessageEndingWith("its phi is f32 on ij (2-D)");
        assertThatThrownBy(() -> Contenders.create(DEEPER_L1.replace("f32 phi", "f64 phi")))
                .hasMessageEndingWith("its phi is f64 on ijk (3-D)");
    }

    @Test
    void anUnparsableTextGivesTheParsersMessage() {
        String text = "pointer(ijk,16).dense(ijk 8).place(f32 phi)";
        String parser = firstLine(text);
        assertThat(parser).startsWith("column ");
        assertThatThrownBy(() -> Contenders.create(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layout=" + text + " is not a layout: " + parser)
                .hasCauseInstanceOf(LayoutParseException.class);
        assertThatThrownBy(() -> Contenders.create("pointer(ijk,512).dense(ijk,8).place(f32 phi)"))
                .hasMessageContaining("is not a layout: root/pointer(ijk,512): one container");
    }

    @Test
    void aBareWordIsAnUnknownNameThatListsTheNames() {
        assertThatThrownBy(() -> Contenders.create("btree"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("structure=btree (known: L1, L2, hashmap, fastutil, dense, floors, or a layout text");
    }

    @Test
    void theLeafMustBeDenseOrBitmaskedAndReachTheDomain() {
        assertThatThrownBy(() -> WorkloadLayout.parse("pointer(ijk,16).pointer(ijk,16).pointer(ijk,8).place(f32 phi)"))
                .hasMessageEndingWith("its phi is placed on pointer(ijk,8)");
        assertThatThrownBy(() -> WorkloadLayout.parse("pointer(ijk,16).pointer(ijk,8).dense(ijk,8).place(f32 phi)"))
                .hasMessageContaining("reaching at least 2048 on each axis")
                .hasMessageEndingWith("its phi reaches [i=1024, j=1024, k=1024]");
    }

    @Test
    void aDenseLeafMustMakeEightCubedBlocksUnderASparseNode() {
        assertThatThrownBy(() -> WorkloadLayout.parse("pointer(ijk,16).pointer(ijk,32).dense(ijk,4).place(f32 phi)"))
                .hasMessageContaining("the reference checksums count 8^3 blocks")
                .hasMessageEndingWith("they hold 4 x 4 x 4");
        // (No all-dense layout reaches 2048^3 within the size rules; this one is checked before them.)
        assertThatThrownBy(() -> WorkloadLayout.parse("dense(ijk,2048).place(f32 phi)"))
                .hasMessageContaining("no node above dense(ijk,2048) is sparse");
        // Dense nodes between the sparse node and the leaf: the block is the sparse node's cell.
        WorkloadLayout split = WorkloadLayout.parse("pointer(ijk,32).pointer(ijk,8).dense(ijk,2).dense(ijk,4).place(f32 phi)");
        assertThat(split.activity()).isEqualTo(DataSet.Activity.BLOCK);
        assertThat(split.blocks()).map(b -> b.description()).contains("pointer(ijk,8)");
    }

    @Test
    void aBitmaskedLeafWithoutEightCubedSparseBlocksTakesNoPartInW4() {
        WorkloadLayout layout = WorkloadLayout.parse("pointer(ijk,16).pointer(ijk,32).bitmasked(ijk,4).place(f32 phi)");
        assertThat(layout.activity()).isEqualTo(DataSet.Activity.VOXEL);
        assertThat(layout.blocks()).isEmpty();
        assertThat(layout.notApplicable().keySet()).isEqualTo(Set.of(Workload.W4, Workload.W6, Workload.W6V));
        assertThat(layout.notApplicable().get(Workload.W4)).contains("no sparse node above bitmasked(ijk,4)");
    }

    private static String firstLine(String text) {
        try {
            Layout.parse(text);
        } catch (LayoutParseException e) {
            return e.getMessage().lines().findFirst().orElseThrow();
        }
        throw new AssertionError(text + " parsed");
    }
}
