package io.snode.api.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RandomLayoutsTest {

    @Test
    void coversEveryKindTypeDepthAndBranching() {
        Set<NodeKind> kinds = EnumSet.noneOf(NodeKind.class);
        Set<FieldType> types = EnumSet.noneOf(FieldType.class);
        Set<Integer> depths = new HashSet<>();
        Set<Integer> axisCounts = new HashSet<>();
        boolean branching = false;
        boolean rootFields = false;
        boolean innerFields = false;
        boolean nonPowerOfTwo = false;
        boolean wideHash = false;
        for (long seed = 0; seed < 500; seed++) {
            Layout layout = RandomLayouts.random(seed);
            assertThat(RandomLayouts.random(seed)).isEqualTo(layout);
            int maxDepth = 0;
            Set<io.snode.api.Axis> axes = EnumSet.noneOf(io.snode.api.Axis.class);
            for (SNode node : layout.snodes()) {
                kinds.add(node.kind());
                maxDepth = Math.max(maxDepth, node.depth());
                axes.addAll(node.axes().list());
                branching |= node.children().size() > 1;
                innerFields |= node.kind() != NodeKind.ROOT && !node.children().isEmpty() && !node.fields().isEmpty();
                for (int size : node.sizes()) {
                    nonPowerOfTwo |= Integer.bitCount(size) != 1;
                    wideHash |= node.kind() == NodeKind.HASH && size > 4096;
                }
            }
            rootFields |= !layout.root().fields().isEmpty();
            for (PlacedField field : layout.fields()) {
                types.add(field.type());
            }
            depths.add(maxDepth);
            axisCounts.add(axes.size());
        }
        assertThat(kinds).containsAll(EnumSet.allOf(NodeKind.class));
        assertThat(types).containsAll(EnumSet.allOf(FieldType.class));
        assertThat(depths).contains(1, 2, 3, 4);
        assertThat(axisCounts).contains(1, 2, 3, 4);
        assertThat(branching).isTrue();
        assertThat(rootFields).isTrue();
        assertThat(innerFields).isTrue();
        assertThat(nonPowerOfTwo).isTrue();
        assertThat(wideHash).as("a wide hash top level").isTrue();
    }
}
