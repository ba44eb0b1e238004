package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel3;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, loss 3: direct writers and deactivators on many threads beside a thread that loops
 * a read-only launch, nobody calling {@code gc()}. A launch that deactivated nothing itself must
 * not collect: a collection under direct writers reuses memory they still write into, and
 * drains the thread caches they allocate from.
 */
class DirectWritersBesideReadOnlyLaunchesTest {
    /** 4 upper cells per axis of 32, 8 leaf blocks per axis of 4 in each. */
    static final Layout L = Layout.parse("pointer(ijk,4).pointer(ijk,8).dense(ijk,4).place(i32 n)");
    static final SNode UPPER = L.snode(1);
    static final SNode LEAF_BLOCK = L.snode(2);
    static final int A_WRITERS = 12;
    static final int B_WRITERS = 4;
    static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1200);

    public interface Counts {
        int n(int i, int j, int k);

        int addN(int i, int j, int k, int delta);
    }

    /**
     * Cells of region A: leaf blocks whose block index on i is 0-3 within their upper cell;
     * region B: 4-7. Both regions share the same upper cells.
     */
    static int[] cell(SplittableRandom random, boolean regionB) {
        int i = random.nextInt(2) * 32 + (random.nextInt(4) + (regionB ? 4 : 0)) * 4 + random.nextInt(4);
        return new int[] {i, random.nextInt(64), random.nextInt(64)};
    }

    static int key(int i, int j, int k) {
        return (i * 64 + j) * 64 + k;
    }

    @Test
    void aReadOnlyLaunchLoopBesideDirectWritersLosesNothingAndLeaksNothing() throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            rt.parallelism(2);
            Counts counts = rt.bind(Counts.class);
            MethodHandle deactivate = rt.nodeHandle("deactivate", LEAF_BLOCK);
            int threads = A_WRITERS + B_WRITERS + 1;
            CyclicBarrier start = new CyclicBarrier(threads);
            AtomicBoolean writersDone = new AtomicBoolean();
            AtomicLong launches = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            long[][] adds = new long[A_WRITERS + B_WRITERS][64 * 64 * 64];
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < A_WRITERS + B_WRITERS; t++) {
                int id = t;
                boolean regionB = t >= A_WRITERS;
                all.add(new Thread(() -> {
                    try {
                        SplittableRandom random = new SplittableRandom(id * 7919L + 1);
                        start.await();
                        long end = System.nanoTime() + RUN_NANOS;
                        for (int op = 0; System.nanoTime() < end; op++) {
                            int[] c = cell(random, regionB);
                            if (regionB && op % 8 == 7) {
                                boolean ignored = (boolean) deactivate.invokeExact(c[0] / 4, c[1] / 4, c[2] / 4);
                            } else {
                                counts.addN(c[0], c[1], c[2], 1);
                                adds[id][key(c[0], c[1], c[2])]++;
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, (regionB ? "b-writer-" : "a-writer-") + t));
            }
            Thread reader = new Thread(() -> {
                try {
                    long[] sink = new long[1];
                    start.await();
                    while (!writersDone.get()) {
                        rt.forEach("n", (Kernel3) (i, j, k) -> sink[0] += counts.n(i, j, k)); // only reads
                        launches.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "read-only-launches");
            for (Thread t : all) {
                t.start();
            }
            reader.start();
            for (Thread t : all) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
            }
            writersDone.set(true);
            reader.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(reader.isAlive()).as("reader ended").isFalse();
            assertThat(failures).as("exceptions on the threads").isEmpty();
            assertThat(launches.get()).isPositive();

            // Region A is never deactivated: every add that returned is there, nothing else is.
            // Region B: adds may be lost to a deactivation, never gained from another block.
            long mismatchesA = 0;
            long excessB = 0;
            for (int i = 0; i < 64; i++) {
                boolean regionB = (i % 32) / 4 >= 4;
                for (int j = 0; j < 64; j++) {
                    for (int k = 0; k < 64; k++) {
                        long expected = 0;
                        for (long[] perThread : adds) {
                            expected += perThread[key(i, j, k)];
                        }
                        int value = counts.n(i, j, k);
                        if (regionB) {
                            excessB += value < 0 || value > expected ? 1 : 0;
                        } else {
                            mismatchesA += value != expected ? 1 : 0;
                        }
                    }
                }
            }
            assertThat(mismatchesA).as("cells of region A whose value differs from the adds made").isZero();
            assertThat(excessB).as("cells of region B holding more than the adds made to them").isZero();

            // Nothing leaked: after deactivating everything and collecting, no cell is in use.
            rt.generic().deactivateAll(UPPER);
            rt.gc();
            assertThat(rt.memoryStats().of(LEAF_BLOCK).cells().cellsInUse()).as("leaf blocks in use").isZero();
            assertThat(rt.memoryStats().of(UPPER).cells().cellsInUse()).as("upper cells in use").isZero();
            assertThat(rt.memoryStats().of(LEAF_BLOCK).cells().cellsRecycled()).isZero();
        }
    }
}
