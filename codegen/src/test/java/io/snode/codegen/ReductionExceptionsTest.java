package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@code reduceBlocks} passes on of its {@code identity} and {@code combiner}: their
 * exceptions as themselves, checked ones (thrown sneakily) too; until 12-06 a checked one came
 * wrapped in an {@link IllegalStateException} that blamed "a struct-for driver".
 */
class ReductionExceptionsTest {
    static final Layout L = Layout.parse("pointer(i,4096).dense(i,64).place(f32 x)");

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable thrown) throws T {
        throw (T) thrown;
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2, 4})
    void checkedExceptionsOfIdentityAndCombinerReachTheCallerAsThemselves(int threads) {
        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            rt.parallelism(threads);
            for (int b = 0; b < 4096; b++) { // 262,144 cells: several tasks, so the combiner runs
                rt.generic().setFloat("x", 1f, b * 64);
            }
            SNode leaf = L.snode(2);
            IOException fromIdentity = new IOException("identity");
            Throwable thrown = catchThrowable(() -> rt.<long[]>reduceBlocks(leaf, () -> {
                throw sneaky(fromIdentity);
            }, (count, block) -> count[0]++, (a, b) -> a));
            assertThat(thrown).isSameAs(fromIdentity);
            IOException fromCombiner = new IOException("combiner");
            thrown = catchThrowable(() -> rt.<long[]>reduceBlocks(leaf, () -> new long[1], (count, block) -> count[0]++,
                    (a, b) -> {
                        throw sneaky(fromCombiner);
                    }));
            assertThat(thrown).isSameAs(fromCombiner);
            long[] blocks = rt.reduceBlocks(leaf, () -> new long[1], (count, block) -> count[0]++,
                    (a, b) -> new long[] {a[0] + b[0]});
            assertThat(blocks[0]).as("a launch after the failures").isEqualTo(4096);
        }
    }
}
