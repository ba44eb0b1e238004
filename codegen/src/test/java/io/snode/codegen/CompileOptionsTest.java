package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.gc.GcStatistics;
import io.snode.gc.ParallelCollector;
import io.snode.runtime.Collector;
import io.snode.runtime.RuntimeOptions;
import org.junit.jupiter.api.Test;

/** Options given to {@code compile} change what they name and nothing else. */
class CompileOptionsTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,64).dense(i,8).place(f32 x)");

    private static GcStatistics collectOneCell(SNodeRuntime rt) {
        SNode block = LAYOUT.snode(1);
        rt.generic().setFloat("x", 1f, 9);
        assertThat(rt.generic().deactivate(block, 1)).isTrue();
        rt.gc();
        return rt.lastGcStatistics();
    }

    @Test
    void aMemoryCapChangesTheCapOnlyNotTheCollector() {
        long cap = 64L << 20;
        GcStatistics plain;
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            plain = collectOneCell(rt);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
            GcStatistics capped = collectOneCell(rt);
            assertThat(capped).as("the parallel collector ran and reported").isNotEqualTo(GcStatistics.NONE);
            assertThat(capped.cellsReclaimed()).isEqualTo(1);
            assertThat(capped.parallelism()).isEqualTo(plain.parallelism());
            assertThat(rt.memoryStats().pool().capBytes()).isEqualTo(cap);
        }
    }

    /** Two runtimes sharing one collector each report their own collections, none before its first. */
    @Test
    void runtimesSharingACollectorReportTheirOwnCollections() {
        Layout other = Layout.parse("pointer(ij,4).dense(ij,2).place(f32 y)");
        try (ParallelCollector shared = ParallelCollector.builder().parallelism(2).build();
             SNodeRuntime a = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withCollector(shared));
             SNodeRuntime b = SNodeRuntime.compile(other, RuntimeOptions.DEFAULT.withCollector(shared))) {
            GcStatistics ofA = collectOneCell(a);
            assertThat(ofA.of(LAYOUT.snode(1).path()).cellsReclaimed()).isEqualTo(1);
            assertThat(b.lastGcStatistics()).as("b has not collected").isEqualTo(GcStatistics.NONE);
            b.gc();
            assertThat(b.lastGcStatistics().of(other.snode(1).path()).cellsReclaimed()).isZero();
            assertThat(a.lastGcStatistics()).as("a's own, after b collected").isEqualTo(ofA);
            shared.close();
            org.assertj.core.api.Assertions.assertThatThrownBy(a::gc).isInstanceOf(IllegalStateException.class);
            assertThat(a.lastGcStatistics()).as("a failed collection keeps the previous statistics").isEqualTo(ofA);
        }
    }

    @Test
    void aCollectorChosenByTheUserIsKept() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withCollector(Collector.SERIAL))) {
            assertThat(collectOneCell(rt)).isEqualTo(GcStatistics.NONE);
            assertThat(rt.memoryStats().of(LAYOUT.snode(1)).cells().cellsRecycled()).isZero();
        }
    }
}
