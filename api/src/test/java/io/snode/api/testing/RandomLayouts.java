package io.snode.api.testing;

import io.snode.api.Axes;
import io.snode.api.Axis;
import io.snode.api.Field;
import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * Random valid layouts for tests in every module (shipped in the api test-jar): every node
 * kind, 1 to 4 axes picked from all eight, depth 1 to 4, branching, fields on inner nodes and
 * on the root, every field type, power-of-two and other sizes, and now and then a hash node at
 * the top level that is wide (up to {@link Options#maxWideHashSize} per axis).
 *
 * <p>Sizes are kept so that the layouts can really be allocated: the cells that one container
 * embeds (the root cell, or one cell of a pointer's or hash node's child, with the dense and
 * bitmasked levels below it up to the next pointer, hash or dynamic) stay under
 * {@link Options#maxEmbeddedCells}.
 */
public final class RandomLayouts {
    private RandomLayouts() {
    }

    /** Knobs for the generator; {@link #DEFAULT} suits differential tests. */
    public record Options(int maxAxes, int maxDepth, int maxChildren, int maxSize, int maxEmbeddedCells,
                          int maxDynamicCapacity, int maxWideHashSize) {
        public static final Options DEFAULT = new Options(4, 4, 3, 8, 4096, 64, 100_000);

        /** Options with hash nodes at the top level no wider than {@code maxSize} either. */
        public Options(int maxAxes, int maxDepth, int maxChildren, int maxSize, int maxEmbeddedCells,
                       int maxDynamicCapacity) {
            this(maxAxes, maxDepth, maxChildren, maxSize, maxEmbeddedCells, maxDynamicCapacity, maxSize);
        }
    }

    /** A jqwik arbitrary of random valid layouts with the default options. */
    public static Arbitrary<Layout> layouts() {
        return layouts(Options.DEFAULT);
    }

    public static Arbitrary<Layout> layouts(Options options) {
        return Arbitraries.randomValue(random -> random(random, options));
    }

    /** The layout for {@code seed}: the same seed always gives the same layout. */
    public static Layout random(long seed) {
        return random(new Random(seed), Options.DEFAULT);
    }

    public static Layout random(Random random, Options options) {
        return new Generator(random, options).generate();
    }

    private static final class Generator {
        private final Random random;
        private final Options options;
        private final List<Axis> layoutAxes = new ArrayList<>();
        private final int depth;
        private int fieldCounter;

        Generator(Random random, Options options) {
            this.random = random;
            this.options = options;
            List<Axis> all = new ArrayList<>(List.of(Axis.values()));
            int count = 1 + random.nextInt(options.maxAxes());
            for (int n = 0; n < count; n++) {
                layoutAxes.add(all.remove(random.nextInt(all.size())));
            }
            layoutAxes.sort(null);
            this.depth = 1 + random.nextInt(options.maxDepth());
        }

        Layout generate() {
            return Layout.build(root -> {
                if (random.nextInt(5) == 0) {
                    placeSome(root);
                }
                int children = 1 + (random.nextInt(3) == 0 ? random.nextInt(options.maxChildren()) : 0);
                for (int n = 0; n < children; n++) {
                    node(root, 1, EnumSet.noneOf(Axis.class), 1);
                }
            });
        }

        /** Declares one node at {@code level} and what lies below it. */
        private void node(NodeBuilder parent, int level, Set<Axis> usedAbove, long embedded) {
            boolean leaf = level >= depth || random.nextInt(4) == 0;
            List<Axis> freeForDynamic = new ArrayList<>(layoutAxes);
            freeForDynamic.removeAll(usedAbove);
            if (leaf && !freeForDynamic.isEmpty() && random.nextInt(4) == 0) {
                Axis axis = freeForDynamic.get(random.nextInt(freeForDynamic.size()));
                int capacity = 1 + random.nextInt(options.maxDynamicCapacity());
                int chunk = 1 + random.nextInt(capacity);
                placeSome(parent.dynamic(axis, capacity, chunk));
                return;
            }
            List<Axis> axes = new ArrayList<>();
            for (Axis axis : layoutAxes) {
                if (random.nextBoolean()) {
                    axes.add(axis);
                }
            }
            if (axes.isEmpty()) {
                axes.add(layoutAxes.get(random.nextInt(layoutAxes.size())));
            }
            long budget = Math.max(1, options.maxEmbeddedCells() / embedded);
            int[] sizes = new int[axes.size()];
            long cells = 1;
            for (int n = 0; n < sizes.length; n++) {
                long room = Math.max(1, budget / cells);
                sizes[n] = 1 + random.nextInt((int) Math.min(options.maxSize(), room));
                cells *= sizes[n];
            }
            boolean uniform = random.nextBoolean();
            if (uniform) {
                int smallest = sizes[0];
                for (int size : sizes) {
                    smallest = Math.min(smallest, size);
                }
                Arrays.fill(sizes, smallest);
                cells = 1;
                for (int size : sizes) {
                    cells *= size;
                }
            }
            Axes nodeAxes = Axes.of(axes.toArray(new Axis[0]));
            int kind = random.nextInt(4);
            if (kind == 3 && level == 1 && random.nextInt(3) == 0) {
                // a wide top level, as hash nodes are for: its index space costs nothing; one
                // per path, so no axis's extent passes 2^31 - 1
                long room = 1L << 48; // cells of one container; far below the 2^63 of the size rule
                cells = 1;
                for (int n = 0; n < sizes.length; n++) {
                    sizes[n] = 1 + random.nextInt((int) Math.min(options.maxWideHashSize(), room));
                    room /= sizes[n];
                    cells *= sizes[n];
                }
                if (uniform) { // one size for every axis: keep its power under the room as well
                    Arrays.fill(sizes, (int) Math.min(sizes[0], Math.pow(2, 48.0 / sizes.length)));
                }
            }
            NodeBuilder node;
            if (uniform) {
                node = switch (kind) {
                    case 0 -> parent.dense(nodeAxes, sizes[0]);
                    case 1 -> parent.bitmasked(nodeAxes, sizes[0]);
                    case 2 -> parent.pointer(nodeAxes, sizes[0]);
                    default -> parent.hash(nodeAxes, sizes[0]);
                };
            } else {
                node = switch (kind) {
                    case 0 -> parent.dense(nodeAxes, sizes);
                    case 1 -> parent.bitmasked(nodeAxes, sizes);
                    case 2 -> parent.pointer(nodeAxes, sizes);
                    default -> parent.hash(nodeAxes, sizes);
                };
            }
            Set<Axis> used = EnumSet.noneOf(Axis.class);
            used.addAll(usedAbove);
            used.addAll(axes);
            long below = kind >= 2 ? 1 : embedded * cells; // a pointer or hash cell is an allocation of its own
            if (leaf) {
                placeSome(node);
                return;
            }
            if (random.nextInt(5) == 0) {
                placeSome(node);
            }
            int children = 1 + (random.nextInt(3) == 0 ? random.nextInt(options.maxChildren()) : 0);
            for (int n = 0; n < children; n++) {
                node(node, level + 1, used, below);
            }
        }

        private void placeSome(NodeBuilder node) {
            int count = 1 + (random.nextInt(3) == 0 ? random.nextInt(3) : 0);
            Field[] fields = new Field[count];
            FieldType[] types = FieldType.values();
            for (int n = 0; n < count; n++) {
                fields[n] = new Field("f" + fieldCounter++, types[random.nextInt(types.length)]);
            }
            node.place(fields);
        }
    }
}
