package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.testing.LayoutModel;
import java.util.Arrays;
import java.util.function.Consumer;

/** Compares two runtimes of one layout over the whole index space of every SNode: activity, every field, every list's length. */
final class SameCells {
    private SameCells() {
    }

    static void assertSame(SNodeRuntime expected, SNodeRuntime actual) {
        Layout layout = expected.layout();
        Layout other = actual.layout();
        assertThat(other).isEqualTo(layout);
        for (PlacedField field : layout.root().fields()) {
            assertThat(actual.generic().readBits(other.field(field.name()))).as("root field %s", field.name())
                    .isEqualTo(expected.generic().readBits(field));
        }
        for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
            SNode twin = other.snode(node.id());
            enumerate(node.indexShape(), at -> {
                String where = node.path() + " at " + Arrays.toString(at) + " of " + layout;
                assertThat(actual.generic().isActive(twin, at)).as("isActive %s", where)
                        .isEqualTo(expected.generic().isActive(node, at));
                for (PlacedField field : node.fields()) {
                    assertThat(actual.generic().readBits(other.field(field.name()), at)).as("%s %s", field.name(), where)
                            .isEqualTo(expected.generic().readBits(field, at));
                }
            });
            if (node.kind() == NodeKind.DYNAMIC) {
                enumerate(node.parent().indexShape(), list -> assertThat(actual.generic().length(twin, list))
                        .as("length of %s at %s", node.path(), Arrays.toString(list))
                        .isEqualTo(expected.generic().length(node, list)));
            }
        }
    }

    /** Whether no cell of any sparse SNode is active (every SNode's index space looked at). */
    static boolean noActiveCell(SNodeRuntime runtime) {
        Layout layout = runtime.layout();
        boolean[] none = {true};
        for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
            if (node.kind().isSparse()) {
                enumerate(node.indexShape(), at -> none[0] &= !runtime.generic().isActive(node, at));
            }
        }
        return none[0];
    }

    static void enumerate(int[] shape, Consumer<int[]> each) {
        enumerate(shape, new int[shape.length], 0, each);
    }

    private static void enumerate(int[] shape, int[] at, int axis, Consumer<int[]> each) {
        if (axis == shape.length) {
            each.accept(at.clone());
            return;
        }
        for (int n = 0; n < shape[axis]; n++) {
            at[axis] = n;
            enumerate(shape, at, axis + 1, each);
        }
    }

    /** The number of coordinates of the largest index space of the layout. */
    static long largestIndexSpace(Layout layout) {
        long largest = 1;
        for (SNode node : layout.snodes()) {
            long cells = 1;
            for (int extent : node.indexShape()) {
                cells *= extent;
            }
            largest = Math.max(largest, cells);
        }
        return largest;
    }

    static int[] listCoordinates(SNode dynamic, java.util.Random random) {
        return LayoutModel.coordinates(dynamic.parent(), random);
    }
}
