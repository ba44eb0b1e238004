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
}
