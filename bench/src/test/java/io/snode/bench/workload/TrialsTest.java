package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrialsTest {
    @Test
    void thePreviousRunsStateIsUnreachableWhileTheNextSetUpRuns() {
        // A set-up that calls System.gc() must be able to collect the previous run's structure,
        // or that garbage is collected inside the next timed body.
        List<Boolean> collected = new ArrayList<>();
        List<WeakReference<Object>> previous = new ArrayList<>();
        new Trials(1, 2, line -> { }).time("state", () -> {
            if (!previous.isEmpty()) {
                System.gc();
                collected.add(previous.getLast().get() == null);
            }
            Object state = new byte[1 << 20];
            previous.add(new WeakReference<>(state));
            return state;
        }, state -> { });
        assertThat(collected).containsExactly(true, true);
    }

    @Test
    void keepsTheLastRunsStateAndOneTimePerTimedRun() {
        int[] setUps = {0};
        Trials.Timed<int[]> timed = new Trials(2, 3, line -> { }).time("count", () -> new int[] {++setUps[0]},
                state -> state[0] *= 10);
        assertThat(setUps[0]).isEqualTo(5);
        assertThat(timed.state()).containsExactly(50);
        assertThat(timed.seconds()).hasSize(3).allSatisfy(s -> assertThat(s).isGreaterThanOrEqualTo(0.0));
    }

    /** A clock that moves 10 ms each time it is read. */
    private static java.util.function.LongSupplier tenMillisPerRead() {
        long[] now = {0};
        return () -> now[0] += 10_000_000L;
    }

    @Test
    void warmUpsGoOnPastTheirCountUntilTheirTimePassed() {
        int[] setUps = {0};
        // 100 ms of warm-ups after the first, on a clock read twice per body, once after the first
        // run and once per check of the time: the checks see 10, 40, 70 and 100 ms passed
        Trials.Timed<int[]> timed = new Trials(1, 3, 100_000_000L, line -> { }, tenMillisPerRead())
                .time("warm", () -> new int[] {++setUps[0]}, state -> { });
        assertThat(timed.warmups()).as("1 run by count, then until 100 ms passed after it").isEqualTo(4);
        assertThat(setUps[0]).isEqualTo(4 + 3);
        assertThat(timed.seconds()).hasSize(3).allSatisfy(s -> assertThat(s).isEqualTo(0.01));
    }

    @Test
    void theCountOfWarmUpsStillHoldsWhenTheirTimeIsShorter() {
        Trials.Timed<Object> timed = new Trials(4, 1, 1L, line -> { }, tenMillisPerRead())
                .time("count", Object::new, state -> { });
        assertThat(timed.warmups()).isEqualTo(4);
    }

    @Test
    void warmUpsStopAtTheirMostWhateverTheirTime() {
        Trials.Timed<Object> timed = new Trials(0, 1, Long.MAX_VALUE, line -> { }, tenMillisPerRead())
                .time("long", Object::new, state -> { });
        assertThat(timed.warmups()).isEqualTo(Trials.MAX_WARMUPS);
    }

    @Test
    void theFirstWarmUpDoesNotCountAgainstTheirTime() {
        long[] now = {0};
        // the first run takes 5 s (classes generated), every later one 10 ms; 50 ms of warm-ups
        Trials.Timed<Object> timed = new Trials(0, 1, 50_000_000L, line -> { }, () -> now[0])
                .timeSelf("slow start", Object::new, state -> {
                    now[0] += now[0] == 0 ? 5_000_000_000L : 10_000_000L;
                    return 0;
                });
        assertThat(timed.warmups()).as("the first, then 5 of 10 ms").isEqualTo(6);
    }

    @Test
    void noCountAndNoTimeMakeNoWarmUp() {
        int[] setUps = {0};
        Trials.Timed<int[]> timed = new Trials(0, 2, 0, line -> { }, tenMillisPerRead())
                .time("cold", () -> new int[] {++setUps[0]}, state -> { });
        assertThat(timed.warmups()).isZero();
        assertThat(setUps[0]).isEqualTo(2);
    }

    @Test
    void aNegativeWarmUpTimeIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Trials(0, 1, -1, line -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmupNanos=-1");
    }
}
