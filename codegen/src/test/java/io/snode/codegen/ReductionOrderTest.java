package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.internal.vectorization.ReductionKernels;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reductions over launches of several ranges (more than 32,768 active cells), for the layouts
 * of the benchmarks (dense and bitmasked 8^3 leaves under pointers), a strided field next to
 * another, a pointer target and lists of many chunks: {@code sum} is, to the bit, the documented
 * order over the same ranges as {@code reduceBlocks} (its partial sums per range, added lane by
 * lane in the split's tree, folded pairwise), the same for 1 and 3 threads; the values are chosen
 * so that a plain running sum in the same ranges gives other bits. {@code min}, {@code max} and
 * {@code count} skip the inactive cells of bitmasked blocks (which hold zero in memory). Tagged to
 * run again without the Vector API: the scalar loops must give the same bits.
 */
@Tag("scalar-fallback")
class ReductionOrderTest {

    /** Magnitudes from 1e-6 to 1e6, both signs, rounded to float: their sum depends on the order. */
    private static float value(Random random) {
        double magnitude = Math.pow(10, random.nextInt(13) - 6) * (1 + random.nextDouble());
        return (float) (random.nextBoolean() ? magnitude : -magnitude);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "pointer(ijk,16).dense(ijk,8).place(f32 phi)",
            "pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)",
            "pointer(ijk,16).dense(ijk,8).place(f64 phi)",
            "pointer(ijk,16).bitmasked(ijk,8).place(f64 phi)",
            "pointer(ijk,16).bitmasked(ijk,8).place(f32 pad, f32 phi, i32 other)"})
    void sumOfLeavesIsTheDocumentedOrderOverTheRangesOfReduceBlocks(String text) {
        Layout layout = Layout.parse(text);
        Random random = new Random(text.hashCode());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode leaf = layout.field("phi").snode();
            PlacedField phi = layout.field("phi");
            boolean masked = text.contains("bitmasked");
            // About 390 blocks of 8^3: about 200,000 cells dense, 80,000 masked (two in five).
            for (int b = 0; b < 400; b++) {
                int bi = random.nextInt(16) * 8;
                int bj = random.nextInt(16) * 8;
                int bk = random.nextInt(16) * 8;
                for (int c = 0; c < 512; c++) {
                    if (masked && random.nextInt(5) >= 2) {
                        continue;
                    }
                    float v = value(random);
                    int i = bi + c / 64;
                    int j = bj + c / 8 % 8;
                    int k = bk + c % 8;
                    if (text.contains("f64")) {
                        rt.generic().setDouble("phi", v * (1 + 1e-9), i, j, k); // not a float
                    } else {
                        rt.generic().setFloat("phi", v, i, j, k);
                    }
                }
            }
            assertThat(rt.count("phi")).as("several ranges").isGreaterThan(2 * 32768L);
            rt.parallelism(1);
            double[] lanes = rt.reduceBlocks(leaf, () -> new double[ReductionKernels.LANES],
                    (double[] partial, LeafBlock block) -> {
                        long offset = block.fieldOffset(phi);
                        for (long n = 0; n < block.cellCount(); n++) {
                            if (block.isActive(n)) {
                                long at = n * block.cellBytes() + offset;
                                partial[(int) (n % ReductionKernels.LANES)] += text.contains("f64")
                                        ? block.cells().get(ValueLayout.JAVA_DOUBLE, at)
                                        : block.cells().get(ValueLayout.JAVA_FLOAT, at);
                            }
                        }
                    }, (left, right) -> {
                        for (int lane = 0; lane < left.length; lane++) {
                            left[lane] += right[lane];
                        }
                        return left;
                    });
            double expected = ReductionKernels.foldLanes(lanes);
            double[] running = rt.reduceBlocks(leaf, () -> new double[1], (double[] partial, LeafBlock block) -> {
                long offset = block.fieldOffset(phi);
                for (long n = 0; n < block.cellCount(); n++) {
                    if (block.isActive(n)) {
                        long at = n * block.cellBytes() + offset;
                        partial[0] += text.contains("f64") ? block.cells().get(ValueLayout.JAVA_DOUBLE, at)
                                : block.cells().get(ValueLayout.JAVA_FLOAT, at);
                    }
                }
            }, (left, right) -> new double[] {left[0] + right[0]});
            assertThat(running[0]).as("the data makes the order matter").isNotEqualTo(expected);
            for (int threads : new int[] {1, 3}) {
                rt.parallelism(threads);
                assertThat(Double.doubleToLongBits(rt.sum("phi"))).as("%s with %d threads: %s, expected %s", text,
                        threads, rt.sum("phi"), expected).isEqualTo(Double.doubleToLongBits(expected));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void minMaxAndCountOfBitmaskedLeavesSkipTheZerosOfInactiveCells(int threads) {
        Layout layout = Layout.parse("pointer(ijk,16).bitmasked(ijk,8).place(f32 up, f32 down)");
        Random random = new Random(8);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(threads);
            long cells = 0;
            float smallest = Float.POSITIVE_INFINITY;
            float largest = Float.NEGATIVE_INFINITY;
            for (int b = 0; b < 300; b++) {
                int bi = random.nextInt(16) * 8;
                int bj = random.nextInt(16) * 8;
                int bk = random.nextInt(16) * 8;
                for (int c = 0; c < 512; c += 1 + random.nextInt(4)) {
                    int i = bi + c / 64;
                    int j = bj + c / 8 % 8;
                    int k = bk + c % 8;
                    if (!rt.generic().isActive(layout.field("up").snode(), i, j, k)) {
                        cells++;
                    }
                    float v = 1 + random.nextFloat() * 100;
                    rt.generic().setFloat("up", v, i, j, k);
                    rt.generic().setFloat("down", -v, i, j, k);
                    smallest = Math.min(smallest, v);
                    largest = Math.max(largest, v);
                }
            }
            assertThat(rt.count("up")).isEqualTo(cells).isGreaterThan(32768L);
            assertThat(rt.min("up")).as("not the inactive cells' zeros").isEqualTo(smallest);
            assertThat(rt.max("down")).as("not the inactive cells' zeros").isEqualTo(-smallest);
            assertThat(rt.max("up")).isEqualTo(largest);
            assertThat(rt.min("down")).isEqualTo(-largest);
        }
    }

    /** Pointer targets (read a cell at a time) and lists (a chunk at a time, from any partial sum) over several ranges. */
    @ParameterizedTest
    @ValueSource(strings = {"pointer(i,256).pointer(i,256).place(f32 phi)", "pointer(i,64).dynamic(j,4096,24).place(f32 phi)",
            "pointer(i,64).dynamic(j,4096,32).place(f64 phi)"})
    void sumOverPointerTargetsAndListsIsTheSameForAnyParallelismAndMatchesTheModel(String text) {
        Layout layout = Layout.parse(text);
        Random random = new Random(text.hashCode());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            PlacedField phi = layout.field("phi");
            if (text.contains("dynamic")) {
                for (int i = 0; i < 40; i++) {
                    int length = 1000 + random.nextInt(3000);
                    for (int n = 0; n < length; n++) {
                        if (text.contains("f64")) {
                            rt.generic().appendDouble("phi", value(random) * (1 + 1e-9), i);
                        } else {
                            rt.generic().appendFloat("phi", value(random), i);
                        }
                    }
                }
            } else {
                for (int n = 0; n < 60_000; n++) { // about 39,000 distinct cells
                    rt.generic().setFloat("phi", value(random), random.nextInt(65536));
                }
            }
            assertThat(rt.count("phi")).as("several ranges").isGreaterThan(32768L);
            rt.parallelism(1);
            double sequential = rt.sum("phi");
            rt.parallelism(3);
            assertThat(Double.doubleToLongBits(rt.sum("phi"))).as(text).isEqualTo(Double.doubleToLongBits(sequential));
            double model = 0;
            for (double v : values(rt, phi)) {
                model += v;
            }
            assertThat(sequential).isCloseTo(model, within(1e-9 * Math.abs(model) + 1e-6));
        }
    }

    private static List<Double> values(SNodeRuntime rt, PlacedField field) {
        List<Double> out = Collections.synchronizedList(new ArrayList<>());
        SNode node = field.snode();
        rt.forEach(node, StructForProperties.kernel(node.indexAxes().size(),
                at -> out.add(ReductionOrderProperties.value(field.type(), rt.generic().readBits(field, at)))));
        return out;
    }
}
