package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Axis;
import org.junit.jupiter.api.Test;

/** The one axis split: the shift-and-mask form and the division form give the same digit. */
class AxisSplitTest {
    @Test
    void theShiftFormAndTheDivisionFormAgreeOnPowersOfTwo() {
        for (long value = 0; value < 4096; value += 7) {
            assertThat(AxisSplit.split(value, 16, 4, 8)).isEqualTo((value / 16) % 8);
            assertThat(AxisSplit.split(value, 16, -1, 8)).isEqualTo((value / 16) % 8);
        }
        assertThat(AxisSplit.split(Integer.MAX_VALUE, 1L << 30, 30, 2)).isEqualTo(1);
    }

    @Test
    void aSplitThatIsNoPowerOfTwoDivides() {
        assertThat(AxisSplit.split(100, 6, -1, 5)).isEqualTo((100 / 6) % 5);
        AxisSplit split = new AxisSplit(Axis.I, 0, 6, 5, 1);
        assertThat(split.isPowerOfTwo()).isFalse();
        assertThat(split.local(100)).isEqualTo(1); // 100 / 6 = 16, 16 % 5 = 1
    }
}
