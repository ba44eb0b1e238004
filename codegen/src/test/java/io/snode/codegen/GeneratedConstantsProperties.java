package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.kernel.Kernel;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Generated code is read by people: every constant a generated class holds is explained where
 * its code is shown. On random layouts (every kind), each class the runtime generated (the layout
 * class, an accessor, a bound interface, the drivers, view drivers and walks of launches over every SNode) lists in
 * {@link GeneratedClass#constants} one line per {@code static final} field, in declaration
 * order, naming it (with the value the class file holds) and saying what it is, and its
 * disassembly shows those lines; a region's zero cell states the product it is. With regions
 * and with cells in chunks of their own.
 */
class GeneratedConstantsProperties {
    private static final Pattern ZERO_CELL = Pattern.compile("^ZERO_CELL_(\\d+) = (\\d+): .* (\\d+) cells \\* (\\d+) B ");
    private static final Pattern REGION = Pattern.compile("^REGION_(\\d+): .*: (\\d+) B reserved, cell c at c \\* (\\d+) B");

    @Property(tries = 60)
    @SuppressWarnings("unchecked")
    void everyConstantOfEveryGeneratedClassIsExplained(@ForAll("layouts") Layout layout, @ForAll boolean regions) {
        // Without regions (an allocator that reserves none) cells live in chunks: ambient cells, no zero cells.
        RuntimeOptions options = regions ? RuntimeOptions.DEFAULT
                : RuntimeOptions.DEFAULT.withAllocator(MemoryAllocator.arenaPerChunk());
        try (SNodeRuntime rt = SNodeRuntime.compile(layout, options)) {
            Class<Object> api = (Class<Object>) AccessorDifferentialProperties.interfaceFor(layout, null);
            rt.accessor(api);
            rt.bind(api);
            for (SNode node : layout.snodes().subList(1, layout.snodes().size())) {
                rt.forEach(node, kernelOf(node.indexShape().length));
                if (node.indexShape().length <= 4) {
                    rt.forEach(node, api, ViewKernelProperties.kernel(node.indexShape().length, (view, at) -> { }));
                }
            }
            assertEveryConstantExplained(rt);
        }
    }

    @Example
    void theZeroCellsOffsetIsTheRegionsCellsTimesTheirBytes() {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            GeneratedClass layoutClass = rt.generatedCode().getFirst();
            assertThat(layoutClass.constants()).extracting(line -> line.substring(0, line.indexOf(':')).split(" ")[0])
                    .containsExactly("STRUCTURE", "ROOT", "SNODE_0", "SNODE_1", "CELLS_1", "REGION_1", "ZERO_CELL_1",
                            "SNODE_2", "CELLS_2", "REGION_2", "ZERO_CELL_2", "SNODE_3");
            assertThat(layoutClass.constants()).filteredOn(line -> line.startsWith("ZERO_CELL_2 = "))
                    .singleElement().asString()
                    .contains("cells * 2112 B", "reads of an inactive cell of root/pointer(ijk,16)/pointer(ijk,16) land there");
            assertThat(layoutClass.constants()).filteredOn(line -> line.startsWith("ROOT: "))
                    .singleElement().asString().contains("32768 B");
            assertThat(layoutClass.disassembly()).startsWith("// constants (static final fields)");
            assertEveryConstantExplained(rt);
        }
    }

    private static void assertEveryConstantExplained(SNodeRuntime rt) {
        for (GeneratedClass generated : rt.generatedCode()) {
            List<String[]> fields = staticFinalFields(generated.bytes());
            List<String> constants = generated.constants();
            assertThat(constants).as("the constants of %s", generated.name()).hasSize(fields.size());
            String disassembly = generated.disassembly();
            for (int n = 0; n < fields.size(); n++) {
                String name = fields.get(n)[0];
                String value = fields.get(n)[1];
                String line = constants.get(n);
                assertThat(line).as("constant %d of %s", n, generated.name())
                        .startsWith(value == null ? name + ": " : name + " = " + value + ": ");
                assertThat(line.substring(line.indexOf(": ") + 2)).as(line).hasSizeGreaterThan(20);
                assertThat(disassembly).contains("//   " + line);
            }
            checkNumbers(constants);
        }
    }

    /** A zero cell lies at the product its line states, inside the region its line names. */
    private static void checkNumbers(List<String> constants) {
        for (String line : constants) {
            Matcher zero = ZERO_CELL.matcher(line);
            if (!zero.find()) {
                continue;
            }
            long value = Long.parseLong(zero.group(2));
            long stride = Long.parseLong(zero.group(4));
            assertThat(Long.parseLong(zero.group(3)) * stride).as(line).isEqualTo(value);
            List<Matcher> regions = new ArrayList<>();
            for (String other : constants) {
                Matcher region = REGION.matcher(other);
                if (region.find() && region.group(1).equals(zero.group(1))) {
                    regions.add(region);
                }
            }
            assertThat(regions).as("the region of %s", line).hasSize(1);
            assertThat(Long.parseLong(regions.getFirst().group(3))).isEqualTo(stride);
            assertThat(value + stride).as("the zero cell lies in its region").isLessThanOrEqualTo(
                    Long.parseLong(regions.getFirst().group(2)));
        }
    }

    /** The private static final fields of a class file, in declaration order: name and ConstantValue (or null). */
    private static List<String[]> staticFinalFields(byte[] bytes) {
        List<String[]> fields = new ArrayList<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if (Modifier.isStatic(access) && Modifier.isFinal(access)) {
                    fields.add(new String[] {name, value == null ? null : value.toString()});
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return fields;
    }

    private static Kernel kernelOf(int arity) {
        return switch (arity) {
            case 1 -> (io.snode.codegen.kernel.Kernel1) i -> { };
            case 2 -> (io.snode.codegen.kernel.Kernel2) (i, j) -> { };
            case 3 -> (io.snode.codegen.kernel.Kernel3) (i, j, k) -> { };
            case 4 -> (io.snode.codegen.kernel.Kernel4) (i, j, k, l) -> { };
            case 5 -> (io.snode.codegen.kernel.Kernel5) (i, j, k, l, m) -> { };
            default -> throw new IllegalArgumentException("arity " + arity);
        };
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(StructForProperties.SMALL);
    }
}
