package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PathStep#cellIndex} (unrolled for one to three power-of-two splits, else through its
 * arrays) gives at every level what the splits define, {@code sum(local(coordinate) * stride)}
 * with {@link AxisSplit#local}'s division and remainder, for coordinates all over the index
 * space: powers of two and not, one to four axes, levels that split only some axes.
 */
class PathStepIndexTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)",
            "pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)",
            "dense(ijk,[3,5,6]).pointer(ijk,[4,7,2]).dense(ijk,[2,3,8]).place(f32 phi)",
            "pointer(i,64).dense(i,8).place(f32 phi)",
            "dense(ij,[4,2]).pointer(ijk,[2,8,4]).bitmasked(k,16).place(f32 phi)",
            "pointer(ijkl,4).dense(ijkl,[2,4,2,8]).place(f32 phi)",
            "pointer(ijkl,[3,4,4,2]).bitmasked(ijkl,2).place(f32 phi)"})
    void theCellIndexIsTheSplitsSum(String text) {
        Layout layout = Layout.parse(text);
        PlacedField field = layout.field("phi");
        List<PathStep> path = Plan.of(layout).path(field);
        int[] shape = field.snode().indexShape();
        SplittableRandom random = new SplittableRandom(text.hashCode());
        for (int n = 0; n < 2000; n++) {
            int[] coordinates = new int[shape.length];
            for (int c = 0; c < shape.length; c++) {
                // The corners too: 0 and the last coordinate of each axis.
                coordinates[c] = switch (n % 4) {
                    case 0 -> 0;
                    case 1 -> shape[c] - 1;
                    default -> random.nextInt(shape[c]);
                };
            }
            for (PathStep step : path) {
                long expected = 0;
                for (AxisSplit split : step.splits()) {
                    expected += split.local(coordinates[split.coordinate()]) * split.stride();
                }
                assertThat(step.cellIndex(coordinates)).as("%s at %s", step, java.util.Arrays.toString(coordinates))
                        .isEqualTo(expected);
                assertThat(step.cellIndex(coordinates)).isBetween(0L, step.node().cellCount() - 1);
            }
        }
    }
}
