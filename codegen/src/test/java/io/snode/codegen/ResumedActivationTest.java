package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.testing.HeapAllocations;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A generated write that finds the word of its path's last pointer step inactive (a voxel of a
 * new leaf block) activates that one cell from the parent cell its walk stands in
 * ({@code activate<id>$set_f32$from}; a caching accessor's {@code activate<id>$set_f32} walks
 * there again): {@code GeneratedCalls.activatePointer} publishes a new cell with nothing
 * allocated on the Java heap, and only a busy or retired word goes on to the runtime
 * ({@code NodeTree.activateFrom}, or the protocol from the root). The block appears with the
 * written voxel and counted once; a refusal (memory cap, injected fault) leaves nothing; a lost
 * race writes into the winner's block; a parent cell released under the activation sends it to
 * the protocol from the root, which leaves no cell behind; threads racing for the same new
 * blocks publish one cell per block and lose no write, and with refusals among them leave
 * exactly the writes that returned. Through the layout's methods (a bound interface) and a
 * caching accessor.
 */
class ResumedActivationTest {
    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }

    private static final Layout MASKED = Layout.parse("pointer(ijk,4).pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
    private static final Layout DENSE = Layout.parse("pointer(ijk,4).pointer(ijk,4).dense(ijk,8).place(f32 phi)");

    private static Layout layout(String kind) {
        return kind.equals("bitmasked") ? MASKED : DENSE;
    }

    private static Phi phi(SNodeRuntime rt, String api) {
        return api.equals("bind") ? rt.bind(Phi.class) : rt.accessor(Phi.class);
    }

    private static long cellsInUse(SNodeRuntime rt, SNode pointer) {
        return rt.memoryStats().of(pointer).cells().cellsInUse();
    }

    private static long stamp(SNodeRuntime rt) {
        return rt.generic().internalTree().activationStamp();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bitmasked", "dense"})
    void theLayoutsWritesResumeFromTheLastPointerStepsParentCell(String kind) {
        try (SNodeRuntime rt = SNodeRuntime.compile(layout(kind))) {
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static set_phi(IIIF)V"))
                    .contains(".activate3$set_f32$from (IIILjava/lang/foreign/MemorySegment;JJF)V")
                    .doesNotContain("GeneratedCalls.activate (", "GeneratedCalls.activateFrom (");
            assertThat(method(code, "public static add_phi(IIIF)F"))
                    .contains(".activate3$add_f32$from (IIILjava/lang/foreign/MemorySegment;JJF)F");
            for (String activation : List.of(
                    "private static activate3$set_f32$from(IIILjava/lang/foreign/MemorySegment;JJF)V",
                    "private static activate3$add_f32$from(IIILjava/lang/foreign/MemorySegment;JJF)F")) {
                // The new cell, then (on a bitmasked leaf) the voxel's bit in place and the store;
                // the runtime's activation only after that path's return.
                assertThat(method(code, activation)).containsSubsequence(
                        "GeneratedCalls.activatePointer (",
                        kind.equals("bitmasked") ? "GeneratedCalls.activateBit (" : "LINENUMBER 3",
                        "RETURN", "GeneratedCalls.activateFrom (");
            }
            // The method a caching accessor calls walks again, then publishes the one cell the same way.
            assertThat(method(code, "private static activate3$set_f32(IIIJF)V")).containsSubsequence(
                    "GeneratedCalls.pointerWord (", "GeneratedCalls.activatePointer (", "GeneratedCalls.activate (");
        }
    }

    /**
     * A caching accessor's write keeps the activation from the root: the call from the parent
     * cell would take it past the 325 bytecodes up to which C2 inlines a method into a hot
     * caller ({@code FreqInlineSize}), which a write on an L2-like layout reaches with 323.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bitmasked", "dense"})
    void anAccessorsWriteStaysSmallEnoughToInline(String kind) {
        for (Layout layout : new Layout[] {layout(kind), Layout.parse(
                "pointer(ijk,16).pointer(ijk,16)." + kind + "(ijk,8).place(f32 phi)")}) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
                rt.accessor(Phi.class);
                GeneratedClass accessor = rt.generatedCode().stream()
                        .filter(generated -> generated.disassembly().contains("phi$epoch")).findFirst().orElseThrow();
                assertThat(accessor.disassembly()).doesNotContain("$from");
                assertThat(codeLength(accessor.bytes(), "phi", "(IIIF)V")).isBetween(100, 325);
                assertThat(codeLength(accessor.bytes(), "addPhi", "(IIIF)F")).isBetween(100, 325);
            }
        }
    }

    /** The length in bytes of the code of method {@code name}{@code descriptor} in the class {@code bytes}. */
    private static int codeLength(byte[] bytes, String name, String descriptor) {
        return ClassFile.of().parse(bytes).methods().stream()
                .filter(method -> method.methodName().equalsString(name) && method.methodType().equalsString(descriptor))
                .findFirst().orElseThrow().findAttribute(Attributes.code()).orElseThrow().codeLength();
    }

    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "bitmasked, accessor", "dense, bind", "dense, accessor"})
    void aNewBlockAppearsWithTheWrittenVoxelCountedOnce(String kind, String api) {
        Layout layout = layout(kind);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = phi(rt, api);
            SNode lower = layout.snode(2);
            phi.phi(1, 2, 3, 1f); // the upper and the lower cell: from the root
            long before = stamp(rt);
            phi.phi(9, 10, 11, 2.5f); // a new block under the same upper cell: resumed
            assertThat(stamp(rt)).isGreaterThan(before);
            assertThat(cellsInUse(rt, lower)).isEqualTo(2);
            assertThat(cellsInUse(rt, layout.snode(1))).isEqualTo(1);
            assertThat(phi.phi(9, 10, 11)).isEqualTo(2.5f);
            assertThat(phi.phi(9, 10, 12)).isZero();
            assertThat(rt.generic().isActive(layout.snode(3), 9, 10, 11)).isTrue();
            assertThat(rt.generic().isActive(layout.snode(3), 9, 10, 12)).isEqualTo(kind.equals("dense"));
            assertThat(phi.addPhi(17, 2, 3, 1.5f)).as("a new block's previous value").isZero();
            assertThat(phi.phi(17, 2, 3)).isEqualTo(1.5f);
            assertThat(cellsInUse(rt, lower)).isEqualTo(3);
            assertThat(phi.phi(1, 2, 3)).isEqualTo(1f);
        }
    }

    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "bitmasked, accessor", "dense, bind", "dense, accessor"})
    void aRefusedOrFailedBlockChangesNothing(String kind, String api) {
        Layout layout = layout(kind);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = phi(rt, api);
            SNode lower = layout.snode(2);
            phi.phi(0, 0, 0, 1f);
            long before = stamp(rt);
            rt.generic().internalTree().probeAllocations(owner -> {
                throw new MemoryCapExceededException(owner.path(), 0, 1, 1);
            });
            assertThatThrownBy(() -> phi.phi(20, 20, 20, 2f)).isInstanceOf(MemoryCapExceededException.class);
            rt.generic().internalTree().probeAllocations(owner -> {
                throw new IllegalStateException("injected allocator fault");
            });
            assertThatThrownBy(() -> phi.phi(20, 20, 20, 2f)).hasMessageContaining("injected allocator fault");
            assertThatThrownBy(() -> phi.addPhi(20, 20, 20, 2f)).hasMessageContaining("injected allocator fault");
            assertThat(stamp(rt)).isEqualTo(before);
            assertThat(cellsInUse(rt, lower)).isEqualTo(1);
            assertThat(rt.generic().isActive(lower, 2, 2, 2)).isFalse();
            rt.generic().internalTree().probeAllocations(null);
            phi.phi(20, 20, 20, 2f);
            assertThat(cellsInUse(rt, lower)).isEqualTo(2);
            assertThat(phi.phi(20, 20, 20)).isEqualTo(2f);
            assertThat(phi.phi(0, 0, 0)).isEqualTo(1f);
        }
    }

    /**
     * The race made deterministic: while the first write to a new block allocates its cell, a
     * second write (same thread, from the allocation probe) publishes the block; the first loses
     * the compare-and-set, hands its cell back and writes into the published block.
     */
    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "dense, accessor"})
    void aLostRaceWritesIntoTheWinnersBlock(String kind, String api) {
        Layout layout = layout(kind);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = phi(rt, api);
            Phi other = rt.bind(Phi.class);
            SNode lower = layout.snode(2);
            phi.phi(0, 0, 0, 1f);
            AtomicBoolean inside = new AtomicBoolean();
            AtomicInteger allocations = new AtomicInteger();
            rt.generic().internalTree().probeAllocations(owner -> {
                allocations.incrementAndGet();
                if (inside.compareAndSet(false, true)) {
                    other.phi(17, 1, 2, 7f); // the winner, in the same block (2, 0, 0)
                }
            });
            phi.phi(16, 0, 0, 3f);
            rt.generic().internalTree().probeAllocations(null);
            assertThat(allocations.get()).as("both writes took a cell").isEqualTo(2);
            assertThat(cellsInUse(rt, lower)).as("the loser's cell went back").isEqualTo(2);
            assertThat(phi.phi(16, 0, 0)).isEqualTo(3f);
            assertThat(phi.phi(17, 1, 2)).isEqualTo(7f);
        }
    }

    /**
     * The parent cell the write's walk stood in is released (its upper cell deactivated, from the
     * allocation probe) while the activation from it allocates: the compare-and-set meets a
     * retired word, the cell goes back, and the protocol from the root activates a new upper cell
     * and block. The write lands there; the voxel written before under the old upper cell is gone
     * with it; after a collection exactly the new cells are in use.
     */
    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "bitmasked, accessor", "dense, bind", "dense, accessor"})
    void aParentReleasedUnderTheActivationSendsItToTheRoot(String kind, String api) {
        Layout layout = layout(kind);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = phi(rt, api);
            SNode upper = layout.snode(1);
            SNode lower = layout.snode(2);
            phi.phi(1, 1, 1, 1f); // block (0, 0, 0) under upper cell (0, 0, 0)
            AtomicBoolean inside = new AtomicBoolean();
            rt.generic().internalTree().probeAllocations(owner -> {
                if (inside.compareAndSet(false, true)) {
                    assertThat(owner).isEqualTo(lower);
                    assertThat(rt.generic().deactivate(upper, 0, 0, 0)).isTrue();
                }
            });
            phi.phi(9, 9, 9, 5f); // block (1, 1, 1), same upper cell: resumed from it
            rt.generic().internalTree().probeAllocations(null);
            assertThat(inside).isTrue();
            assertThat(phi.phi(9, 9, 9)).isEqualTo(5f);
            assertThat(phi.phi(1, 1, 1)).as("released with its upper cell").isZero();
            assertThat(rt.generic().isActive(lower, 0, 0, 0)).isFalse();
            assertThat(rt.generic().isActive(lower, 1, 1, 1)).isTrue();
            rt.gc();
            assertThat(cellsInUse(rt, upper)).isEqualTo(1);
            assertThat(cellsInUse(rt, lower)).isEqualTo(1);
            assertThat(phi.phi(9, 9, 9)).isEqualTo(5f);
        }
    }

    /**
     * A write that makes a new block allocates nothing on the Java heap: the generated method
     * reads the pointer word, asks the runtime for a cell and publishes it with a compare-and-set,
     * without the coordinates' array or a {@code Location} of the runtime's activation. Counted
     * with the thread's allocated bytes over 4,096 new blocks (one upper cell, so that only the
     * blocks are new), after a first pass that compiled the code and filled the free lists: the
     * old activation took at least 56 bytes a block (an {@code int[3]} and a {@code Location}).
     */
    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "bitmasked, accessor", "dense, bind", "dense, accessor"})
    void aNewBlockAllocatesNothingOnTheJavaHeap(String kind, String api) throws Throwable {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16)." + kind + "(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            Phi phi = phi(rt, api);
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> phi.phi(127, 127, 127, 1f), () -> {
                for (int b = 0; b < 4096; b++) {
                    phi.phi((b >> 8) * 8, ((b >> 4) & 15) * 8 + 1, (b & 15) * 8 + 2, b);
                }
            });
            assertThat(cellsInUse(rt, layout.snode(2))).isEqualTo(4096);
            assertThat(phi.phi(15 * 8, 15 * 8 + 1, 15 * 8 + 2)).isEqualTo(4095f);
            assertThat(allocated).as("bytes allocated for 4096 new blocks").isLessThan(4096);
        }
    }

    /**
     * The layout's {@code activate_} methods (here through their method handles) activate a new
     * block the same way, with nothing allocated on the Java heap: the leaf's voxel (its bit set
     * in place on a bitmasked leaf) and the block's pointer cell itself.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bitmasked", "dense"})
    void theActivateMethodsMakeANewBlockWithNothingAllocated(String kind) throws Throwable {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16)." + kind + "(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            java.lang.invoke.MethodHandle leaf = rt.handle("activate_s3_" + kind);
            java.lang.invoke.MethodHandle block = rt.handle("activate_s2_pointer");
            SNode lower = layout.snode(2);
            long allocated = HeapAllocations.inLastOfThreePasses(rt, () -> {
                leaf.invokeExact(127, 127, 127); // a statement: invokeExact returns void here
            }, () -> {
                for (int b = 0; b < 2048; b++) {
                    leaf.invokeExact((b >> 7) * 8, ((b >> 3) & 15) * 8 + 1, (b & 7) * 8 + 2);
                    block.invokeExact(b >> 7, (b >> 3) & 15, (b & 7) + 8);
                }
            });
            assertThat(cellsInUse(rt, lower)).isEqualTo(4096);
            assertThat(rt.generic().isActive(layout.snode(3), 8, 9, 10)).isTrue();
            assertThat(rt.generic().isActive(layout.snode(3), 8, 9, 11)).isEqualTo(kind.equals("dense"));
            assertThat(rt.generic().isActive(lower, 1, 1, 9)).isTrue();
            assertThat(rt.count("phi")).isEqualTo(kind.equals("dense") ? 4096L * 512 : 2048L + 1);
            assertThat(allocated).as("bytes allocated for 4096 new blocks").isLessThan(4096);
            String code = rt.generatedCode().getFirst().disassembly();
            assertThat(method(code, "public static activate_s2_pointer(III)V"))
                    .containsSubsequence("GeneratedCalls.activatePointer (", "GeneratedCalls.activate (");
        }
    }

    /**
     * Threads released together write one voxel each of the same new blocks (through one bound
     * interface, or an accessor each), round after round, the structure emptied and collected
     * between rounds: every block holds one cell and every write reads back.
     */
    @ParameterizedTest
    @CsvSource({"bitmasked, bind", "dense, accessor"})
    void threadsRacingForNewBlocksPublishOneCellPerBlockAndLoseNoWrite(String kind, String api) throws Exception {
        Layout layout = layout(kind);
        int threads = 4;
        int rounds = 20;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode lower = layout.snode(2);
            for (int round = 0; round < rounds; round++) {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<?>> writers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    int value = round * 10 + t + 1;
                    Phi phi = phi(rt, api);
                    writers.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        for (int b = 0; b < 64; b++) {
                            phi.phi((b >> 4) * 8 + thread, ((b >> 2) & 3) * 8, (b & 3) * 8, value);
                        }
                        return null;
                    }));
                }
                for (Future<?> writer : writers) {
                    writer.get(60, TimeUnit.SECONDS);
                }
                assertThat(cellsInUse(rt, lower)).as("round %d", round).isEqualTo(64);
                Phi reader = rt.bind(Phi.class);
                for (int b = 0; b < 64; b++) {
                    for (int t = 0; t < threads; t++) {
                        assertThat(reader.phi((b >> 4) * 8 + t, ((b >> 2) & 3) * 8, (b & 3) * 8))
                                .isEqualTo(round * 10 + t + 1);
                    }
                }
                rt.deactivateAll(layout.root());
                rt.gc();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Threads write one voxel each of the same new blocks through one bound interface while the
     * allocation probe refuses every third allocation (the memory cap, or an allocator fault),
     * round after round: against a model of the writes that returned normally, each of those
     * reads back, each refused one left its voxel zero (and inactive on a bitmasked leaf), exactly
     * the blocks that a returned write reached are in use, and after everything is deactivated
     * and collected nothing is.
     */
    @ParameterizedTest
    @CsvSource({"bitmasked, cap", "bitmasked, fault", "dense, cap", "dense, fault"})
    void refusalsAmongThreadsLeaveExactlyTheWritesThatReturned(String kind, String failure) throws Exception {
        Layout layout = layout(kind);
        int threads = 4;
        int blocks = 64;
        int rounds = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            SNode upper = layout.snode(1);
            SNode lower = layout.snode(2);
            SNode leaf = layout.snode(3);
            Phi phi = rt.bind(Phi.class);
            AtomicInteger allocations = new AtomicInteger();
            long refused = 0;
            long returned = 0;
            for (int round = 0; round < rounds; round++) {
                rt.generic().internalTree().probeAllocations(owner -> {
                    if (allocations.incrementAndGet() % 3 == 0) {
                        throw failure.equals("cap") ? new MemoryCapExceededException(owner.path(), 0, 1, 1)
                                : new IllegalStateException("injected allocator fault");
                    }
                });
                CyclicBarrier start = new CyclicBarrier(threads);
                boolean[][] wrote = new boolean[threads][blocks];
                List<Future<?>> writers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    writers.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        for (int b = 0; b < blocks; b++) {
                            try {
                                phi.phi(x(b, thread), y(b), z(b), thread + 1);
                                wrote[thread][b] = true;
                            } catch (MemoryCapExceededException | IllegalStateException expected) {
                                assertThat(expected).satisfiesAnyOf(
                                        e -> assertThat(e).isInstanceOf(MemoryCapExceededException.class),
                                        e -> assertThat(e).hasMessageContaining("injected allocator fault"));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> writer : writers) {
                    writer.get(60, TimeUnit.SECONDS);
                }
                rt.generic().internalTree().probeAllocations(null);
                int reached = 0;
                for (int b = 0; b < blocks; b++) {
                    boolean any = false;
                    for (int t = 0; t < threads; t++) {
                        if (wrote[t][b]) {
                            returned++;
                            any = true;
                            assertThat(phi.phi(x(b, t), y(b), z(b))).as("round %d block %d thread %d", round, b, t)
                                    .isEqualTo(t + 1f);
                        } else {
                            refused++;
                            assertThat(phi.phi(x(b, t), y(b), z(b))).isZero();
                            if (kind.equals("bitmasked")) {
                                assertThat(rt.generic().isActive(leaf, x(b, t), y(b), z(b))).isFalse();
                            }
                        }
                    }
                    reached += any ? 1 : 0;
                }
                assertThat(cellsInUse(rt, lower)).as("round %d", round).isEqualTo(reached);
                rt.deactivateAll(layout.root());
                rt.gc();
                assertThat(cellsInUse(rt, lower)).isZero();
                assertThat(cellsInUse(rt, upper)).isZero();
            }
            assertThat(refused).as("refused writes").isPositive();
            assertThat(returned).as("returned writes").isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The voxel of thread {@code t} in block {@code b}: 16 blocks under each of 4 upper cells. */
    private static int x(int b, int t) {
        return (b >> 4) * 32 + t;
    }

    private static int y(int b) {
        return ((b >> 2) & 3) * 8;
    }

    private static int z(int b) {
        return (b & 3) * 8;
    }
}
