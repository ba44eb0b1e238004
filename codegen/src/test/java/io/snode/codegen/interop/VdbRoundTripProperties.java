package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Export to {@code .vdb}, then our own import, cell for cell, on random 3-D layouts (pointer,
 * dense and bitmasked levels, block sizes that are not powers of two, f32 and f64 fields),
 * uncompressed and zip, all active cells or the non-zero ones: the imported field is active
 * exactly where the exported cells were (and where a fresh runtime is active anyway; dense blocks
 * whole) and holds
 * the same values there, zero elsewhere; imported into a layout of other block sizes, the same cells are active.
 * Needs no OpenVDB.
 */
class VdbRoundTripProperties {
    private static final String[] KINDS = {"pointer", "dense", "bitmasked"};

    @Property(tries = 60)
    void exportThenImportKeepsEveryCell(@ForAll("layouts") String text, @ForAll("seeds") long seed,
                                        @ForAll boolean zip, @ForAll boolean nonZeroOnly) throws IOException {
        Layout layout = Layout.parse(text);
        PlacedField field = layout.field("v");
        SNode node = field.snode();
        Random random = new Random(seed);
        Path file = Files.createTempFile("roundtrip", ".vdb");
        try (SNodeRuntime source = SNodeRuntime.compile(layout); SNodeRuntime target = SNodeRuntime.compile(layout);
             SNodeRuntime blank = SNodeRuntime.compile(layout);
             SNodeRuntime other = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).bitmasked(ijk,8).place("
                     + field.type() + " v)"))) {
            int[] shape = node.indexShape();
            for (int n = random.nextInt(60); n >= 0; n--) {
                int[] at = {random.nextInt(shape[0]), random.nextInt(shape[1]), random.nextInt(shape[2])};
                double value = random.nextInt(4) == 0 ? 0.0 : random.nextGaussian();
                if (field.type() == FieldType.F32) {
                    source.generic().setFloat("v", (float) value, at);
                } else {
                    source.generic().setDouble("v", value, at);
                }
            }
            Vdb.ExportOptions options = Vdb.ExportOptions.DEFAULTS.nonZeroOnly(nonZeroOnly)
                    .compression(zip ? Vdb.Compression.ZIP : Vdb.Compression.NONE);
            long exported = Vdb.export(source, "v", file, options);
            Vdb.Imported imported = Vdb.importGrid(file, target, "v", Vdb.ImportOptions.DEFAULTS);
            assertThat(imported.cells()).isEqualTo(exported);
            assertThat(imported.offset()).containsExactly(0, 0, 0);
            Vdb.importGrid(file, other, "v", Vdb.ImportOptions.DEFAULTS);
            long[] expected = {0};
            BulkProperties.everywhere(node, at -> {
                double value = read(source, field, at);
                boolean active = source.generic().isActive(node, at) && (!nonZeroOnly || value != 0);
                expected[0] += active ? 1 : 0;
                // A dense node with no sparse node above it is active everywhere, imported or not; a
                // dense block is active whole, so with only the non-zero cells exported its zero
                // cells come back active too (where the block has a non-zero one).
                if (node.kind() == NodeKind.BITMASKED || !nonZeroOnly) {
                    assertThat(target.generic().isActive(node, at)).as("%s at %s", text, List.of(at[0], at[1], at[2]))
                            .isEqualTo(active || blank.generic().isActive(node, at));
                }
                assertThat(read(target, field, at)).isEqualTo(active ? value : 0.0);
                if (at[0] < 128 && at[1] < 128 && at[2] < 128) {
                    assertThat(other.generic().isActive(other.layout().snode(2), at)).isEqualTo(active);
                    assertThat(read(other, other.layout().field("v"), at)).isEqualTo(active ? value : 0.0);
                }
            });
            assertThat(exported).isEqualTo(expected[0]);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static double read(SNodeRuntime runtime, PlacedField field, int[] at) {
        return field.type() == FieldType.F32 ? runtime.generic().getFloat(field.name(), at)
                : runtime.generic().getDouble(field.name(), at);
    }

    @Provide
    Arbitrary<String> layouts() {
        return Arbitraries.longs().map(seed -> {
            Random random = new Random(seed);
            int levels = 1 + random.nextInt(3);
            StringBuilder text = new StringBuilder();
            for (int level = 0; level < levels; level++) {
                boolean last = level == levels - 1;
                String kind = last ? KINDS[1 + random.nextInt(2)] : KINDS[random.nextInt(3)];
                int[] sizes = new int[3];
                for (int c = 0; c < 3; c++) {
                    sizes[c] = 1 + random.nextInt(levels == 1 ? 9 : 5);
                }
                text.append(kind).append("(ijk,").append(random.nextBoolean() && sizes[0] == sizes[1] && sizes[1] == sizes[2]
                        ? String.valueOf(sizes[0]) : "[" + sizes[0] + "," + sizes[1] + "," + sizes[2] + "]").append(").");
            }
            text.append("place(").append(random.nextBoolean() ? "f32" : "f64").append(" v)");
            return text.toString();
        });
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
