package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.ViewKernel1;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.testing.Disassembly;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Per-cell launches with a view ({@code forEach(SNode, Class, ViewKernel)}): the generated
 * driver is a caching accessor that remembers each block as it enters it and hands itself to the
 * kernel. Every read and write through the view agrees with the generic path: of the visited
 * cell, of neighbours in other blocks, after a deactivation inside the launch, on dense (L1) and
 * bitmasked (L2) leaves, in regions and in chunks, with one thread and with two.
 */
class ViewKernelTest {
    static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    static final String L2 = "pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)";

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    /** A per-task kernel: the sum and count of phi over the cells it visits, read through its view. */
    static final class Sum implements ViewKernel3<Phi> {
        double sum;
        long count;

        @Override
        public void apply(Phi view, int i, int j, int k) {
            sum += view.phi(i, j, k);
            count++;
        }
    }

    /** Writes of {@code cells} random voxels in a few clusters through the generic path; the model of what was written. */
    private static Map<List<Integer>, Float> write(SNodeRuntime rt, long seed, int cells) {
        Random random = new Random(seed);
        Map<List<Integer>, Float> model = new HashMap<>();
        for (int n = 0; n < cells; n++) {
            int cluster = random.nextInt(4) * 300;
            int i = cluster + random.nextInt(40);
            int j = random.nextInt(20) + 900;
            int k = cluster + random.nextInt(40);
            float value = 1 + random.nextInt(1000);
            rt.generic().setFloat("phi", value, i, j, k);
            model.put(List.of(i, j, k), value);
        }
        return model;
    }

