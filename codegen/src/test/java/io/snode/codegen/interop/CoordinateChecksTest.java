package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class CoordinateChecksTest {
    @Test
    void findsTheFirstCoordinateOutsideTheExtent() {
        assertThat(CoordinateChecks.firstOutside(new int[] {0, 5, 7, 3}, 4, 8)).isEqualTo(-1);
        assertThat(CoordinateChecks.firstOutside(new int[] {0, 8, -1}, 3, 8)).isEqualTo(1);
        assertThat(CoordinateChecks.firstOutside(new int[] {0, 1, -1, 9}, 4, 8)).isEqualTo(2);
        assertThat(CoordinateChecks.firstOutside(new int[] {Integer.MIN_VALUE}, 1, 8)).isZero();
        assertThat(CoordinateChecks.firstOutside(new int[] {Integer.MAX_VALUE}, 1, Integer.MAX_VALUE)).isZero();
        assertThat(CoordinateChecks.firstOutside(new int[] {Integer.MAX_VALUE - 1}, 1, Integer.MAX_VALUE)).isEqualTo(-1);
        assertThat(CoordinateChecks.firstOutside(new int[] {0}, 1, 1)).isEqualTo(-1);
        assertThat(CoordinateChecks.firstOutside(new int[] {1}, 1, 1)).isZero();
    }

    @Test
    void looksOnlyAtTheFirstLengthElements() {
        assertThat(CoordinateChecks.firstOutside(new int[] {1, 2, 99}, 2, 8)).isEqualTo(-1);
        assertThat(CoordinateChecks.firstOutside(new int[] {99}, 0, 8)).isEqualTo(-1);
    }

    @Property
    void agreesWithAPlainSearch(@ForAll @Size(max = 300) int[] axis, @ForAll @IntRange(min = 1) int extent) {
        int expected = -1;
        for (int n = 0; n < axis.length; n++) {
            if (axis[n] < 0 || axis[n] >= extent) {
                expected = n;
                break;
            }
        }
        assertThat(CoordinateChecks.firstOutside(axis, axis.length, extent)).isEqualTo(expected);
    }
}
