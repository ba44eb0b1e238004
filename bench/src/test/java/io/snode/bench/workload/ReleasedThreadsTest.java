package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class ReleasedThreadsTest {
    @Test
    void everyPartRunsOnItsOwnThreadOnlyAfterTheRelease() {
        Set<Integer> parts = ConcurrentHashMap.newKeySet();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        ReleasedThreads released = new ReleasedThreads(3, "test", part -> {
            parts.add(part);
            threads.add(Thread.currentThread());
        });
        assertThat(parts).isEmpty(); // started and parked, not run
        assertThat(released.run()).isPositive();
        assertThat(parts).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(threads).hasSize(3).doesNotContain(Thread.currentThread());
        assertThatThrownBy(released::run).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPartsFailureIsRethrownByRun() {
        ReleasedThreads released = new ReleasedThreads(2, "test", part -> {
            if (part == 1) {
                throw new IllegalArgumentException("part=1");
            }
        });
        assertThatThrownBy(released::run).isInstanceOf(IllegalArgumentException.class).hasMessage("part=1");
    }
}
