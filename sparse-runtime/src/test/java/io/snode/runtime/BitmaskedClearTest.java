package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code deactivateAll} of a bitmasked node with no managed node below clears each mask word
 * with one exchange and zeroes the runs of cells its bits name (since 12-07; before, one AND and
 * one fill per cell). Over random patterns of active cells (runs that end at a word's last bit,
 * whole words, single cells, cells of two fields of different sizes, a container whose cell
 * count is not a multiple of 64): every cell ends inactive and comes back zeroed, and nothing
 * outside those cells changes (a value of the dense cell that holds each container, and the cells
 * of a sibling bitmasked node).
 */
class BitmaskedClearTest {
    private static final Layout LAYOUT = Layout.parse(
            "dense(i,3){ place(f32 c); bitmasked(j,200).place(f64 a, i32 b); bitmasked(k,64).place(f32 d) }");

    @Test
    void deactivateAllClearsEveryPatternOfCellsAndNothingElse() {
        SNode masked = LAYOUT.field("a").snode();
        SNode sibling = LAYOUT.field("d").snode();
        Random random = new Random(17);
        for (int pattern = 0; pattern < 60; pattern++) {
            try (SparseRuntime rt = SparseRuntime.create(LAYOUT)) {
                boolean[][] active = new boolean[3][200];
                for (int i = 0; i < 3; i++) {
                    rt.setFloat("c", i + 1, i);
                    rt.setFloat("d", 10 + i, i, 63);
                    int kind = (pattern + i) % 4;
                    for (int j = 0; j < 200; j++) {
                        active[i][j] = switch (kind) {
                            case 0 -> random.nextInt(4) != 0; // dense, with gaps
                            case 1 -> j >= 40 && j < 128; // a run across a word's last bit, then a whole word
                            case 2 -> random.nextInt(16) == 0; // single cells
                            default -> true; // every cell: three whole words and a part
                        };
                        if (active[i][j]) {
                            rt.setDouble("a", 1 + j, i, j);
                            rt.setInt("b", -1 - j, i, j);
                        }
                    }
                }
                rt.deactivateAll(masked);
                for (int i = 0; i < 3; i++) {
                    assertThat(rt.getFloat("c", i)).as("the dense cell's own value").isEqualTo(i + 1);
                    assertThat(rt.isActive(sibling, i, 63)).as("the sibling node's cell").isTrue();
                    assertThat(rt.getFloat("d", i, 63)).isEqualTo(10 + i);
                    for (int j = 0; j < 200; j++) {
                        assertThat(rt.isActive(masked, i, j)).as("pattern %d, cell (%d, %d)", pattern, i, j).isFalse();
                        rt.activate(masked, i, j);
                        assertThat(rt.getDouble("a", i, j)).as("pattern %d, a(%d, %d) activated again", pattern, i, j)
                                .isZero();
                        assertThat(rt.getInt("b", i, j)).as("pattern %d, b(%d, %d) activated again", pattern, i, j)
                                .isZero();
                    }
                }
            }
        }
    }
}
