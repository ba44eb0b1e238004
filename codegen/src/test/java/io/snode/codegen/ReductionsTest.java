package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reductions visit the cells that forEach visits, for every kind of target. */
class ReductionsTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aWritePastTheLengthIntoALaterChunkCountsEveryIndexBelowTheLength(int threads) {
        Layout layout = Layout.parse("dynamic(i,16,4).place(i32 p)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(threads);
            rt.generic().setInt("p", 5, 8);
            SNode list = layout.snode(1);
            assertThat(rt.generic().length(list)).isEqualTo(9);
            assertThat(rt.generic().isActive(list, 3)).isTrue();
            AtomicLong visits = new AtomicLong();
            rt.forEach("p", (Kernel1) i -> visits.incrementAndGet());
            assertThat(visits.get()).isEqualTo(9);
            assertThat(rt.count("p")).isEqualTo(9);
            assertThat(rt.min("p")).isEqualTo(0.0);
            assertThat(rt.max("p")).isEqualTo(5.0);
            assertThat(rt.sum("p")).isEqualTo(5.0);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void listsUnderPointersAndPointerTargetsAgreeWithForEach(int threads) {
        Layout layout = Layout.parse("pointer(i,8){ dynamic(j,64,4).place(f32 p); pointer(j,4).place(f64 q) }");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(threads);
            rt.generic().setFloat("p", -2f, 3, 17); // chunks 0..3 never written: 17 zeros, then -2
            rt.generic().appendFloat("p", 4f, 5);
            rt.generic().setFloat("p", 1f, 5, 40);
            rt.generic().setDouble("q", 7.0, 6, 1);
            rt.generic().setDouble("q", -3.0, 2, 3);
            AtomicLong visits = new AtomicLong();
            rt.forEach("p", (Kernel2) (i, j) -> visits.incrementAndGet());
            assertThat(rt.count("p")).isEqualTo(visits.get()).isEqualTo(18 + 41);
            assertThat(rt.min("p")).isEqualTo(-2.0);
            assertThat(rt.max("p")).isEqualTo(4.0);
            assertThat(rt.sum("p")).isEqualTo(3.0);
            assertThat(rt.count("q")).isEqualTo(2);
            assertThat(rt.sum("q")).isEqualTo(4.0);
            assertThat(rt.min("q")).isEqualTo(-3.0);
        }
    }
}
