package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.testing.HeapAllocations;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The generated {@code deactivate_<node>} and {@code length_<node>} walk to the node's container
 * themselves, reading as {@code isActive_} does, and then hand the cell to the runtime's
 * deactivation ({@code GeneratedCalls.deactivateCell}: the epoch advanced around it, the kind's
 * release, the count that launches read) or read the list's length
 * ({@code GeneratedCalls.listLength}), with no array of coordinates and no {@code Location} on
 * the Java heap. The generic path's results are the reference ({@link DifferentialProperties}
 * compares both over random layouts); here: the code, the results on a fixed layout, the bytes
 * allocated, caching accessors that see the deactivation, a deactivation in a kernel that makes
 * its launch collect, and threads that deactivate and write beside each other.
 */
class GeneratedDeactivationTest {
    /** Blocks of 4^3 voxels (bitmasked) under two pointer levels: 64^3 voxels. */
    static final Layout CELLS = Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,4).place(f32 phi)");
    /** A list of up to 64 ids per pointer cell, in chunks of 8. */
    static final Layout LISTS = Layout.parse("pointer(ijk,4).pointer(ijk,2).dynamic(l,64,8).place(i32 id)");

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    public interface Ids {
        long appendId(int i, int j, int k, int id);

        int id(int i, int j, int k, int l);
    }

    @Test
    void deactivateAndLengthWalkInTheGeneratedMethod() {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            String code = rt.generatedCode().getFirst().disassembly();
            for (String header : List.of("deactivate_s1_pointer(III)Z", "deactivate_s2_pointer(III)Z",
                    "deactivate_s3_bitmasked(III)Z")) {
                assertThat(method(code, "public static " + header)).as(header)
                        .contains("GeneratedCalls.deactivateCell (").doesNotContain("NEWARRAY", "GeneratedCalls.deactivate (");
            }
            // below the top level, the walk reads the pointer words above the cell
            assertThat(method(code, "public static deactivate_s3_bitmasked(III)Z"))
                    .containsSubsequence("GeneratedCalls.pointerWord (", "GeneratedCalls.pointerWord (",
                            "GeneratedCalls.deactivateCell (");
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static deactivate_s3_dynamic(III)Z"))
                    .contains("GeneratedCalls.deactivateCell (").doesNotContain("NEWARRAY", "GeneratedCalls.deactivate (");
            assertThat(method(code, "public static length_s3_dynamic(III)J"))
                    .contains("GeneratedCalls.listLength (").doesNotContain("NEWARRAY", "GeneratedCalls.length (");
        }
    }

    /**
     * Each level of the path, in its own index space (an upper cell holds 4^3 blocks, a block
     * 4^3 voxels): an active cell goes (true) with everything below, an inactive one changes
     * nothing (false).
     */
    @Test
    void deactivationsReturnWhetherTheCellWasActiveAndFreeItsSubtree() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Phi phi = rt.bind(Phi.class);
            MethodHandle upper = rt.nodeHandle("deactivate", CELLS.snode(1));
            MethodHandle lower = rt.nodeHandle("deactivate", CELLS.snode(2));
            MethodHandle voxel = rt.nodeHandle("deactivate", CELLS.snode(3));
            phi.phi(1, 2, 3, 1f);
            phi.phi(1, 2, 2, 2f);
            phi.phi(5, 2, 3, 3f);
            phi.phi(17, 0, 0, 4f);

            assertThat((boolean) voxel.invokeExact(1, 2, 3)).isTrue();
            assertThat((boolean) voxel.invokeExact(1, 2, 3)).isFalse();
            assertThat(phi.phi(1, 2, 3)).isZero();
            assertThat(phi.phi(1, 2, 2)).as("its neighbour in the block").isEqualTo(2f);
            assertThat((boolean) voxel.invokeExact(40, 40, 40)).as("under an inactive upper cell").isFalse();
            assertThat((boolean) lower.invokeExact(10, 10, 10)).isFalse();

            assertThat((boolean) lower.invokeExact(1, 0, 0)).as("the block of (5, 2, 3)").isTrue();
            assertThat(phi.phi(5, 2, 3)).isZero();
            assertThat(rt.count("phi")).isEqualTo(2);
            assertThat((boolean) upper.invokeExact(1, 0, 0)).as("the upper cell of (17, 0, 0)").isTrue();
            assertThat((boolean) upper.invokeExact(1, 0, 0)).isFalse();
            assertThat(phi.phi(17, 0, 0)).isZero();
            assertThat(rt.count("phi")).isEqualTo(1);
            assertThat((boolean) rt.nodeHandle("isActive", CELLS.snode(1)).invokeExact(1, 0, 0)).isFalse();
            assertThat((boolean) rt.nodeHandle("isActive", CELLS.snode(2)).invokeExact(0, 0, 0)).isTrue();

            rt.gc();
            assertThat(rt.memoryStats().of(CELLS.snode(1)).cells().cellsInUse()).isEqualTo(1);
            assertThat(rt.memoryStats().of(CELLS.snode(2)).cells().cellsInUse()).isEqualTo(1);
        }
    }

    @Test
    void aListIsNamedByItsParentsCoordinatesAndItsLengthReadsZeroWhereNothingIsActive() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Ids ids = rt.bind(Ids.class);
            SNode list = LISTS.field("id").snode();
            MethodHandle length = rt.nodeHandle("length", list);
            MethodHandle deactivate = rt.nodeHandle("deactivate", list);
            for (int n = 0; n < 20; n++) {
                ids.appendId(3, 0, 7, n);
            }
            ids.appendId(2, 0, 7, 99);
            assertThat((long) length.invokeExact(3, 0, 7)).isEqualTo(20);
            assertThat((long) length.invokeExact(2, 0, 7)).isEqualTo(1);
            assertThat((long) length.invokeExact(3, 1, 7)).as("another list of an active upper cell").isZero();
            assertThat((long) length.invokeExact(7, 7, 0)).as("under an inactive upper cell").isZero();

            assertThat((boolean) deactivate.invokeExact(3, 0, 7)).isTrue();
            assertThat((boolean) deactivate.invokeExact(3, 0, 7)).isFalse();
            assertThat((boolean) deactivate.invokeExact(7, 7, 0)).isFalse();
            assertThat((long) length.invokeExact(3, 0, 7)).isZero();
            assertThat(ids.id(2, 0, 7, 0)).isEqualTo(99);
            assertThat(ids.appendId(3, 0, 7, 5)).as("the emptied list takes appends again").isZero();
            assertThat(ids.id(3, 0, 7, 0)).isEqualTo(5);
        }
    }

    /**
     * 512 deactivations of active blocks, 512 of blocks already gone, 64 of lists and 640 list
     * lengths allocate nothing on the Java heap (counted with the thread's allocated bytes after
     * two passes that compiled the code and filled the free lists); before, each call took an
     * array of its coordinates and a {@code Location}. (A bitmasked cell's deactivation zeroes
     * the cell through a slice of its segment, which C2 removes once the call is hot; the
     * blocks here are pointer cells.)
     */
    @Test
    void deactivationsAndLengthsAllocateNothingOnTheJavaHeap() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Phi phi = rt.bind(Phi.class);
            MethodHandle lower = rt.nodeHandle("deactivate", CELLS.snode(2));
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> {
                for (int b = 0; b < 512; b++) {
                    phi.phi(4 * (b >> 6), 4 * ((b >> 3) & 7), 4 * (b & 7), b);
                }
            }, () -> {
                for (int pass = 0; pass < 2; pass++) {
                    for (int b = 0; b < 512; b++) {
                        boolean was = (boolean) lower.invokeExact(b >> 6, (b >> 3) & 7, b & 7);
                        if (was != (pass == 0)) {
                            throw new AssertionError("block " + b + " pass " + pass + ": " + was);
                        }
                    }
                }
            });
            assertThat(rt.count("phi")).isZero();
            assertThat(allocated).as("bytes allocated by 1,024 deactivations").isLessThan(1024);
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(LISTS)) {
            Ids ids = rt.bind(Ids.class);
            SNode list = LISTS.field("id").snode();
            MethodHandle length = rt.nodeHandle("length", list);
            MethodHandle deactivate = rt.nodeHandle("deactivate", list);
            long[] total = new long[1];
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> {
                for (int n = 0; n < 64 * 9; n++) {
                    ids.appendId(n & 7, (n >> 3) & 7, 0, n);
                }
            }, () -> {
                for (int n = 0; n < 640; n++) {
                    total[0] += (long) length.invokeExact(n & 7, (n >> 3) & 7, (n >> 6) & 1);
                }
                for (int n = 0; n < 64; n++) {
                    if (!(boolean) deactivate.invokeExact(n & 7, (n >> 3) & 7, 0)) {
                        throw new AssertionError("list " + n);
                    }
                }
            });
            assertThat(total[0]).as("three passes of 5 x 64 lists of 9").isEqualTo(3 * 5 * 64 * 9);
            assertThat(rt.count("id")).isZero();
            assertThat(allocated).as("bytes allocated by 640 lengths and 64 deactivations").isLessThan(1024);
        }
    }

    /** A caching accessor that remembers a block finds it gone after the generated deactivation (the epoch moved). */
    @Test
    void cachingAccessorsSeeTheGeneratedDeactivation() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Phi accessor = rt.accessor(Phi.class);
            accessor.phi(9, 9, 9, 7f);
            assertThat(accessor.phi(9, 9, 9)).isEqualTo(7f);
            assertThat((boolean) rt.nodeHandle("deactivate", CELLS.snode(2)).invokeExact(2, 2, 2)).isTrue();
            assertThat(accessor.phi(9, 9, 9)).isZero();
            rt.gc(); // the block's memory may now serve another block
            accessor.phi(50, 50, 50, 3f);
            assertThat(accessor.phi(9, 9, 9)).isZero();
            assertThat(accessor.phi(50, 50, 50)).isEqualTo(3f);
            assertThat(rt.count("phi")).isEqualTo(1);
        }
    }

    /** A kernel's generated deactivation is its launch's own: the launch collects after itself. */
    @Test
    void aKernelsGeneratedDeactivationMakesItsLaunchCollect() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Phi phi = rt.bind(Phi.class);
            for (int b = 0; b < 8; b++) {
                phi.phi(4 * b, 0, 0, b + 1f);
            }
            rt.parallelism(1);
            MethodHandle lower = rt.nodeHandle("deactivate", CELLS.snode(2));
            rt.forEach(CELLS.snode(2), (io.snode.codegen.kernel.Kernel3) (i, j, k) -> {
                if (i % 2 == 0) {
                    try {
                        boolean was = (boolean) lower.invokeExact(i, j, k);
                        assertThat(was).isTrue();
                    } catch (Throwable e) {
                        throw new AssertionError(e);
                    }
                }
            });
            assertThat(rt.count("phi")).isEqualTo(4);
            assertThat(rt.memoryStats().of(CELLS.snode(2)).cells().cellsInUse()).as("collected after the launch")
                    .isEqualTo(4);
            assertThat(rt.lastGcStatistics().cellsReclaimed()).isPositive();
        }
    }

    /**
     * Four threads, each with its own blocks under upper cells that all of them share, write
     * voxels through a bound interface and deactivate voxels and whole blocks through the
     * generated methods, each against a model of its own calls; then every voxel of the space
     * reads what the models say, and exactly the blocks with a voxel left are in use after a
     * collection. (Deactivating shared upper cells would race the other threads' writes, which
     * the documentation leaves to the order: the jcstress test {@code GeneratedActivationTest}
     * checks those two orders for the generated deactivation.)
     */
    @Test
    void threadsDeactivatingAndWritingBesideEachOtherLeaveWhatTheirModelsSay() throws Exception {
        int threads = 4;
        int rounds = 6;
        try (SNodeRuntime rt = SNodeRuntime.compile(CELLS)) {
            Phi phi = rt.bind(Phi.class);
            MethodHandle voxelHandle = rt.nodeHandle("deactivate", CELLS.snode(3));
            MethodHandle blockHandle = rt.nodeHandle("deactivate", CELLS.snode(2));
            float[][][] model = new float[64][64][64];
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                for (int round = 0; round < rounds; round++) {
                    CyclicBarrier start = new CyclicBarrier(threads);
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        int thread = t;
                        long seed = 31L * round + t;
                        done.add(pool.submit(() -> {
                            Random random = new Random(seed);
                            start.await(10, TimeUnit.SECONDS);
                            for (int n = 0; n < 3000; n++) {
                                // thread t owns the blocks whose block coordinate bi has bi % 4 == t
                                int bi = 4 * random.nextInt(4) + thread;
                                int bj = random.nextInt(16);
                                int bk = random.nextInt(16);
                                int i = 4 * bi + random.nextInt(4);
                                int j = 4 * bj + random.nextInt(4);
                                int k = 4 * bk + random.nextInt(4);
                                int choice = random.nextInt(10);
                                if (choice < 6) {
                                    float value = 1 + random.nextInt(1000);
                                    phi.phi(i, j, k, value);
                                    model[i][j][k] = value;
                                } else if (choice < 9) {
                                    boolean was = deactivate(voxelHandle, i, j, k);
                                    check(was, model[i][j][k] != 0, i, j, k);
                                    model[i][j][k] = 0;
                                } else {
                                    boolean was = deactivate(blockHandle, bi, bj, bk);
                                    boolean any = false;
                                    for (int x = 4 * bi; x < 4 * bi + 4; x++) {
                                        for (int y = 4 * bj; y < 4 * bj + 4; y++) {
                                            for (int z = 4 * bk; z < 4 * bk + 4; z++) {
                                                any |= model[x][y][z] != 0;
                                                model[x][y][z] = 0;
                                            }
                                        }
                                    }
                                    if (any && !was) {
                                        throw new AssertionError("block of " + i + "," + j + "," + k
                                                + " held a voxel but its deactivation found nothing active");
                                    }
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> future : done) {
                        future.get(60, TimeUnit.SECONDS);
                    }
                    rt.gc();
                    long voxels = 0;
                    long blocks = 0;
                    for (int bi = 0; bi < 16; bi++) {
                        for (int bj = 0; bj < 16; bj++) {
                            for (int bk = 0; bk < 16; bk++) {
                                boolean any = false;
                                for (int x = 4 * bi; x < 4 * bi + 4; x++) {
                                    for (int y = 4 * bj; y < 4 * bj + 4; y++) {
                                        for (int z = 4 * bk; z < 4 * bk + 4; z++) {
                                            assertThat(phi.phi(x, y, z)).as("round %d voxel %d,%d,%d", round, x, y, z)
                                                    .isEqualTo(model[x][y][z]);
                                            voxels += model[x][y][z] != 0 ? 1 : 0;
                                            any |= model[x][y][z] != 0;
                                        }
                                    }
                                }
                                blocks += any ? 1 : 0;
                            }
                        }
                    }
                    assertThat(rt.count("phi")).as("round %d", round).isEqualTo(voxels);
                    assertThat(rt.memoryStats().of(CELLS.snode(2)).cells().cellsInUse())
                            .as("round %d: blocks in use, at most the ones holding a voxel and those emptied voxel by voxel",
                                    round).isGreaterThanOrEqualTo(blocks);
                }
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    /** A generated {@code deactivate_} of three coordinates, for code that may throw only exceptions. */
    private static boolean deactivate(MethodHandle deactivate, int i, int j, int k) {
        try {
            return (boolean) deactivate.invokeExact(i, j, k);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    private static void check(boolean was, boolean expected, int i, int j, int k) {
        if (was != expected) {
            throw new AssertionError("voxel " + i + "," + j + "," + k + ": deactivate returned " + was + ", the model says "
                    + expected);
        }
    }
}
