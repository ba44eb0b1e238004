package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Reads through an inactive pointer land on the zero cell of the child's region (the tests run
 * with native access, so the node managers keep their cells in regions). Two threads activate
 * blocks and write into them while two others read. Between phases, with every thread stopped at
 * a barrier, half of the written blocks are deactivated and collected, so later phases reuse
 * their cells (deactivating or collecting while other threads read is a race of the caller's
 * making, {@code NodeTree}). A cell never written reads zero every time (its pointer inactive,
 * or its block active and its bit clear), and a cell of the writers reads zero or the one value
 * written there.
 */
class ZeroCellReadsTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    private static final Layout L2 = Layout.parse("pointer(ijk,8).pointer(ijk,8).bitmasked(ijk,4).place(f32 phi)");
    private static final int PHASES = 20;
    private static final int ROUNDS = 10;

    /** The value the writers store at (i, j, k): never zero. */
    private static float value(int i, int j, int k) {
        return 1 + i * 65536f + j * 256f + k;
    }

    /** Runs {@code body}; when it throws, breaks {@code barrier} so that the other threads stop too. */
    private static long resetOnFailure(CyclicBarrier barrier, java.util.concurrent.Callable<Long> body) throws Exception {
        try {
            return body.call();
        } catch (Throwable t) {
            barrier.reset();
            throw t;
        }
    }

    @Test
    void readsOfCellsNeverWrittenReadZeroWhileOtherThreadsActivateAndWrite() throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2);
             ExecutorService pool = Executors.newFixedThreadPool(4)) {
            Phi phi = rt.bind(Phi.class);
            SNode blocks = L2.snode(2);
            CyclicBarrier start = new CyclicBarrier(4);
            CyclicBarrier phase = new CyclicBarrier(4, () -> {
                for (int writer = 0; writer < 2; writer++) {
                    for (int n = 0; n < 64; n += 2) {
                        rt.deactivate(blocks, ((n % 8) * 16 + writer * 4) / 4, ((n / 8) * 32) / 4, 1);
                    }
                }
                rt.gc();
            });
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int writer = t;
                done.add(pool.submit(() -> resetOnFailure(phase, () -> {
                    start.await(10, TimeUnit.SECONDS);
                    for (int round = 0; round < PHASES * ROUNDS; round++) {
                        // Writer t owns the blocks with i / 4 == t (mod 4): even voxels of them.
                        for (int n = 0; n < 64; n++) {
                            int i = (n % 8) * 16 + writer * 4;
                            int j = (n / 8) * 32 + (round % 4) * 2;
                            phi.phi(i, j, 6, value(i, j, 6));
                        }
                        if (round % ROUNDS == ROUNDS - 1) {
                            phase.await(60, TimeUnit.SECONDS);
                        }
                    }
                    return 0L;
                })));
            }
            for (int t = 0; t < 2; t++) {
                done.add(pool.submit(() -> resetOnFailure(phase, () -> {
                    start.await(10, TimeUnit.SECONDS);
                    long reads = 0;
                    for (int round = 0; round < PHASES * ROUNDS * 4; round++) {
                        for (int n = 0; n < 64; n++) {
                            int i = (n % 8) * 16;
                            int j = (n / 8) * 32;
                            for (int writer = 0; writer < 2; writer++) {
                                int wi = i + writer * 4;
                                for (int jj = j; jj < j + 8; jj += 2) {
                                    float written = phi.phi(wi, jj, 6);
                                    assertThat(written == 0 || written == value(wi, jj, 6))
                                            .as("(%d, %d, 6) read %s", wi, jj, written).isTrue();
                                    assertThat(phi.phi(wi, jj, 7)).as("a clear bit of a written block").isZero();
                                    reads += 2;
                                }
                            }
                            assertThat(phi.phi(i + 12, j, 6)).as("a block nobody writes").isZero();
                            assertThat(phi.phi(i, j, 200)).as("an inactive pointer of the root").isZero();
                            reads += 2;
                        }
                        if (round % (ROUNDS * 4) == ROUNDS * 4 - 1) {
                            phase.await(60, TimeUnit.SECONDS);
                        }
                    }
                    return reads;
                })));
            }
            long reads = 0;
            List<Throwable> failures = new ArrayList<>();
            for (Future<Long> future : done) {
                try {
                    reads += future.get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
            // A failing thread resets the barrier, so the others end with BrokenBarrierException: report its failure.
            failures.sort(java.util.Comparator.comparing(e -> e instanceof java.util.concurrent.BrokenBarrierException));
            if (!failures.isEmpty()) {
                throw new AssertionError("a thread failed", failures.getFirst());
            }
            assertThat(reads).isPositive();
            assertThat(rt.generatedCode().getFirst().disassembly()).contains("ZERO_CELL_1", "ZERO_CELL_2");
        }
    }
}