    private static RuntimeOptions options(boolean chunks) {
        return chunks ? RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk()) : RuntimeOptions.DEFAULT;
    }

    @ParameterizedTest
    @ValueSource(strings = {"L1 regions 1", "L1 regions 2", "L2 regions 1", "L2 regions 2", "L1 chunks 2",
            "L2 chunks 1"})
    void aViewReadsEveryVisitedCellAsTheGenericPathDoes(String setup) {
        String[] words = setup.split(" ");
        Layout layout = Layout.parse(words[0].equals("L1") ? L1 : L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options(words[1].equals("chunks")))) {
            rt.parallelism(Integer.parseInt(words[2]));
            Map<List<Integer>, Float> model = write(rt, 11, 5000);
            SNode leaf = layout.field("phi").snode();
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            AtomicInteger wrong = new AtomicInteger();
            rt.forEach(leaf, Phi.class, (ViewKernel3<Phi>) (view, i, j, k) -> {
                float value = view.phi(i, j, k);
                if (value != rt.generic().getFloat("phi", i, j, k)) {
                    wrong.incrementAndGet();
                }
                if (value != 0) {
                    seen.put(List.of(i, j, k), value);
                }
            });
            assertThat(wrong).hasValue(0);
            assertThat(seen).isEqualTo(model);

            List<Sum> sums = rt.forEachPerTask(leaf, Phi.class, Sum::new);
            double sum = 0;
            long count = 0;
            for (Sum part : sums) {
                sum += part.sum;
                count += part.count;
            }
            assertThat(sum).isEqualTo(model.values().stream().mapToDouble(Float::doubleValue).sum());
            assertThat(count).isEqualTo(rt.count("phi"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"L1", "L2"})
    void neighboursInOtherBlocksReadThroughTheView(String which) {
        Layout layout = Layout.parse(which.equals("L1") ? L1 : L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            write(rt, 12, 3000);
            AtomicInteger wrong = new AtomicInteger();
            AtomicLong compared = new AtomicLong();
            rt.forEach(layout.field("phi").snode(), Phi.class, (ViewKernel3<Phi>) (view, i, j, k) -> {
                // +7 on each axis leaves the block for all but one cell in 8; then the visited cell again.
                int[][] at = {{i + 7, j, k}, {i, j - 9, k}, {i, j, k + 8}, {i - 1, j + 1, k + 1}, {i, j, k}};
                for (int[] c : at) {
                    if (c[0] >= 0 && c[1] >= 0 && c[2] >= 0
                            && view.phi(c[0], c[1], c[2]) != rt.generic().getFloat("phi", c[0], c[1], c[2])) {
                        wrong.incrementAndGet();
                    }
                    compared.incrementAndGet();
                }
            });
            assertThat(wrong).hasValue(0);
            assertThat(compared.get()).isEqualTo(5 * rt.count("phi"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"L1 1", "L2 1", "L1 2", "L2 2"})
    void writesThroughTheViewLandInTheVisitedCellAndInNewBlocks(String setup) {
        String[] words = setup.split(" ");
        Layout layout = Layout.parse(words[0].equals("L1") ? L1 : L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(Integer.parseInt(words[1]));
            Map<List<Integer>, Float> model = write(rt, 13, 3000);
            rt.forEach(layout.field("phi").snode(), Phi.class, (ViewKernel3<Phi>) (view, i, j, k) -> {
                view.phi(i, j, k, view.phi(i, j, k) * 2 + 1);
                // a cell far from every written one: a new block, which this launch does not visit
                view.phi(i + 1000, j, k, 5f);
            });
            long expected = 0;
            for (var entry : model.entrySet()) {
                List<Integer> c = entry.getKey();
                assertThat(rt.generic().getFloat("phi", c.get(0), c.get(1), c.get(2))).isEqualTo(entry.getValue() * 2 + 1);
                assertThat(rt.generic().getFloat("phi", c.get(0) + 1000, c.get(1), c.get(2))).isEqualTo(5f);
                expected++;
            }
            if (words[0].equals("L2")) {
                assertThat(rt.count("phi")).isEqualTo(2 * expected);
            }
        }
    }

    /**
     * One thread, blocks in memory order: the first cell visited deactivates the last block of
     * the snapshot and then the kernel writes into it as the launch reaches it. The view was
     * primed with that block's old container; because it stamps the snapshot's epoch, which the
     * deactivation moved past, it walks instead and the write reactivates the block. Read zero
     * first, then the write is kept.
     */
    @ParameterizedTest
    @ValueSource(strings = {"L1", "L2"})
    void aBlockDeactivatedInsideTheLaunchIsNotTrustedByTheView(String which) {
        Layout layout = Layout.parse(which.equals("L1") ? L1 : L2);
        SNode leaf = layout.field("phi").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(1);
            rt.generic().setFloat("phi", 1f, 0, 0, 0);
            rt.generic().setFloat("phi", 3f, 800, 800, 800);
            List<int[]> order = visitOrder(rt, leaf);
            int[] last = order.getLast();
            AtomicInteger visits = new AtomicInteger();
            List<Float> readAtLast = new ArrayList<>();
            rt.forEach(leaf, Phi.class, (ViewKernel3<Phi>) (view, i, j, k) -> {
                if (visits.getAndIncrement() == 0) {
                    assertThat(rt.deactivate(leaf.parent(), last[0] / 8, last[1] / 8, last[2] / 8)).isTrue();
                }
                if (i == last[0] && j == last[1] && k == last[2]) {
                    readAtLast.add(view.phi(i, j, k));
                    view.phi(i, j, k, 9f);
                }
            });
            assertThat(readAtLast).containsExactly(0f);
            assertThat(rt.generic().getFloat("phi", last[0], last[1], last[2])).isEqualTo(9f);
        }
    }

    /** The cells of {@code leaf} in the order a launch on one thread visits them. */
    private static List<int[]> visitOrder(SNodeRuntime rt, SNode leaf) {
        List<int[]> order = new ArrayList<>();
        rt.forEach(leaf, (io.snode.codegen.kernel.Kernel3) (i, j, k) -> order.add(new int[] {i, j, k}));
        return order;
    }

    /** A view that also reads and writes the visited cell without coordinates. */
    public interface PhiCell {
        float phi();

        void phi(float value);

        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"L1 regions 1", "L2 regions 2", "L1 chunks 2", "L2 chunks 1"})
    void readsAndWritesWithoutCoordinatesAreTheVisitedCells(String setup) {
        String[] words = setup.split(" ");
        Layout layout = Layout.parse(words[0].equals("L1") ? L1 : L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options(words[1].equals("chunks")))) {
            rt.parallelism(Integer.parseInt(words[2]));
            Map<List<Integer>, Float> model = write(rt, 14, 5000);
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            AtomicInteger wrong = new AtomicInteger();
            rt.forEach(layout.field("phi").snode(), PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> {
                float value = view.phi();
                if (value != view.phi(i, j, k) || value != rt.generic().getFloat("phi", i, j, k)) {
                    wrong.incrementAndGet();
                }
                if (value != 0) {
                    seen.put(List.of(i, j, k), value);
                }
                view.phi(i, j, k, value + 1);
                if (view.phi() != value + 1) {
                    wrong.incrementAndGet();
                }
                view.phi(value * 2);
                if (view.phi(i, j, k) != value * 2) {
                    wrong.incrementAndGet();
                }
            });
            assertThat(wrong).hasValue(0);
            assertThat(seen).isEqualTo(model);
            for (var entry : model.entrySet()) {
                List<Integer> c = entry.getKey();
                assertThat(rt.generic().getFloat("phi", c.get(0), c.get(1), c.get(2))).isEqualTo(entry.getValue() * 2);
            }
            if (words[0].equals("L2")) {
                assertThat(rt.count("phi")).isEqualTo(model.size()); // writes of visited cells activate nothing new
            }
        }
    }

    /**
     * The first cell visited deactivates the last block (and, on L2, one cell of the first);
     * reads of those cells without coordinates then give zero, and after a write that
     * reactivates the last block, its new value, not what its old container holds; writes
     * without coordinates into them activate them again and are kept.
     */
    @ParameterizedTest
    @ValueSource(strings = {"L1", "L2"})
    void accessesWithoutCoordinatesSeeDeactivationsInsideTheLaunch(String which) {
        Layout layout = Layout.parse(which.equals("L1") ? L1 : L2);
        SNode leaf = layout.field("phi").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(1);
            rt.generic().setFloat("phi", 1f, 0, 0, 0);
            rt.generic().setFloat("phi", 2f, 0, 0, 1);
            rt.generic().setFloat("phi", 3f, 800, 800, 800);
            rt.generic().setFloat("phi", 4f, 800, 800, 801);
            List<int[]> order = visitOrder(rt, leaf);
            int[] first = order.getFirst();
            int[] second = order.get(1);
            int[] last = order.getLast();
            List<Float> reads = new ArrayList<>();
            rt.forEach(leaf, PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> {
                if (i == first[0] && j == first[1] && k == first[2]) {
                    assertThat(rt.deactivate(leaf.parent(), last[0] / 8, last[1] / 8, last[2] / 8)).isTrue();
                    if (which.equals("L2")) {
                        assertThat(rt.deactivate(leaf, second)).isTrue();
                    }
                }
                if (which.equals("L2") && i == second[0] && j == second[1] && k == second[2]) {
                    reads.add(view.phi());
                }
                if (i == last[0] && j == last[1] && k == last[2]) {
                    reads.add(view.phi());
                    view.phi(i, j, k, 9f);
                    reads.add(view.phi());
                }
                if (which.equals("L2") && i == second[0] && j == second[1] && k == second[2]) {
                    view.phi(7f); // the cell deactivated above: the write activates it again
                }
                if (i == order.get(order.size() - 2)[0] && j == order.get(order.size() - 2)[1]
                        && k == order.get(order.size() - 2)[2]) {
                    view.phi(8f); // in the deactivated last block: activates it in a new container
                }
            });
            assertThat(reads).containsExactly(which.equals("L2") ? new Float[] {0f, 0f, 9f} : new Float[] {0f, 9f});
            assertThat(rt.generic().getFloat("phi", last[0], last[1], last[2])).isEqualTo(9f);
            int[] beforeLast = order.get(order.size() - 2);
            assertThat(rt.generic().getFloat("phi", beforeLast[0], beforeLast[1], beforeLast[2])).isEqualTo(8f);
            if (which.equals("L2")) {
                assertThat(rt.generic().getFloat("phi", second[0], second[1], second[2])).isEqualTo(7f);
                assertThat(rt.generic().isActive(leaf, second)).isTrue();
            }
        }
    }

    /**
     * The same once the JIT has compiled the driver and the kernel (the view reads the epoch
     * plainly, so only program order makes it see the kernel's own deactivation): 400 launches
     * over 64 blocks of 512 written cells; in each, the first cell visited deactivates the last
     * block, whose cells then read zero through the view (with and without coordinates) and are
     * written through it (which activates the block again, in a new container), while every
     * other cell reads its value. After each launch the generic path reads the written values there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"L1", "L2"})
    void compiledViewsSeeTheirOwnLaunchesDeactivations(String which) {
        Layout layout = Layout.parse(which.equals("L1") ? L1 : L2);
        SNode leaf = layout.field("phi").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(1);
            for (int b = 0; b < 64; b++) {
                writeBlock(rt, b);
            }
            List<int[]> order = visitOrder(rt, leaf);
            int[] first = order.getFirst();
            int[] last = order.getLast();
            for (int launch = 0; launch < 400; launch++) {
                long[] reads = new long[3]; // zeros in the last block, values elsewhere, anything else
                float written = -launch;
                rt.forEach(leaf, PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> {
                    if (i == first[0] && j == first[1] && k == first[2]) {
                        rt.deactivate(leaf.parent(), last[0] / 8, last[1] / 8, last[2] / 8);
                        return;
                    }
                    float value = k % 2 == 0 ? view.phi() : view.phi(i, j, k);
                    boolean inLast = i / 8 == last[0] / 8 && j / 8 == last[1] / 8 && k / 8 == last[2] / 8;
                    reads[inLast && value == 0 ? 0 : !inLast && value == valueAt(i, j, k) ? 1 : 2]++;
                    if (inLast && j % 2 == 0) {
                        view.phi(written);
                    } else if (inLast) {
                        view.phi(i, j, k, written);
                    }
                });
                assertThat(reads).as("launch %d: zeros in the deactivated block, values, wrong reads", launch)
                        .containsExactly(512, 64 * 512 - 513, 0);
                for (int cell = 0; cell < 512; cell += 73) {
                    int i = last[0] / 8 * 8 + (cell >> 6);
                    int j = last[1] / 8 * 8 + ((cell >> 3) & 7);
                    int k = last[2] / 8 * 8 + (cell & 7);
                    assertThat(rt.generic().getFloat("phi", i, j, k)).as("launch %d", launch).isEqualTo(written);
                }
                writeBlock(rt, 63);
            }
        }
    }

    /** Block {@code b} (0 to 63) of {@link #compiledViewsSeeTheirOwnLaunchesDeactivations}: every cell written. */
    private static void writeBlock(SNodeRuntime rt, int b) {
        for (int cell = 0; cell < 512; cell++) {
            int i = 8 * (b & 3) + (cell >> 6);
            int j = 8 * ((b >> 2) & 3) + ((cell >> 3) & 7);
            int k = 8 * (b >> 4) + (cell & 7);
            rt.generic().setFloat("phi", valueAt(i, j, k), i, j, k);
        }
    }

    private static float valueAt(int i, int j, int k) {
        return 1 + i * 1024 + j * 32 + k;
    }

    /** A view of a list's elements that also reads and writes the visited element without coordinates. */
    public interface IdElement {
        int id();

        void id(int value);

        int id(int i, int j, int k, int l);

        void id(int i, int j, int k, int l, int value);
    }

    /**
     * Per element of lists of 0 to 40 elements in chunks of 4 or 3 (so that a visit crosses chunk
     * boundaries, at powers of two and not): each read without coordinates is the element's value
     * (as read with coordinates and by the generic path), each write without coordinates lands in
     * the element, and the first element visited deactivates the last list visited, whose
     * elements then read zero without coordinates as with them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"4 regions 1", "3 regions 2", "4 chunks 2", "3 chunks 1"})
    void aListsVisitedElementsAreReadAndWrittenWithoutCoordinates(String setup) {
        String[] words = setup.split(" ");
        Layout layout = Layout.parse("pointer(ijk,8).dynamic(l,64," + words[0] + ").place(i32 id)");
        SNode lists = layout.field("id").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options(words[1].equals("chunks")))) {
            int threads = Integer.parseInt(words[2]);
            rt.parallelism(threads);
            Random random = new Random(41);
            Map<List<Integer>, Integer> model = new HashMap<>();
            for (int b = 0; b < 24; b++) {
                int i = b % 8;
                int j = b / 8;
                int k = random.nextInt(8);
                for (int l = random.nextInt(41); l > 0; l--) {
                    int value = 1 + random.nextInt(1 << 20);
                    long index = rt.generic().appendInt("id", value, i, j, k);
                    model.put(List.of(i, j, k, (int) index), value);
                }
            }
            int[] last = null;
            if (threads == 1) {
                List<int[]> order = new ArrayList<>();
                rt.forEach(lists, (io.snode.codegen.kernel.Kernel4) (i, j, k, l) -> order.add(new int[] {i, j, k, l}));
                last = order.getLast();
            }
            int[] deactivated = last;
            AtomicInteger visits = new AtomicInteger();
            AtomicInteger zeros = new AtomicInteger();
            List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
            rt.forEach(lists, IdElement.class, (io.snode.codegen.kernel.ViewKernel4<IdElement>) (view, i, j, k, l) -> {
                if (deactivated != null && visits.getAndIncrement() == 0) {
                    assertThat(rt.deactivate(lists.parent(), deactivated[0], deactivated[1], deactivated[2])).isTrue();
                }
                int value = view.id();
                if (deactivated != null && i == deactivated[0] && j == deactivated[1] && k == deactivated[2]) {
                    if (value != 0 || view.id(i, j, k, l) != 0) {
                        wrong.add("deactivated " + List.of(i, j, k, l) + ": " + value);
                    }
                    zeros.incrementAndGet();
                    return;
                }
                Integer expected = model.get(List.of(i, j, k, l));
                if (expected == null || value != expected || value != view.id(i, j, k, l)) {
                    wrong.add(List.of(i, j, k, l) + ": " + value + " != " + expected);
                }
                if (l % 2 == 0) {
                    view.id(value * 2);
                } else {
                    view.id(i, j, k, l, value * 2);
                }
                if (view.id() != value * 2) {
                    wrong.add(List.of(i, j, k, l) + " after the write");
                }
            });
            assertThat(wrong).isEmpty();
            for (var entry : model.entrySet()) {
                List<Integer> c = entry.getKey();
                boolean gone = deactivated != null && c.get(0) == deactivated[0] && c.get(1) == deactivated[1]
                        && c.get(2) == deactivated[2];
                assertThat(rt.generic().getInt("id", c.get(0), c.get(1), c.get(2), c.get(3))).as("%s", c)
                        .isEqualTo(gone ? 0 : entry.getValue() * 2);
                if (gone) {
                    zeros.decrementAndGet();
                }
            }
            assertThat(zeros).as("elements of the deactivated list visited, less those it held").hasValue(0);
        }
    }

    @Test
    void accessesWithoutCoordinatesAreOnlyForTheViewOfTheFieldsNode() {
        Layout layout = Layout.parse("pointer(ijk,16){ bitmasked(ijk,8).place(f32 phi); dense(ijk,4).place(f32 rho) }");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("rho", 1f, 1, 2, 3);
            assertThatThrownBy(() -> rt.accessor(PhiCell.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("phi").hasMessageContaining("only the view of forEach");
            assertThatThrownBy(() -> rt.bind(PhiCell.class))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only the view of forEach");
            SNode rho = layout.field("rho").snode();
            assertThatThrownBy(() -> rt.forEach(rho, PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("placed on " + layout.field("phi").snode().path())
                    .hasMessageContaining("this launch visits " + rho.path());
        }
    }

    @Test
    void accessesWithoutCoordinatesUseTheCellTheDriverStoredAfterOneEpochTest() {
        Layout layout = Layout.parse(L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            rt.forEach(layout.field("phi").snode(), PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> view.phi());
            GeneratedClass driver = rt.generatedCode().stream().filter(c -> c.name().contains("ViewDriver"))
                    .findFirst().orElseThrow();
            String read = Disassembly.method(driver.disassembly(), "phi()F");
            assertThat(Disassembly.method(driver.disassembly(), "phi(F)V"))
                    .contains("INVOKEINTERFACE java/lang/foreign/MemorySegment.set")
                    .contains("INVOKEVIRTUAL " + driver.name() + ".phi$setAt (IIIF)V");
            assertThat(read).contains("GETFIELD " + driver.name() + ".$cell$epoch : J")
                    .contains("GETFIELD " + driver.name() + ".$cell$index : J")
                    .contains("INVOKEVIRTUAL " + driver.name() + ".phi$at (III)F") // the miss: after a deactivation
                    .doesNotContain("phi$key");
            assertThat(Disassembly.method(driver.disassembly(), "run(")).contains("PUTFIELD " + driver.name()
                    + ".$cell$index : J");
        }
    }

    /**
     * Over a list, the driver enters each chunk once (at its first element: the chunk's memory and
     * base from the launch's resolved chunks) and stores each element's index; the read without
     * coordinates tests the chunk's memory and the epoch, then reads at the stored place.
     */
    @Test
    void aListsDriverEntersEachChunkOnceAndTheReadTestsItsMemoryAndTheEpoch() {
        Layout layout = Layout.parse("pointer(ijk,8).dynamic(l,64,4).place(i32 id)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().appendInt("id", 5, 1, 2, 3);
            rt.forEach(layout.field("id").snode(), IdElement.class,
                    (io.snode.codegen.kernel.ViewKernel4<IdElement>) (view, i, j, k, l) -> view.id());
            GeneratedClass driver = rt.generatedCode().stream().filter(c -> c.name().contains("ViewDriver"))
                    .findFirst().orElseThrow();
            String run = Disassembly.method(driver.disassembly(), "run(");
            assertThat(run).contains("ActiveBlocks.chunkSegment (IJ)Ljava/lang/foreign/MemorySegment;")
                    .contains("ActiveBlocks.chunkOffset (IJ)J")
                    .contains("PUTFIELD " + driver.name() + ".$cell$base : J")
                    .contains("PUTFIELD " + driver.name() + ".$cell$index : J");
            assertThat(Disassembly.method(driver.disassembly(), "id()I"))
                    .contains("GETFIELD " + driver.name() + ".$cell$segment : Ljava/lang/foreign/MemorySegment;")
                    .contains("IFNULL")
                    .contains("GETFIELD " + driver.name() + ".$cell$epoch : J")
                    .contains("INVOKEVIRTUAL " + driver.name() + ".id$at (IIII)I");
        }
    }

    /**
     * A view driver reads the epoch plainly ({@code epochInLaunch}), in every method, since it is
     * used only inside a launch; an accessor of the same interface keeps the volatile read
     * ({@code epoch}), since it lives across collections.
     */
    @Test
    void viewsReadTheEpochPlainlyAndAccessorsWithAVolatileRead() {
        Layout layout = Layout.parse(L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            rt.forEach(layout.field("phi").snode(), PhiCell.class, (ViewKernel3<PhiCell>) (view, i, j, k) -> view.phi());
            rt.accessor(Phi.class);
            String view = rt.generatedCode().stream().filter(c -> c.name().contains("ViewDriver")).findFirst()
                    .orElseThrow().disassembly();
            String accessor = rt.generatedCode().stream().filter(c -> c.name().contains("Accessor")).findFirst()
                    .orElseThrow().disassembly();
            assertThat(view).contains("GeneratedCalls.epochInLaunch (").doesNotContain("GeneratedCalls.epoch (");
            assertThat(accessor).contains("GeneratedCalls.epoch (").doesNotContain("epochInLaunch");
        }
    }

    @Test
    void theDriverPrimesTheViewPerBlockAndPassesItselfToTheKernel() {
        Layout layout = Layout.parse(L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            rt.forEachPerTask(layout.field("phi").snode(), Phi.class, Sum::new);
            GeneratedClass driver = rt.generatedCode().stream().filter(c -> c.name().contains("ViewDriver"))
                    .findFirst().orElseThrow();
            String run = Disassembly.method(driver.disassembly(), "run(");
            assertThat(run).contains("PUTFIELD " + driver.name() + ".phi$offset : J")
                    .contains("PUTFIELD " + driver.name() + ".phi$key : I")
                    .contains("PUTFIELD " + driver.name() + ".phi$epoch : J")
                    .contains("epochStamp")
                    .contains("INVOKEINTERFACE io/snode/codegen/kernel/ViewKernel3.apply (Ljava/lang/Object;III)V");
            assertThat(driver.disassembly()).contains("implements io/snode/codegen/ViewKernelTest$Phi");
        }
    }

    @Test
    void aThrowingKernelStopsTheLaunchWithTheCellsCoordinates() {
        Layout layout = Layout.parse(L2);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("phi", 1f, 17, 2, 3);
            assertThatThrownBy(() -> rt.forEach(layout.field("phi").snode(), Phi.class,
                    (ViewKernel3<Phi>) (view, i, j, k) -> {
                        throw new IllegalStateException("boom");
                    }))
                    .isInstanceOf(KernelException.class)
                    .hasMessageContaining("[17, 2, 3]")
                    .hasRootCauseMessage("boom");
        }
    }

    public interface Unrelated {
        float density(int i, int j, int k);
    }

    @Test
    void badArgumentsAreRefusedBeforeTheLaunch() {
        Layout layout = Layout.parse(L2);
        SNode leaf = layout.field("phi").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            assertThatThrownBy(() -> rt.forEach(leaf, Phi.class, (ViewKernel1<Phi>) (view, i) -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("has 3 coordinates").hasMessageContaining("the kernel takes 1");
            assertThatThrownBy(() -> rt.forEach(leaf, Unrelated.class, (ViewKernel3<Unrelated>) (view, i, j, k) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("density");
            assertThatThrownBy(() -> rt.forEach(leaf, null, (ViewKernel3<Phi>) (view, i, j, k) -> { }))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("api");
            assertThatThrownBy(() -> rt.forEach(leaf, Phi.class, null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("kernel");
            Layout other = Layout.parse(L1);
            assertThatThrownBy(() -> rt.forEach(other.field("phi").snode(), Phi.class,
                    (ViewKernel3<Phi>) (view, i, j, k) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not from this runtime");
            AtomicInteger made = new AtomicInteger();
            rt.parallelism(1);
            // 160 full blocks, 81,920 cells: more than two tasks' grain (32,768 cells each)
            for (int i = 0; i < 160 * 8; i++) {
                for (int j = 0; j < 8; j++) {
                    for (int k = 0; k < 8; k++) {
                        rt.generic().setFloat("phi", 1f, i, j, k);
                    }
                }
            }
            assertThatThrownBy(() -> rt.forEachPerTask(leaf, Phi.class,
                    () -> made.getAndIncrement() % 2 == 0 ? new Sum() : new ViewKernel3<Phi>() {
                        @Override
                        public void apply(Phi view, int i, int j, int k) {
                        }
                    }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("it must make one class");
        }
    }

    /**
     * A memory cap refuses the new blocks that two threads' view writes need: the launch fails
     * with the cap's exception, the refused writes change nothing, and every write that returned
     * normally is kept (checked against the model of those).
     */
    @Test
    void writesRefusedByTheCapChangeNothingAndEveryReturnedWriteIsKept() {
        Layout layout = Layout.parse(L2);
        SNode leaf = layout.field("phi").snode();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, RuntimeOptions.DEFAULT.withMemoryCap(600_000))) {
            rt.parallelism(2);
            for (int b = 0; b < 64; b++) {
                rt.generic().setFloat("phi", 1f, b * 8, 0, 0);
            }
            Map<List<Integer>, Float> returned = new ConcurrentHashMap<>();
            AtomicInteger refused = new AtomicInteger();
            assertThatThrownBy(() -> rt.forEach(leaf, Phi.class, (ViewKernel3<Phi>) (view, i, j, k) -> {
                view.phi(i, j, k, 2f);
                returned.put(List.of(i, j, k), 2f);
                for (int far = 1; far <= 40; far++) {
                    try {
                        view.phi(i, 8 * far, k, far);
                        returned.put(List.of(i, 8 * far, k), (float) far);
                    } catch (MemoryCapExceededException e) {
                        refused.incrementAndGet();
                        throw e;
                    }
                }
            })).isInstanceOf(KernelException.class).hasCauseInstanceOf(MemoryCapExceededException.class);
            assertThat(refused.get()).isPositive();
            for (var entry : returned.entrySet()) {
                List<Integer> c = entry.getKey();
                assertThat(rt.generic().getFloat("phi", c.get(0), c.get(1), c.get(2))).as("%s", c)
                        .isEqualTo(entry.getValue());
            }
            assertThat(rt.count("phi")).isEqualTo(returned.size() + (64 - returned.keySet().stream()
                    .filter(c -> c.get(1) == 0).count()));
        }
    }
}
