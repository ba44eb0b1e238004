package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.internal.BoxTransfer;
import io.snode.runtime.testing.LayoutModel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Bulk copies agree with per-cell access on random layouts (every kind, nesting, branching):
 * a box read gives what per-cell reads give (zero where inactive); a box write leaves the same
 * structure (activity of every SNode at every coordinate) and the same values as per-cell writes
 * of the same values; the active cells listed are exactly the active cells, with their values;
 * and writing that list into a fresh runtime reproduces the field.
 */
class BulkProperties {
    static final RandomLayouts.Options SMALL = new RandomLayouts.Options(3, 3, 2, 4, 4096, 12);

    @Property(tries = 120)
    void boxCopiesAgreeWithPerCellAccess(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        twins(layout, seed, (bulk, model, fields, random) -> {
            for (int round = 0; round < 4; round++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] shape = field.snode().indexShape();
                int[] low = new int[shape.length];
                int[] high = new int[shape.length];
                long volume = 1;
                for (int c = 0; c < shape.length; c++) {
                    low[c] = random.nextInt(shape[c] + 1);
                    high[c] = low[c] + random.nextInt(shape[c] - low[c] + 1);
                    volume *= high[c] - low[c];
                }
                int bytes = field.type().byteSize();
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment read = arena.allocate(volume * bytes);
                    read.fill((byte) 0x5A);
                    Bulk.read(bulk, field.name(), low, high, read);
                    long[] n = {0};
                    box(low, high, at -> {
                        long expected = model.generic().readBits(field, at);
                        assertThat(get(read, n[0]++, bytes)).as("%s at %s in %s", field.name(), List.of(at), layout)
                                .isEqualTo(expected);
                    });
                    MemorySegment values = arena.allocate(volume * bytes);
                    n[0] = 0;
                    box(low, high, at -> {
                        long bits = LayoutModel.randomBits(field.type(), random);
                        put(values, n[0]++, bytes, bits);
                        model.generic().writeBits(field, bits, at);
                    });
                    assertThat(Bulk.write(bulk, field.name(), low, high, values)).isEqualTo(volume);
                }
                assertSameStructureAndValues(bulk, model, layout);
            }
            for (PlacedField field : fields) {
                CellArrays cells = Bulk.activeCells(bulk, field.name());
                Map<List<Integer>, Long> listed = listed(cells);
                assertThat(listed).as("cells listed twice").hasSize(cells.size());
                Map<List<Integer>, Long> expected = new HashMap<>();
                everywhere(field.snode(), at -> {
                    if (model.generic().isActive(field.snode(), at)) {
                        expected.put(boxed(at), model.generic().readBits(field, at));
                    }
                });
                assertThat(listed).as("active cells of %s in %s", field.name(), layout).isEqualTo(expected);
                try (SNodeRuntime fresh = SNodeRuntime.compile(layout)) {
                    assertThat(Bulk.writeCells(fresh, field.name(), cells)).isEqualTo(cells.size());
                    everywhere(field.snode(), at -> {
                        assertThat(fresh.generic().isActive(field.snode(), at)).isEqualTo(expected.containsKey(boxed(at)));
                        assertThat(fresh.generic().readBits(field, at)).isEqualTo(expected.getOrDefault(boxed(at), 0L));
                    });
                }
            }
        });
    }

    /**
     * A list of cells in any order, with repeats, over more containers than the write remembers
     * at once (so that containers are forgotten and found again), writes what per-cell writes of
     * the same list in the same order write: the same structure, and each cell's last value.
     */
    @Property(tries = 120)
    void cellListsInAnyOrderAgreeWithPerCellWrites(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        twins(layout, seed, (bulk, model, fields, random) -> {
            for (int round = 0; round < 3; round++) {
                PlacedField field = fields.get(random.nextInt(fields.size()));
                int[] shape = field.snode().indexShape();
                int count = 1 + random.nextInt(random.nextBoolean() ? 64 : 6000);
                int[][] coordinates = new int[shape.length][count];
                long[] bits = new long[count];
                for (int n = 0; n < count; n++) {
                    int[] at = new int[shape.length];
                    for (int c = 0; c < shape.length; c++) {
                        // Now and then the cell before, or a neighbour of it: runs in one container.
                        at[c] = n > 0 && random.nextInt(3) == 0
                                ? Math.min(shape[c] - 1, coordinates[c][n - 1] + random.nextInt(2))
                                : random.nextInt(shape[c]);
                        coordinates[c][n] = at[c];
                    }
                    bits[n] = LayoutModel.randomBits(field.type(), random);
                    model.generic().writeBits(field, bits[n], at);
                }
                assertThat(Bulk.writeCells(bulk, field.name(), cells(field, coordinates, bits))).isEqualTo(count);
                assertSameStructureAndValues(bulk, model, layout);
            }
        });
    }

    /**
     * A list scattered over more containers than the write remembers (so that it goes on
     * container by container, grouped), with cells listed again, writes what per-cell writes of
     * the same list in the same order write: the same structure, and each cell's last value.
     */
    @Property(tries = 8)
    void scatteredListsOverManyContainersAgreeWithPerCellWrites(@ForAll("manyContainers") Layout layout,
                                                                @ForAll("seeds") long seed) {
        twins(layout, seed, (bulk, model, fields, random) -> {
            PlacedField field = fields.getFirst();
            int[] shape = field.snode().indexShape();
            int count = 20_000 + random.nextInt(20_000);
            int[][] coordinates = new int[shape.length][count];
            long[] bits = new long[count];
            for (int n = 0; n < count; n++) {
                int again = n > 0 && random.nextInt(10) == 0 ? random.nextInt(n) : -1;
                int[] at = new int[shape.length];
                for (int c = 0; c < shape.length; c++) {
                    at[c] = again >= 0 ? coordinates[c][again] : random.nextInt(shape[c]);
                    coordinates[c][n] = at[c];
                }
                bits[n] = LayoutModel.randomBits(field.type(), random);
                model.generic().writeBits(field, bits[n], at);
            }
            assertThat(Bulk.writeCells(bulk, field.name(), cells(field, coordinates, bits))).isEqualTo(count);
            assertSameStructureAndValues(bulk, model, layout);
        });
    }

    /**
     * A list sorted by coordinates (rows of cells along the last axis, as the reference shell
     * lists its voxels), some cells in runs and some listed twice, writes what per-cell writes
     * write, on bitmasked layouts whose containers' rows lie in one mask word (the write gathers
     * a row's bits in a register) and on ones whose rows span several words.
     */
    @Property(tries = 24)
    void sortedListsAgreeWithPerCellWritesWhereRowsSpanOneOrSeveralMaskWords(
            @ForAll("rowLayouts") Layout layout, @ForAll("seeds") long seed) {
        twins(layout, seed, (bulk, model, fields, random) -> {
            PlacedField field = fields.getFirst();
            int[] shape = field.snode().indexShape();
            List<int[]> chosen = new ArrayList<>();
            double density = 0.05 + random.nextDouble() * 0.5;
            box(new int[shape.length], shape, at -> {
                if (random.nextDouble() < density) {
                    chosen.add(at);
                    if (random.nextInt(20) == 0) {
                        chosen.add(at);
                    }
                }
            });
            int count = chosen.size();
            int[][] coordinates = new int[shape.length][count];
            long[] bits = new long[count];
            for (int n = 0; n < count; n++) {
                for (int c = 0; c < shape.length; c++) {
                    coordinates[c][n] = chosen.get(n)[c];
                }
                bits[n] = LayoutModel.randomBits(field.type(), random);
                model.generic().writeBits(field, bits[n], chosen.get(n));
            }
            assertThat(Bulk.writeCells(bulk, field.name(), cells(field, coordinates, bits))).isEqualTo(count);
            assertSameStructureAndValues(bulk, model, layout);
        });
    }

    @Provide
    Arbitrary<Layout> rowLayouts() {
        return Arbitraries.of(
                "pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)",
                "pointer(ijk,2).bitmasked(ijk,[4,4,32]).place(i64 v)",
                "pointer(ijk,2).bitmasked(ijk,[2,2,128]).place(f32 phi)",
                "pointer(ijk,[2,2,1]).bitmasked(ijk,[2,1,512]).place(i32 n)",
                "dense(ijk,2).pointer(ijk,2).bitmasked(ijk,[2,8,16]).place(f64 d)").map(Layout::parse);
    }

    @Provide
    Arbitrary<Layout> manyContainers() {
        return Arbitraries.of(
                "pointer(ijk,32).bitmasked(ijk,2).place(f32 phi)",
                "pointer(ijk,32).dense(ijk,2).place(f64 d)",
                "pointer(ij,128).bitmasked(ij,[3,5]).place(i32 n)",
                "dense(ijk,4).pointer(ijk,8).bitmasked(ijk,2).place(i64 v)").map(Layout::parse);
    }

    /** The body of a property: two runtimes of the layout after the same random writes, the bulk-copyable fields. */
    interface TwinBody {
        void run(SNodeRuntime bulk, SNodeRuntime model, List<PlacedField> fields, Random random);
    }

    /**
     * Runs {@code body} on a runtime for bulk copies and a model runtime of {@code layout}, both
     * after the same random writes; nothing when the layout has no field that bulk copies serve.
     */
    private static void twins(Layout layout, long seed, TwinBody body) {
        List<PlacedField> fields = layout.fields().stream().filter(f -> BoxTransfer.supports(f.snode())).toList();
        if (fields.isEmpty()) {
            return;
        }
        Random random = new Random(seed);
        try (SNodeRuntime bulk = SNodeRuntime.compile(layout); SNodeRuntime model = SNodeRuntime.compile(layout)) {
            long writesSeed = random.nextLong();
            RandomWrites.apply(bulk, layout, new Random(writesSeed), 20, 4, 0);
            RandomWrites.apply(model, layout, new Random(writesSeed), 20, 4, 0);
            body.run(bulk, model, fields, random);
        }
    }

    private static CellArrays cells(PlacedField field, int[][] coordinates, long[] bits) {
        int count = bits.length;
        return switch (field.type()) {
            case I32 -> {
                int[] values = new int[count];
                for (int n = 0; n < count; n++) {
                    values[n] = (int) bits[n];
                }
                yield CellArrays.ofInts(coordinates, values);
            }
            case I64 -> CellArrays.ofLongs(coordinates, bits.clone());
            case F32 -> {
                float[] values = new float[count];
                for (int n = 0; n < count; n++) {
                    values[n] = Float.intBitsToFloat((int) bits[n]);
                }
                yield CellArrays.ofFloats(coordinates, values);
            }
            case F64 -> {
                double[] values = new double[count];
                for (int n = 0; n < count; n++) {
                    values[n] = Double.longBitsToDouble(bits[n]);
                }
                yield CellArrays.ofDoubles(coordinates, values);
            }
        };
    }

    static void assertSameStructureAndValues(SNodeRuntime actual, SNodeRuntime expected, Layout layout) {
        for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
            everywhere(node, at -> assertThat(actual.generic().isActive(node, at))
                    .as("%s active at %s in %s", node.path(), List.of(at), layout)
                    .isEqualTo(expected.generic().isActive(node, at)));
        }
        for (PlacedField field : layout.fields()) {
            if (field.snode().kind() == io.snode.api.NodeKind.DYNAMIC) {
                continue;
            }
            everywhere(field.snode(), at -> assertThat(actual.generic().readBits(field, at))
                    .as("%s at %s in %s", field.name(), List.of(at), layout)
                    .isEqualTo(expected.generic().readBits(field, at)));
        }
    }

    static Map<List<Integer>, Long> listed(CellArrays cells) {
        Map<List<Integer>, Long> listed = new HashMap<>();
        for (int n = 0; n < cells.size(); n++) {
            Integer[] at = new Integer[cells.dimensions()];
            for (int c = 0; c < at.length; c++) {
                at[c] = cells.coordinates(c)[n];
            }
            long bits = switch (cells.type()) {
                case F32 -> Float.floatToRawIntBits(cells.floats()[n]) & 0xFFFF_FFFFL;
                case F64 -> Double.doubleToRawLongBits(cells.doubles()[n]);
                case I32 -> cells.ints()[n] & 0xFFFF_FFFFL;
                case I64 -> cells.longs()[n];
            };
            listed.put(List.of(at), bits);
        }
        return listed;
    }

    private static long get(MemorySegment segment, long n, int bytes) {
        return bytes == 4 ? segment.getAtIndex(ValueLayout.JAVA_INT, n) & 0xFFFF_FFFFL
                : segment.getAtIndex(ValueLayout.JAVA_LONG, n);
    }

    private static void put(MemorySegment segment, long n, int bytes, long bits) {
        if (bytes == 4) {
            segment.setAtIndex(ValueLayout.JAVA_INT, n, (int) bits);
        } else {
            segment.setAtIndex(ValueLayout.JAVA_LONG, n, bits);
        }
    }

    static void everywhere(SNode node, Consumer<int[]> action) {
        int[] shape = node.indexShape();
        box(new int[shape.length], shape, action);
    }

    /** Every cell of {@code [low, high)} in row-major order. */
    static void box(int[] low, int[] high, Consumer<int[]> action) {
        for (int c = 0; c < low.length; c++) {
            if (low[c] >= high[c]) {
                return;
            }
        }
        int[] at = low.clone();
        while (true) {
            action.accept(at.clone());
            int c = at.length - 1;
            while (c >= 0 && ++at[c] == high[c]) {
                at[c] = low[c];
                c--;
            }
            if (c < 0) {
                return;
            }
        }
    }

    static List<Integer> boxed(int[] at) {
        return java.util.Arrays.stream(at).boxed().toList();
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
