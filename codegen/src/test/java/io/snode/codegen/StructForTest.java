package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("scalar-fallback")
class StructForTest {
    static final Layout L1 = Layout.parse("pointer(ijk,4).pointer(ijk,4).dense(ijk,8).place(f32 phi)");
    static final Layout L2 = Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");

    static SNodeRuntime filled(Layout layout, int threads) {
        SNodeRuntime rt = SNodeRuntime.compile(layout);
        rt.parallelism(threads);
        for (int n = 0; n < 200; n++) {
            rt.generic().setFloat("phi", n, (n * 37) % 128, (n / 128 * 64 + n * 11) % 128, (n * 53) % 128);
        }
        return rt;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void cellsActivatedByTheLaunchAreNotVisited(int threads) {
        try (SNodeRuntime rt = filled(L1, threads)) {
            long before = rt.count("phi");
            AtomicLong visits = new AtomicLong();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                visits.incrementAndGet();
                rt.generic().setFloat("phi", 1f, 127 - i, 127 - j, (k + 64) % 128); // may activate new blocks
            });
            assertThat(visits.get()).isEqualTo(before);
            assertThat(rt.count("phi")).isGreaterThanOrEqualTo(before);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void cellsDeactivatedDuringTheLaunchReadTheirOldValueOrZero(int threads) {
        try (SNodeRuntime rt = filled(L2, threads)) {
            SNode inner = L2.snode(2);
            long before = rt.count("phi");
            double sumBefore = rt.sum("phi");
            AtomicLong visits = new AtomicLong();
            Set<Float> seen = ConcurrentHashMap.newKeySet();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                visits.incrementAndGet();
                seen.add(rt.generic().getFloat("phi", i, j, k));
                rt.generic().deactivate(inner, i >> 3, j >> 3, k >> 3);
            });
            assertThat(visits.get()).isEqualTo(before);
            assertThat(rt.count("phi")).isZero();
            assertThat(sumBefore).isPositive();
            // The launch deactivated blocks, so the runtime collected after it.
            assertThat(rt.memoryStats().of(inner).cells().cellsRecycled()).isZero();
            assertThat(rt.memoryStats().of(inner).cells().cellsInUse()).isZero();
            assertThat(rt.lastGcStatistics().cellsReclaimed()).isPositive();
            assertThat(rt.lastGcStatistics().of(inner.path()).cellsReclaimed())
                    .isEqualTo(rt.lastGcStatistics().cellsReclaimed());
            for (float value : seen) {
                assertThat(value).isBetween(0f, 199f);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aThrowingKernelStopsTheLaunchWithItsCoordinates(int threads) {
        try (SNodeRuntime rt = filled(L1, threads)) {
            KernelException e = catchThrowableOfType(KernelException.class, () -> rt.forEach("phi", (Kernel3) (i, j, k) -> {
                if (i == 37 && j == 11 && k == 53) {
                    throw new IllegalStateException("boom");
                }
            }));
            assertThat(e).isNotNull();
            assertThat(e.coordinates()).containsExactly(37, 11, 53);
            assertThat(e.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(e).hasMessageContaining("[37, 11, 53]").hasMessageContaining("dense(ijk,8)");
            // The runtime stays usable.
            AtomicLong visits = new AtomicLong();
            rt.forEach("phi", (Kernel3) (i, j, k) -> visits.incrementAndGet());
            assertThat(visits.get()).isEqualTo(rt.count("phi"));
        }
    }

    /**
     * A launch nested in a per-cell kernel that fails passes its own KernelException through the
     * outer launch, as a block kernel's does: the user's exception is its cause, one level down.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aNestedLaunchsKernelExceptionPassesThroughAPerCellKernel(int threads) {
        try (SNodeRuntime rt = filled(L1, threads)) {
            IllegalStateException boom = new IllegalStateException("boom");
            KernelException e = catchThrowableOfType(KernelException.class, () -> rt.forEach("phi", (Kernel3) (i, j, k) -> {
                if (i == 37 && j == 11 && k == 53) {
                    rt.forEach("phi", (Kernel3) (a, b, c) -> {
                        if (a == 5 && b == 6 && c == 7) {
                            throw boom;
                        }
                    });
                }
            }));
            assertThat(e).isNotNull();
            assertThat(e.getCause()).isSameAs(boom);
            assertThat(e.coordinates()).containsExactly(5, 6, 7);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void reductionsAgreeWithAKernelAndDoNotDependOnParallelism(int threads) {
        try (SNodeRuntime rt = filled(L2, threads); SNodeRuntime sequential = filled(L2, 1)) {
            double[] sum = {0};
            long[] count = {0};
            sequential.forEach("phi", (Kernel3) (i, j, k) -> {
                sum[0] += sequential.generic().getFloat("phi", i, j, k);
                count[0]++;
            });
            assertThat(rt.count("phi")).isEqualTo(count[0]).isEqualTo(200);
            assertThat(rt.sum("phi")).isEqualTo(sequential.sum("phi")).isEqualTo(199 * 200 / 2.0);
            assertThat(rt.min("phi")).isZero();
            assertThat(rt.max("phi")).isEqualTo(199);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void theBlockFormHandsOverWholeLeafBlocks(int threads) {
        try (SNodeRuntime rt = filled(L2, threads)) {
            SNode leaf = L2.snode(3);
            AtomicLong cells = new AtomicLong();
            double[] sums = new double[1];
            rt.forEachBlock(leaf, (LeafBlock block) -> {
                assertThat(block.cellCount()).isEqualTo(512);
                assertThat(block.origin(0) % 8).isZero();
                double local = 0;
                for (int n = 0; n < block.cellCount(); n++) {
                    if (block.isActive(n)) {
                        cells.incrementAndGet();
                        float value = block.cells().get(ValueLayout.JAVA_FLOAT,
                                n * block.cellBytes() + block.fieldOffset(L2.field("phi")));
                        int i = block.origin(0) + n / 64;
                        int j = block.origin(1) + (n / 8) % 8;
                        int k = block.origin(2) + n % 8;
                        assertThat(value).isEqualTo(rt.generic().getFloat("phi", i, j, k));
                        local += value;
                    }
                }
                synchronized (sums) {
                    sums[0] += local;
                }
            });
            assertThat(cells.get()).isEqualTo(200);
            assertThat(sums[0]).isEqualTo(199 * 200 / 2.0);
        }
    }

    /**
     * A block driver's run hands its range to the loop over blocks in batches of 16 (so the JIT
     * compiles that loop early); every block is visited once, whatever the range's length.
     */
    @Test
    void aBlockDriverRunsItsRangeInBatches() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L1)) {
            rt.parallelism(1);
            for (int b = 0; b < 37; b++) { // 37 blocks: two whole batches and a part of one
                rt.generic().setFloat("phi", 1f, (b % 16) * 8, (b / 16) * 8, 0);
            }
            long[] blocks = rt.reduceBlocks(L1.snode(3), () -> new long[1], (long[] acc, LeafBlock block) -> acc[0]++,
                    (a, b) -> new long[] {a[0] + b[0]});
            assertThat(blocks[0]).isEqualTo(37);
            String listing = rt.generatedCode().stream().filter(c -> c.name().contains("ReduceDriver")).findFirst()
                    .orElseThrow().disassembly();
            assertThat(listing).contains("public static run(Lio/snode/codegen/kernel/BlockReducer;Ljava/lang/Object;",
                    "public static batch(Lio/snode/codegen/kernel/BlockReducer;Ljava/lang/Object;",
                    "INVOKESTATIC java/lang/Math.min (II)I", "INVOKEINTERFACE io/snode/codegen/kernel/BlockReducer.accumulate");
            assertThat(listing).containsPattern("INVOKESTATIC io/snode/codegen/generated/ReduceDriver[0-9]+\\.batch");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void theDriverIsGeneratedPerKernelClassAndListed(int threads) {
        try (SNodeRuntime rt = filled(L1, threads)) {
            Kernel3 first = (i, j, k) -> { };
            rt.forEach("phi", first);
            rt.forEach("phi", first);
            rt.forEach("phi", (Kernel3) (i, j, k) -> { });
            long drivers = rt.generatedCode().stream().filter(c -> c.name().contains("Driver")).count();
            assertThat(drivers).isEqualTo(2);
            String listing = rt.generatedCode().stream().filter(c -> c.name().contains("Driver")).findFirst()
                    .orElseThrow().disassembly();
            assertThat(listing).contains("run(Lio/snode/codegen/kernel/Kernel3;Lio/snode/codegen/internal/structfor/ActiveBlocks;II)V",
                    "INVOKEINTERFACE io/snode/codegen/kernel/Kernel3.apply (III)V");
        }
    }

    /**
     * Changing the parallelism keeps the generated drivers and walks: the same launches after it
     * define no new class (new ones would make the JIT's call sites polymorphic over copies of one
     * driver), and give the same results on the new thread count.
     */
    @Test
    void changingTheParallelismGeneratesNoClassAgain() {
        Layout layout = Layout.parse("pointer(ijk,8).pointer(ijk,8).bitmasked(ijk,4).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            for (int n = 0; n < 4000; n++) {
                rt.generic().setFloat("phi", n * 0.5f, (n * 37) % 256, (n * 11) % 256, (n * 5) % 256);
            }
            rt.parallelism(1);
            AtomicLong cells = new AtomicLong();
            Kernel3 counting = (i, j, k) -> cells.incrementAndGet();
            rt.forEach("phi", counting);
            double sum = rt.sum("phi");
            int classes = rt.generatedCode().size();
            for (int threads : new int[] {2, 3, 1}) {
                rt.parallelism(threads);
                rt.gc(); // the epoch moves: the launches below walk again
                cells.set(0);
                rt.forEach("phi", counting);
                assertThat(cells.get()).as("cells at parallelism %d", threads).isEqualTo(rt.count("phi"));
                assertThat(rt.sum("phi")).isEqualTo(sum);
                assertThat(rt.generatedCode()).as("classes after parallelism %d", threads).hasSize(classes);
            }
        }
    }
}
