package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.RuntimeOptions;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A load gives each hash container the table its records need at once, the one that inserting
 * them one by one ends with, instead of growing it in stages (16, 64, 256, ... entries) whose
 * outgrown tables wait for a collection. So a snapshot reads back under a memory cap of what
 * its runtime held after a collection (until 12-06 the load also needed the outgrown tables:
 * 100,000 cells in one container needed 7.19 MB against the 5.81 MB the runtime held, and the
 * cap refused the last table), and the loaded runtime holds what the written one did.
 */
class SnapshotHashTablesTest {
    @TempDir
    Path directory;

    @Test
    void oneLargeContainerReadsBackUnderTheCapOfWhatItsRuntimeHeld() throws Exception {
        check(Layout.parse("hash(ijk,65536).place(f32 v)"), 100_000, 1);
    }

    @Test
    void manyContainersBelowAPointerReadBackUnderTheCapOfWhatTheirRuntimeHeld() throws Exception {
        check(Layout.parse("pointer(ijk,2).hash(ijk,32768).place(f32 v)"), 80_000, 2);
    }

    /**
     * A table reservation that the cap or an allocator fault refuses fails the load as any
     * refused activation does: {@code readInto} leaves the runtime with no active cell, and a
     * load once the refusal is gone completes.
     */
    @Test
    void aRefusedTableFailsTheLoadAndLeavesTheRuntimeEmpty() throws Exception {
        Layout layout = Layout.parse("hash(ijk,65536).place(f32 v)");
        Path file = directory.resolve("refused.snap");
        long held;
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            for (int n = 0; n < 5_000; n++) {
                runtime.generic().setFloat("v", n + 1, n, 2 * n, 3 * n);
            }
            held = runtime.memoryStats().bytesReserved();
            Snapshots.write(runtime, file);
        }
        try (SNodeRuntime small = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withMemoryCap(held / 2))) {
            assertThatThrownBy(() -> Snapshots.readInto(file, small)).isInstanceOf(MemoryCapExceededException.class)
                    .hasMessageContaining("tables");
            assertThat(small.count("v")).isZero();
        }
        try (SNodeRuntime faulty = SNodeRuntime.compile(layout)) {
            SNode hash = faulty.layout().field("v").snode();
            AtomicInteger tables = new AtomicInteger();
            faulty.generic().internalTree().probeAllocations(owner -> {
                if (owner == hash && tables.incrementAndGet() == 1) {
                    throw new IllegalStateException("injected fault");
                }
            });
            assertThatThrownBy(() -> Snapshots.readInto(file, faulty)).hasMessageContaining("injected fault");
            assertThat(faulty.count("v")).isZero();
            Snapshots.readInto(file, faulty);
            assertThat(faulty.count("v")).isEqualTo(5_000);
            assertThat(faulty.generic().getFloat("v", 4_999, 9_998, 14_997)).isEqualTo(5_000f);
        }
    }

    private void check(Layout layout, int cells, long seed) throws Exception {
        Path file = directory.resolve("hash.snap");
        SNode hash = layout.field("v").snode();
        long held;
        long entries;
        double sum;
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            Random random = new Random(seed);
            int extent = hash.indexShape()[0];
            for (int n = 0; n < cells; n++) {
                runtime.generic().setFloat("v", n + 1, random.nextInt(extent), random.nextInt(extent),
                        random.nextInt(extent));
            }
            runtime.gc();
            held = runtime.memoryStats().bytesReserved();
            entries = runtime.memoryStats().of(hash).tables().entries();
            sum = runtime.sum("v");
            Snapshots.write(runtime, file);
        }
        RuntimeOptions capped = RuntimeOptions.DEFAULT.withMemoryCap(held);
        try (SNodeRuntime copy = Snapshots.read(file, capped)) {
            assertThat(copy.sum("v")).isEqualTo(sum);
            assertThat(copy.memoryStats().bytesReserved()).as("held after the load").isLessThanOrEqualTo(held);
            assertThat(copy.memoryStats().of(copy.layout().field("v").snode()).tables().entries()).as("the tables' entries").isEqualTo(entries);
        }
        try (SNodeRuntime empty = SNodeRuntime.compile(layout, capped)) {
            Snapshots.readInto(file, empty);
            assertThat(empty.sum("v")).isEqualTo(sum);
        }
    }
}
