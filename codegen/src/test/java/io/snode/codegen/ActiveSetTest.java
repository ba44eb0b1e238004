package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Kept active sets, kernels per task, and the block reduction. */
class ActiveSetTest {
    static final Layout L1 = StructForTest.L1;
    static final Layout L2 = StructForTest.L2;

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aKeptSetVisitsTheCellsActiveWhenItWasTaken(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L2, threads)) {
            SNode leaf = L2.snode(3);
            ActiveSet set = rt.activeSet(leaf);
            assertThat(set.cellCount()).isEqualTo(rt.count("phi")).isEqualTo(200);
            assertThat(set.blockCount()).isPositive().isLessThanOrEqualTo(200);
            assertThat(set.isCurrent()).isTrue();
            // Activations after the set was taken: the set stays current and does not see them.
            rt.generic().setFloat("phi", 1000f, 127, 127, 127);
            rt.generic().setFloat("phi", 1000f, 0, 0, 1);
            assertThat(set.isCurrent()).isTrue();
            double[] sum = {0};
            AtomicLong visits = new AtomicLong();
            rt.forEach(set, (Kernel3) (i, j, k) -> {
                visits.incrementAndGet();
                synchronized (sum) {
                    sum[0] += rt.generic().getFloat("phi", i, j, k);
                }
            });
            assertThat(visits.get()).isEqualTo(200);
            assertThat(sum[0]).isEqualTo(199 * 200 / 2.0);
            double blockSum = rt.reduceBlocks(set, () -> new double[1], (double[] acc, LeafBlock block) -> {
                for (int n = 0; n < block.cellCount(); n++) {
                    if (block.isActive(n)) {
                        acc[0] += block.cells().get(java.lang.foreign.ValueLayout.JAVA_FLOAT, n * block.cellBytes());
                    }
                }
            }, (a, b) -> new double[] {a[0] + b[0]})[0];
            assertThat(blockSum).isEqualTo(199 * 200 / 2.0);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aSetGoesStaleWhenCellsAreDeactivatedOrMemoryCollected(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads)) {
            SNode leaf = L1.snode(3);
            ActiveSet set = rt.activeSet(leaf);
            rt.generic().deactivate(L1.snode(2), 0, 0, 0);
            assertThat(set.isCurrent()).isFalse();
            assertThat(set.toString()).contains("stale");
            AtomicLong visits = new AtomicLong();
            assertThatThrownBy(() -> rt.forEach(set, (Kernel3) (i, j, k) -> visits.incrementAndGet()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stale").hasMessageContaining("activeSet(snode)");
            assertThatThrownBy(() -> rt.forEachBlock(set, block -> visits.incrementAndGet()))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(visits.get()).isZero();

            ActiveSet fresh = rt.activeSet(leaf);
            assertThat(fresh.isCurrent()).isTrue();
            rt.gc();
            assertThat(fresh.isCurrent()).isFalse();
            assertThatThrownBy(() -> rt.reduceBlocks(fresh, () -> new long[1], (long[] acc, LeafBlock b) -> acc[0]++,
                    (a, b) -> a)).isInstanceOf(IllegalStateException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aSetBelongsToItsRuntime(int threads) {
        try (SNodeRuntime first = StructForTest.filled(L1, threads);
             SNodeRuntime second = StructForTest.filled(L1, threads)) {
            ActiveSet set = first.activeSet(L1.snode(3));
            assertThatThrownBy(() -> second.forEach(set, (Kernel3) (i, j, k) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another runtime");
            assertThatThrownBy(() -> first.activeSet(L1.snode(0))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A kernel whose fields accumulate: one instance per task, so no atomics. */
    static final class Counting implements Kernel3 {
        long cells;
        long sumOfI;

        @Override
        public void apply(int i, int j, int k) {
            cells++;
            sumOfI += i;
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void kernelsPerTaskAccumulateWithoutAtomicsAndComeBackInBlockOrder(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads);
             SNodeRuntime sequential = StructForTest.filled(L1, 1)) {
            SNode leaf = L1.snode(3);
            List<Counting> parts = rt.forEachPerTask(leaf, Counting::new);
            List<Counting> reference = sequential.forEachPerTask(leaf, Counting::new);
            long cells = parts.stream().mapToLong(p -> p.cells).sum();
            assertThat(cells).isEqualTo(rt.count("phi"));
            assertThat(parts).hasSameSizeAs(reference);
            for (int n = 0; n < parts.size(); n++) {
                assertThat(parts.get(n).cells).isEqualTo(reference.get(n).cells);
                assertThat(parts.get(n).sumOfI).isEqualTo(reference.get(n).sumOfI);
            }
            boolean[] other = {false};
            assertThatThrownBy(() -> rt.forEachPerTask(leaf, () -> {
                other[0] = !other[0];
                return other[0] ? new Counting() : (Kernel3) (i, j, k) -> { };
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one class");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aThrowingBlockKernelStopsTheLaunchWithTheBlockOrigin(int threads) {
        try (SNodeRuntime rt = StructForTest.filled(L1, threads)) {
            SNode leaf = L1.snode(3);
            KernelException e = catchThrowableOfType(KernelException.class, () -> rt.reduceBlocks(leaf,
                    () -> new long[1], (long[] acc, LeafBlock block) -> {
                        if (block.origin(0) == 32 && block.origin(1) == 8 && block.origin(2) == 48) {
                            throw new ArithmeticException("bad block");
                        }
                    }, (a, b) -> a));
            assertThat(e).isNotNull();
            assertThat(e.coordinates()).containsExactly(32, 8, 48);
            assertThat(e.getCause()).isInstanceOf(ArithmeticException.class);
            KernelException again = catchThrowableOfType(KernelException.class, () -> rt.forEachBlock(leaf, block -> {
                throw new IllegalStateException("always");
            }));
            assertThat(again).isNotNull();
            assertThat(again.coordinates()).hasSize(3);
            assertThat(again.coordinates()[0] % 8).isZero();
            // Still usable.
            long cells = rt.reduceBlocks(leaf, () -> new long[1], (long[] acc, LeafBlock block) ->
                    acc[0] += block.activeCount(), (a, b) -> new long[] {a[0] + b[0]})[0];
            assertThat(cells).isEqualTo(rt.count("phi"));
        }
    }
}
