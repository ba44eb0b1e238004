package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.kernel.Kernel3;
import io.snode.runtime.internal.UnclosedRuntimes;
import io.snode.runtime.testing.LogCapture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An {@code SNodeRuntime} dropped without {@code close()} after the usual uses (a bound
 * interface, a launch of a kernel whose class lives on, a reduction, a collection) is reported
 * once, under the name its {@code toString()} gives; one that was closed is not. Until 12-06
 * nothing reported it (and a static structure that kept dropped runtimes reachable would make
 * this test fail: the report comes only once the runtime is unreachable).
 */
class UnclosedRuntimeReportTest {
    private static final Layout LAYOUT = Layout.parse("pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
    /** A kernel of a class that outlives every runtime (a static lambda). */
    private static final AtomicLong VISITED = new AtomicLong();
    private static final Kernel3 COUNT = (i, j, k) -> VISITED.incrementAndGet();

    public interface Grid {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    @Test
    void aDroppedRuntimeIsReportedOnceByNameAndAClosedOneNever() {
        try (LogCapture log = new LogCapture(UnclosedRuntimes.LOGGER).afterEachCollection(UnclosedRuntimes::report)) {
            String closed = useAndClose();
            String dropped = useAndDrop();
            log.collectUntilLogged("SNode runtime " + dropped + " of layout");
            // the report's name is the one toString() gives
            assertThat(log.recordsContaining("SNode runtime " + dropped + " of layout")).hasSize(1);
            assertThat(log.recordsContaining("SNode runtime " + closed + " of layout")).isEmpty();
        }
    }

    private static String useAndClose() {
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            return use(runtime);
        }
    }

    private static String useAndDrop() {
        return use(SNodeRuntime.compile(LAYOUT));
    }

    /** Writes, launches, sums and collects; the runtime's name in its {@code toString()}. */
    private static String use(SNodeRuntime runtime) {
        Grid grid = runtime.bind(Grid.class);
        grid.phi(1, 2, 3, 4f);
        runtime.forEach("phi", COUNT);
        assertThat(runtime.sum("phi")).isEqualTo(4.0);
        runtime.gc();
        String name = runtime.generic().label();
        assertThat(runtime.toString()).startsWith("SNodeRuntime " + name + " of layout");
        return name;
    }
}
