package io.snode.codegen.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.internal.structfor.Launcher;
import io.snode.codegen.kernel.Kernel3;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs in both Surefire executions ({@code snode.test.expectVector} says whether this JVM has
 * {@code jdk.incubator.vector}): the walks and snapshots use the provider's kernels, the
 * generated walks call {@link PointerScan} only when it has vector lanes, and struct-for over
 * pointer, bitmasked, dense and dynamic nodes gives the same answers in both.
 */
@Tag("scalar-fallback")
class ScanModeTest {

    private static final boolean EXPECT_VECTOR = Boolean.parseBoolean(
            System.getProperty("snode.test.expectVector", "true"));
    /** 64 pointer cells per container: a multiple of every vector's lane count. */
    private static final Layout POINTERS = Layout.parse("pointer(ijk,4).pointer(ijk,4).dense(ijk,8).place(f32 phi)");

    @Test
    void thePointerScanHasTheProvidersLanes() {
        assertThat(ModuleLayer.boot().findModule(VectorizationProvider.VECTOR_MODULE).isPresent())
                .isEqualTo(EXPECT_VECTOR);
        assertThat(PointerScan.LANES).isEqualTo(VectorizationProvider.getInstance().scanKernels().lanes());
        assertThat(PointerScan.LANES > 1).isEqualTo(EXPECT_VECTOR);
    }

    @Test
    void generatedWalksCallThePointerScanExactlyWhenItHasVectorLanes() {
        try (SNodeRuntime rt = SNodeRuntime.compile(POINTERS)) {
            rt.generic().setFloat("phi", 1f, 3, 40, 100);
            List<GeneratedClass> listed = new ArrayList<>();
            try (Launcher launcher = new Launcher(rt.generic().internalTree(), 1, listed::add)) {
                ActiveBlocks blocks = launcher.snapshot(POINTERS.snode(3));
                assertThat(blocks.size()).isEqualTo(1);
                assertThat(blocks.base(0)).containsExactly(3 / 8, 40 / 8, 100 / 8); // in blocks
            }
            assertThat(listed).isNotEmpty();
            for (GeneratedClass walk : listed) {
                assertThat(walk.disassembly().contains("io/snode/codegen/internal/PointerScan.activeWords"))
                        .as(walk.name()).isEqualTo(EXPECT_VECTOR);
            }
        }
    }

    @Test
    void structForOverEveryKindCountsTheActiveCells() {
        Layout layout = Layout.parse("pointer(ijk,4).bitmasked(ijk,4){ dense(ijk,8).place(f32 a); dynamic(l,64).place(i32 p) }");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            // Two bitmasked cells under one pointer cell, one under another; 3 dense blocks of 512.
            rt.generic().setFloat("a", 1f, 0, 0, 0);
            rt.generic().setFloat("a", 2f, 8, 0, 0);
            rt.generic().setFloat("a", 3f, 100, 100, 100);
            for (int n = 0; n < 5; n++) {
                rt.generic().setInt("p", n, 0, 0, 0, n);
            }
            AtomicLong dense = new AtomicLong();
            rt.forEach("a", (Kernel3) (i, j, k) -> dense.incrementAndGet());
            assertThat(dense.get()).isEqualTo(3 * 512);
            assertThat(rt.sum("a")).isEqualTo(6.0);
            assertThat(rt.count("p")).isEqualTo(5);
            assertThat(rt.sum("p")).isEqualTo(0 + 1 + 2 + 3 + 4);
        }
    }
}
