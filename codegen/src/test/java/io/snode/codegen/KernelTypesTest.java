package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.ViewKernel2;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A kernel is accepted whatever way its class implements KernelN (or ViewKernelN): directly,
 * through an interface of the application's that extends it, or through a superclass; a class
 * implementing several of them is launched with the one that takes the SNode's coordinates.
 */
class KernelTypesTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,4).bitmasked(ij,8).place(f32 v)");

    /** An application's kernel type. */
    public interface CellCounter extends Kernel2 {
    }

    /** A base class of the application's. */
    public abstract static class CountingKernel implements Kernel2 {
        final AtomicLong visits = new AtomicLong();

        @Override
        public void apply(int i, int j) {
            visits.incrementAndGet();
        }
    }

    public static final class Counting extends CountingKernel {
    }

    /** Both forms, as a class that serves 1-D and 2-D nodes might. */
    public static final class Both implements Kernel1, Kernel2 {
        final AtomicLong ones = new AtomicLong();
        final AtomicLong twos = new AtomicLong();

        @Override
        public void apply(int i) {
            ones.incrementAndGet();
        }

        @Override
        public void apply(int i, int j) {
            twos.incrementAndGet();
        }
    }

    /** The view kernel's view. */
    public interface V {
        float v();
    }

    public interface ViewCounter extends ViewKernel2<V> {
    }

    @Test
    void kernelsThroughSubInterfacesSuperclassesOrSeveralFormsAreLaunched() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            rt.parallelism(2);
            for (int n = 0; n < 50; n++) {
                rt.generic().setFloat("v", n + 1, (n * 7) % 32, (n * 13) % 32);
            }
            long cells = rt.count("v");
            SNode leaf = LAYOUT.field("v").snode();

            AtomicLong viaInterface = new AtomicLong();
            CellCounter counter = (i, j) -> viaInterface.incrementAndGet();
            rt.forEach(leaf, counter);
            assertThat(viaInterface).hasValue(cells);

            Counting counting = new Counting();
            rt.forEach(leaf, counting);
            assertThat(counting.visits).hasValue(cells);
            List<Counting> perTask = rt.forEachPerTask(leaf, Counting::new);
            assertThat(perTask.stream().mapToLong(k -> k.visits.get()).sum()).isEqualTo(cells);

            Both both = new Both();
            rt.forEach(leaf, both);
            assertThat(both.twos).hasValue(cells);
            assertThat(both.ones).hasValue(0);

            AtomicLong views = new AtomicLong();
            ViewCounter viewCounter = (view, i, j) -> views.incrementAndGet();
            rt.forEach(leaf, V.class, viewCounter);
            assertThat(views).hasValue(cells);

            assertThatThrownBy(() -> rt.forEach("v", (Kernel2) null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("kernel");
        }
    }

    @Test
    void aKernelOfNoFittingFormIsRefusedWithTheFormsItHas() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 v)"))) {
            rt.generic().setFloat("v", 1f, 1, 2, 3);
            SNode leaf = rt.layout().field("v").snode();
            assertThatThrownBy(() -> rt.forEach(leaf, new Both()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Kernel1, Kernel2").hasMessageContaining("3 coordinates");
        }
    }
}
