package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.bench.workload.SNodeContender.Grid;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.samples.NarrowBand;
import org.junit.jupiter.api.Test;

class GridLoopTest {
    @Test
    void everyCopyIsAClassOfItsOwnSoThatItsCallSitesHaveProfilesOfTheirOwn() {
        GridLoop first = GridLoop.fresh();
        GridLoop second = GridLoop.fresh();
        assertThat(first.getClass()).isNotSameAs(second.getClass()).isNotSameAs(GridLoop.Body.class);
        assertThat(first.getClass().isHidden()).isTrue();
        assertThat(second.getClass().isHidden()).isTrue();
    }

    @Test
    void theCopiesWriteAndReadWhatTheListSays() {
        NarrowBand band = QuickData.get().sorted();
        int half = band.size() / 2;
        try (SNodeRuntime runtime = SNodeRuntime.compile(Layouts.l2())) {
            Grid bound = runtime.bind(Grid.class);
            GridLoop.fresh().write(bound, band, 0, half);
            assertThat(runtime.count("phi")).isEqualTo(half);
            // The rest in three interleaved parts, each through a copy of its own, as W5's threads.
            for (int part = 0; part < 3; part++) {
                GridLoop.fresh().writeEvery(runtime.accessor(Grid.class), band, half + part, 3);
            }
            assertThat(runtime.count("phi")).isEqualTo(band.size());
            int[] is = new int[band.size()];
            int[] js = new int[band.size()];
            int[] ks = new int[band.size()];
            double expected = 0;
            for (int n = 0; n < band.size(); n++) {
                is[n] = band.i(n);
                js[n] = band.j(n);
                ks[n] = band.k(n);
                expected += band.value(n);
            }
            assertThat(GridLoop.fresh().read(runtime.accessor(Grid.class), is, js, ks)).isEqualTo(expected);
            assertThat(GridLoop.fresh().read(bound, is, js, ks)).isEqualTo(expected);
        }
    }
}
