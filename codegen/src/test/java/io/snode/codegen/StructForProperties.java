package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.testing.RandomWrites;
import io.snode.codegen.kernel.Kernel;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * Struct-for visits exactly the active cells, once each, sequentially and in parallel: on random
 * small layouts (every kind, nesting, branching), the visited set equals the set of coordinates
 * of the SNode's whole index space that the generic path reports active.
 */
@Tag("scalar-fallback")
class StructForProperties {
    static final RandomLayouts.Options SMALL = new RandomLayouts.Options(2, 3, 2, 4, 4096, 12);

    @Property(tries = 150)
    void forEachVisitsExactlyTheActiveCells(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(rt, layout, random, 30, 5, 0);
            for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
                Set<List<Integer>> expected = new HashSet<>();
                enumerate(node.indexShape(), new int[node.indexShape().length], 0, at -> {
                    if (rt.generic().isActive(node, at)) {
                        expected.add(boxed(at));
                    }
                });
                checkBlockForms(rt, node, expected);
                for (int threads : new int[] {1, 2}) {
                    rt.parallelism(threads);
                    Set<List<Integer>> visited = ConcurrentHashMap.newKeySet();
                    int[] duplicates = {0};
                    rt.forEach(node, kernel(node.indexAxes().size(), at -> {
                        if (!visited.add(boxed(at))) {
                            synchronized (duplicates) {
                                duplicates[0]++;
                            }
                        }
                    }));
                    assertThat(duplicates[0]).as("cells visited twice").isZero();
                    assertThat(visited).as("%s with %d threads in %s", node.path(), threads, layout)
                            .isEqualTo(expected);
                }
            }
        }
    }

    /**
     * For dense and bitmasked nodes: the block form sees exactly the expected cells (origin plus
     * local index, where the block says the cell is active), reduceBlocks counts them with the
     * same tasks whatever the parallelism, and a kept active set visits them too.
     */
    static void checkBlockForms(SNodeRuntime rt, SNode node, Set<List<Integer>> expected) {
        if (node.kind() == io.snode.api.NodeKind.DYNAMIC) {
            checkListBlocks(rt, node, expected);
            return;
        }
        if (node.kind() != io.snode.api.NodeKind.DENSE && node.kind() != io.snode.api.NodeKind.BITMASKED) {
            return;
        }
        int[] sizes = new int[node.indexAxes().size()];
        for (int n = 0; n < sizes.length; n++) {
            sizes[n] = node.size(node.indexAxes().get(n));
        }
        List<io.snode.api.Axis> own = node.axes().list();
        List<Long> tasksByThreads = new java.util.ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            rt.parallelism(threads);
            Set<List<Integer>> visited = ConcurrentHashMap.newKeySet();
            rt.forEachBlock(node, (io.snode.codegen.kernel.LeafBlock block) -> {
                for (long n = 0; n < block.cellCount(); n++) {
                    if (!block.isActive(n)) {
                        continue;
                    }
                    int[] at = block.origin();
                    for (int a = 0; a < own.size(); a++) {
                        int position = node.indexAxes().indexOf(own.get(a));
                        long stride = 1;
                        for (int b = a + 1; b < own.size(); b++) {
                            stride *= node.sizes()[b];
                        }
                        at[position] += (int) ((n / stride) % node.sizes()[a]);
                    }
                    assertThat(visited.add(boxed(at))).as("visited twice: %s", boxed(at)).isTrue();
                }
            });
            assertThat(visited).as("block form over %s with %d threads", node.path(), threads).isEqualTo(expected);
            long[] tasks = rt.reduceBlocks(node, () -> new long[2], (long[] acc, io.snode.codegen.kernel.LeafBlock block) -> {
                acc[0] += block.activeCount();
                acc[1] = 1;
            }, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            assertThat(tasks[0]).isEqualTo(expected.size());
            tasksByThreads.add(tasks[1]);
            ActiveSet set = rt.activeSet(node);
            assertThat(set.cellCount()).isEqualTo(expected.size());
            Set<List<Integer>> kept = ConcurrentHashMap.newKeySet();
            rt.forEach(set, kernel(node.indexAxes().size(), at -> kept.add(boxed(at))));
            assertThat(kept).isEqualTo(expected);
        }
        assertThat(tasksByThreads.get(0)).as("tasks do not depend on the parallelism").isEqualTo(tasksByThreads.get(1));
    }

    /**
     * For dynamic nodes: the block form hands over every list once, as chunks in index order that
     * hold exactly the elements below its length (the expected cells), each field's value equal
     * to what the generic path reads (zero in a chunk that a write past the length left without
     * memory); one block per active cell of the parent; reduceBlocks counts the elements with the
     * same tasks whatever the parallelism.
     */
    static void checkListBlocks(SNodeRuntime rt, SNode node, Set<List<Integer>> expected) {
        int axis = node.indexAxes().indexOf(node.axes().get(0));
        int chunkSize = node.chunkSize();
        List<Long> tasksByThreads = new java.util.ArrayList<>();
        SNode parent = node.parent();
        long[] parents = {parent.kind() == io.snode.api.NodeKind.ROOT ? 1 : 0};
        if (parent.kind() != io.snode.api.NodeKind.ROOT) {
            enumerate(parent.indexShape(), new int[parent.indexShape().length], 0, at -> {
                if (rt.generic().isActive(parent, at)) {
                    parents[0]++;
                }
            });
        }
        for (int threads : new int[] {1, 2}) {
            rt.parallelism(threads);
            Set<List<Integer>> visited = ConcurrentHashMap.newKeySet();
            java.util.concurrent.atomic.AtomicLong blocks = new java.util.concurrent.atomic.AtomicLong();
            rt.forEachBlock(node, (io.snode.codegen.kernel.LeafBlock block) -> {
                blocks.incrementAndGet();
                int[] origin = block.origin();
                assertThat(origin[axis]).as("origin on the list axis").isZero();
                assertThat(block.chunkCount()).isEqualTo((int) ((block.cellCount() + chunkSize - 1) / chunkSize));
                long index = 0;
                for (int c = 0; c < block.chunkCount(); c++) {
                    assertThat(block.chunkStart(c)).isEqualTo((long) c * chunkSize);
                    long cells = block.chunkCells(c);
                    assertThat(cells).isEqualTo(Math.min(chunkSize, block.cellCount() - (long) c * chunkSize));
                    java.lang.foreign.MemorySegment chunk = block.chunk(c);
                    assertThat(chunk.byteSize()).isEqualTo(cells * block.cellBytes());
                    for (long n = 0; n < cells; n++, index++) {
                        int[] at = origin.clone();
                        at[axis] = (int) index;
                        assertThat(visited.add(boxed(at))).as("visited twice: %s", boxed(at)).isTrue();
                        for (io.snode.api.PlacedField field : node.fields()) {
                            long offset = n * block.cellBytes() + block.fieldOffset(field);
                            long bits = switch (field.type()) {
                                case I32, F32 -> chunk.get(java.lang.foreign.ValueLayout.JAVA_INT, offset) & 0xFFFF_FFFFL;
                                case I64, F64 -> chunk.get(java.lang.foreign.ValueLayout.JAVA_LONG, offset);
                            };
                            assertThat(bits).as("%s at %s", field.name(), boxed(at))
                                    .isEqualTo(rt.generic().readBits(field, at));
                        }
                    }
                }
                assertThat(index).isEqualTo(block.cellCount());
            });
            assertThat(visited).as("list blocks of %s with %d threads", node.path(), threads).isEqualTo(expected);
            assertThat(blocks.get()).as("one block per active parent cell").isEqualTo(parents[0]);
            long[] tasks = rt.reduceBlocks(node, () -> new long[2], (long[] acc, io.snode.codegen.kernel.LeafBlock block) -> {
                acc[0] += block.cellCount();
                acc[1] = 1;
            }, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            assertThat(tasks[0]).isEqualTo(expected.size());
            tasksByThreads.add(tasks[1]);
        }
        assertThat(tasksByThreads.get(0)).as("tasks do not depend on the parallelism").isEqualTo(tasksByThreads.get(1));
    }

    /** A kernel of the SNode's arity that hands the coordinates to {@code body}. */
    static Kernel kernel(int arity, java.util.function.Consumer<int[]> body) {
        return switch (arity) {
            case 1 -> (Kernel1) i -> body.accept(new int[] {i});
            case 2 -> (Kernel2) (i, j) -> body.accept(new int[] {i, j});
            case 3 -> (Kernel3) (i, j, k) -> body.accept(new int[] {i, j, k});
            case 4 -> (Kernel4) (i, j, k, l) -> body.accept(new int[] {i, j, k, l});
            default -> throw new IllegalArgumentException("arity " + arity);
        };
    }

    static void enumerate(int[] shape, int[] at, int axis, java.util.function.Consumer<int[]> each) {
        if (axis == shape.length) {
            each.accept(at.clone());
            return;
        }
        for (int value = 0; value < shape[axis]; value++) {
            at[axis] = value;
            enumerate(shape, at, axis + 1, each);
        }
    }

    static List<Integer> boxed(int[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(SMALL);
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
