package io.snode.codegen;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.runtime.NodeManagerMetric;
import io.snode.runtime.RuntimeOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread per write (a thread per task, virtual threads): under a memory cap the writes are
 * refused where one thread's would be, and the cells allocated are the cells in use. Until 12-07
 * the cells each ended thread had cached waited for the next collection: the cap refused at
 * block 255 of the 4,080 one thread writes, and 16 cells were allocated per block written.
 */
class ShortLivedThreadsTest {

    public interface Blocks {
        void phi(int i, int j, int k, float value);

        float phi(int i, int j, int k);
    }

    private static final Layout LAYOUT = Layout.parse("pointer(ijk,64).dense(ijk,4).place(f32 phi)");
    private static final long CAP = 4L << 20;

    /** Writes one cell into block {@code b} (4^3 cells of 4 bytes each: 256 bytes). */
    private static void write(Blocks blocks, int b) {
        blocks.phi((b % 64) * 4, ((b / 64) % 64) * 4, (b / 4096) * 4, b + 1);
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void aThreadPerWriteIsRefusedWhereOneThreadIsAndHoldsNoCellsOfItsOwn(boolean virtual) throws Exception {
        int oneThread;
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(CAP))) {
            Blocks blocks = runtime.bind(Blocks.class);
            int b = 0;
            try {
                for (; b < 1 << 18; b++) {
                    write(blocks, b);
                }
            } catch (MemoryCapExceededException refused) {
                // the cap's count of blocks for one thread
            }
            oneThread = b;
        }
        assertThat(oneThread).isBetween(1_000, 1 << 17);

        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(CAP))) {
            Blocks blocks = runtime.bind(Blocks.class);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int b = 0;
            for (; b < 1 << 18 && failure.get() == null; b++) {
                int block = b;
                Runnable task = () -> {
                    try {
                        write(blocks, block);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                };
                Thread thread = virtual ? Thread.ofVirtual().start(task) : Thread.ofPlatform().start(task);
                thread.join(10_000);
                assertThat(thread.isAlive()).isFalse();
            }
            assertThat(failure.get()).isInstanceOf(MemoryCapExceededException.class);
            int written = b - 1;
            assertThat(written).isEqualTo(oneThread);
            SNode pointer = LAYOUT.field("phi").snode().parent(); // its manager holds the blocks
            NodeManagerMetric cells = runtime.memoryStats().of(pointer).cells();
            assertThat(cells.cellsInUse()).isEqualTo(written);
            assertThat(cells.cellsAllocated()).isEqualTo(written);
            for (int n = 0; n < written; n += 97) {
                assertThat(blocks.phi((n % 64) * 4, ((n / 64) % 64) * 4, (n / 4096) * 4))
                        .isEqualTo(n + 1f);
            }
        }
    }
}
