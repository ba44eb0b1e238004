package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.testing.LayoutModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A snapshot loads back equal cell for cell: on random small layouts (every kind, 1 to 3 axes,
 * every field type, branching, fields on inner nodes and the root) after random writes,
 * appends to dynamic lists (and writes past their length, which leave chunks without memory),
 * deactivations and collections, the runtime that {@link Snapshots#read} makes and the one
 * {@link Snapshots#readInto} fills agree with the original on every SNode's activity at every
 * coordinate of its index space, every field there, and every list's length; and a snapshot of
 * the loaded runtime is the same bytes as the original's file.
 */
class SnapshotProperties {
    static final RandomLayouts.Options SMALL = new RandomLayouts.Options(3, 3, 2, 4, 4096, 40);
    private static Path directory;

    @BeforeContainer
    static void makeDirectory() throws IOException {
        directory = Files.createTempDirectory("snapshot-properties");
    }

    @AfterContainer
    static void removeDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    @Property(tries = 150)
    void aSnapshotLoadsBackEqualCellForCell(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed)
            throws IOException {
        boolean small = SameCells.largestIndexSpace(layout) <= 20_000;
        Statistics.collect(small ? "compared" : "skipped: an index space too large to walk");
        if (!small) {
            return; // the comparison walks every index space
        }
        Random random = new Random(seed);
        Path file = directory.resolve("snapshot-" + seed + ".snap");
        try (SNodeRuntime original = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(original, layout, random, 60, 7, 11);
            appendToLists(original, layout, random, 40);
            RandomWrites.apply(original, layout, random, 10, 1_000_000, 0);
            Snapshots.write(original, file);
            try (SNodeRuntime read = Snapshots.read(file)) {
                SameCells.assertSame(original, read);
                Path again = directory.resolve("again-" + seed + ".snap");
                Snapshots.write(read, again);
                assertThat(Files.size(again)).as("size of a snapshot of the loaded runtime").isEqualTo(Files.size(file));
                Files.delete(again);
            }
            try (SNodeRuntime into = SNodeRuntime.compile(layout)) {
                Snapshots.readInto(file, into);
                SameCells.assertSame(original, into);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Appends random values to random lists of every dynamic node (a full list refuses, and is left as it is). */
    static void appendToLists(SNodeRuntime runtime, Layout layout, Random random, int appends) {
        List<SNode> dynamics = layout.snodes().stream().filter(s -> s.kind() == NodeKind.DYNAMIC).toList();
        for (int n = 0; n < appends && !dynamics.isEmpty(); n++) {
            SNode dynamic = dynamics.get(random.nextInt(dynamics.size()));
            PlacedField field = dynamic.fields().get(random.nextInt(dynamic.fields().size()));
            int[] list = LayoutModel.coordinates(dynamic.parent(), random);
            try {
                runtime.generic().appendBits(field, LayoutModel.randomBits(field.type(), random), list);
            } catch (DynamicListFullException full) {
                // the list holds its capacity
            }
        }
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
