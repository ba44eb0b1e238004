package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel2;
import io.snode.runtime.Collector;
import io.snode.runtime.RuntimeOptions;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A collection that fails halfway (a collector that collects the first node manager, then
 * throws) after a call that deactivated something: the call's own work stands (its
 * deactivations, its kernels' writes), the exception reaches the caller, and the cells the
 * failed collection did not reclaim are reclaimed by the next one; reads agree with a model of
 * the calls throughout.
 */
class FailingCollectionTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,8).pointer(ij,4).dense(ij,4).place(f32 x)");

    /** Fails (after collecting the first manager) while {@code failing} is set. */
    private static Collector halfway(AtomicBoolean failing) {
        return managers -> {
            if (failing.get()) {
                managers.getFirst().collect();
                throw new IllegalStateException("injected: the collector failed after its first manager");
            }
            Collector.SERIAL.collect(managers);
        };
    }

    @Test
    void aDeactivationStandsWhenTheCollectionAfterItFails() {
        AtomicBoolean failing = new AtomicBoolean();
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withCollector(halfway(failing)))) {
            SNode inner = LAYOUT.snode(2);
            for (int i = 0; i < 128; i += 5) {
                rt.generic().setFloat("x", i + 1f, i, 127 - i);
            }
            long before = rt.count("x");
            failing.set(true);
            // (20, 107), written above, lies in block (5, 26).
            assertThatThrownBy(() -> rt.deactivate(inner, 5, 26)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("injected");
            assertThat(rt.generic().isActive(inner, 5, 26)).as("the deactivation stands").isFalse();
            assertThat(rt.generic().getFloat("x", 20, 107)).isZero();
            assertThat(rt.count("x")).isEqualTo(before - 16);
            assertThat(recycled(rt)).as("the failed collection left cells to reclaim").isPositive();
            failing.set(false);
            rt.gc();
            assertThat(recycled(rt)).isZero();
            for (int i = 0; i < 128; i += 5) {
                assertThat(rt.generic().getFloat("x", i, 127 - i)).isEqualTo(i == 20 ? 0f : i + 1f);
            }
            rt.generic().setFloat("x", 7f, 20, 107);
            assertThat(rt.generic().getFloat("x", 20, 107)).as("the reclaimed cells serve again").isEqualTo(7f);
        }
    }

    @Test
    void aLaunchsWritesAndDeactivationsStandWhenTheCollectionAfterItFails() {
        AtomicBoolean failing = new AtomicBoolean(true);
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withCollector(halfway(failing)))) {
            SNode leaf = LAYOUT.snode(3);
            SNode inner = LAYOUT.snode(2);
            for (int i = 0; i < 128; i += 3) {
                rt.generic().setFloat("x", 1f, i, i);
            }
            rt.parallelism(2);
            // Every cell on the diagonal doubles; the blocks of its lower half are deactivated.
            assertThatThrownBy(() -> rt.forEach(leaf, (Kernel2) (i, j) -> {
                if (i == j && rt.generic().getFloat("x", i, j) == 1f) {
                    rt.generic().setFloat("x", 2f, i, j);
                    if (i < 64) {
                        rt.generic().deactivate(inner, i / 4, j / 4);
                    }
                }
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("injected");
            for (int i = 0; i < 128; i += 3) {
                assertThat(rt.generic().getFloat("x", i, i)).as("cell %d", i).isEqualTo(i < 64 ? 0f : 2f);
            }
            failing.set(false);
            rt.gc();
            assertThat(recycled(rt)).isZero();
            assertThat(rt.count("x")).as("16 cells in each block left").isEqualTo(16L * blocksOnTheDiagonalFrom(64));
        }
    }

    /** The dense blocks holding the written diagonal cells (i, i), i a multiple of 3 from {@code low}. */
    private static long blocksOnTheDiagonalFrom(int low) {
        return java.util.stream.IntStream.iterate(low + (3 - low % 3) % 3, i -> i < 128, i -> i + 3)
                .map(i -> i / 4).distinct().count();
    }

    private static long recycled(SNodeRuntime rt) {
        long total = 0;
        for (var snode : rt.memoryStats().snodes()) {
            if (snode.cells() != null) {
                total += snode.cells().cellsRecycled();
            }
        }
        return total;
    }
}
