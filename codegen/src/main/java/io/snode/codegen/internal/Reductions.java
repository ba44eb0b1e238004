package io.snode.codegen.internal;

import io.snode.api.FieldType;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CellManager;
import io.snode.runtime.internal.Nodes;
import io.snode.runtime.internal.Structure;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Sum, minimum, maximum and count over the active cells of a field's SNode, without atomics.
 * The cells are those of the launcher's snapshot ({@link ActiveBlocks}), the very cells a
 * {@code forEach} over the SNode visits, for every kind: a dense block's every cell, a
 * bitmasked or pointer block's cells whose mask bit is set, a list's indices below its length
 * (an index whose chunk was never allocated, below a write past the length, counts with the
 * value zero, as reading it gives).
 *
 * <p>Deterministic whatever the parallelism: blocks (in the snapshot's memory order) are summed
 * in groups of {@link #GROUP} in block order, and the groups' results are combined in group
 * order, so a parallel run adds the same numbers in the same order as a sequential one.
 */
public final class Reductions {
    /** Blocks per group: the unit of parallel work, fixed so results do not depend on threads. */
    static final int GROUP = 32;

    /** What to compute: sum, min and max of the values (as double) and the count of active cells. */
    public record Summary(long count, double sum, double min, double max) {
        static final Summary EMPTY = new Summary(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);

        Summary plus(Summary other) {
            return new Summary(count + other.count, sum + other.sum, Math.min(min, other.min), Math.max(max, other.max));
        }
    }

    private Reductions() {
    }

    /** Over the active cells of {@code field}, through the launcher's snapshot of its SNode. */
    public static Summary summarize(Structure structure, PlacedField field, Launcher launcher) {
        SNode target = field.snode();
        if (target.kind() == NodeKind.ROOT) {
            return one(load(field.type(), structure.root(), structure.plan().node(target).fieldOffset(field.slot())));
        }
        Cells cells = new Cells(structure, target, field);
        ForkJoinPool pool = launcher.pool();
        return launcher.withSnapshot(target, blocks -> summarize(blocks, cells, pool));
    }

    private static Summary summarize(ActiveBlocks blocks, Cells cells, ForkJoinPool pool) {
        int groups = (blocks.size() + GROUP - 1) / GROUP;
        Summary[] partial = new Summary[groups];
        java.util.function.IntConsumer group = g -> {
            Summary summary = Summary.EMPTY;
            for (int n = g * GROUP; n < Math.min(blocks.size(), (g + 1) * GROUP); n++) {
                summary = summary.plus(cells.block(blocks, n));
            }
            partial[g] = summary;
        };
        if (pool == null) {
            for (int g = 0; g < groups; g++) {
                group.accept(g);
            }
        } else {
            pool.submit(() -> IntStream.range(0, groups).parallel().forEach(group)).join();
        }
        Summary total = Summary.EMPTY;
        for (Summary summary : partial) {
            total = total.plus(summary);
        }
        return total;
    }

    private static Summary one(double value) {
        return new Summary(1, value, value, value);
    }

    /** How the field's value of cell {@code n} of a block is found, per kind of target. */
    private static final class Cells {
        private final NodeKind kind;
        private final SNodePlan plan;
        private final FieldType type;
        private final long fieldOffset;
        /** A pointer target's child cells, or a dynamic target's element chunks; else null. */
        private final CellManager cells;
        /** A dynamic target's directory blocks (or null) and their fan-out. */
        private final CellManager directories;
        private final int leafFanout;

        Cells(Structure structure, SNode target, PlacedField field) {
            this.kind = target.kind();
            this.plan = structure.plan().node(target);
            this.type = field.type();
            this.fieldOffset = plan.fieldOffset(field.slot());
            this.cells = structure.cells(target);
            this.directories = kind == NodeKind.DYNAMIC ? structure.directories(target) : null;
            this.leafFanout = kind == NodeKind.DYNAMIC ? plan.directoryLeafFanout() : 0;
        }

        /** Block {@code b}: the cells of the snapshot, in cell order. */
        Summary block(ActiveBlocks blocks, int b) {
            return switch (kind) {
                case DENSE, BITMASKED -> leafBlock(blocks, b);
                case POINTER -> pointerBlock(blocks, b);
                case DYNAMIC -> list(blocks, b);
                case ROOT -> throw new AssertionError("the root has no blocks");
            };
        }

        private Summary leafBlock(ActiveBlocks blocks, int b) {
            MemorySegment segment = blocks.segment(b);
            long first = blocks.container(b) + plan.cellsOffset() + fieldOffset;
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            Accumulator sum = new Accumulator();
            long length = blocks.length(b);
            for (long n = 0; n < length; n++) {
                if (mask == null || (mask[maskAt + (int) (n >>> 6)] & (1L << n)) != 0) {
                    sum.add(load(type, segment, first + n * plan.cellBytes()));
                }
            }
            return sum.summary();
        }

        /**
         * A pointer block: the cells whose words the snapshot saw active. A word found inactive
         * now (deactivated by another thread since) counts as zero, as a read of it gives.
         */
        private Summary pointerBlock(ActiveBlocks blocks, int b) {
            MemorySegment segment = blocks.segment(b);
            long container = blocks.container(b);
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            Accumulator sum = new Accumulator();
            long length = blocks.length(b);
            for (long n = 0; n < length; n++) {
                if ((mask[maskAt + (int) (n >>> 6)] & (1L << n)) == 0) {
                    continue;
                }
                long word = Atomics.getAcquire(segment, container + n * PointerWord.BYTES);
                if (PointerWord.isActive(word)) {
                    long cell = PointerWord.cellIndex(word);
                    sum.add(load(type, cells.segment(cell), cells.offset(cell) + fieldOffset));
                } else {
                    sum.add(0);
                }
            }
            return sum.summary();
        }

        /** A list: every index below the snapshot's length; a chunk never allocated reads zero. */
        private Summary list(ActiveBlocks blocks, int b) {
            MemorySegment segment = blocks.segment(b);
            long header = blocks.container(b);
            int chunkSize = plan.chunkSize();
            Accumulator sum = new Accumulator();
            long length = blocks.length(b);
            for (long chunk = 0; chunk * chunkSize < length; chunk++) {
                long end = Math.min(length, (chunk + 1) * chunkSize);
                long reference = Nodes.chunkReference(segment, header, chunk, directories, leafFanout);
                if (reference == PointerWord.NULL) {
                    sum.addZeros(end - chunk * chunkSize);
                    continue;
                }
                long cell = PointerWord.cellIndex(reference);
                MemorySegment elements = cells.segment(cell);
                long first = cells.offset(cell) + fieldOffset;
                for (long n = 0; n < end - chunk * chunkSize; n++) {
                    sum.add(load(type, elements, first + n * plan.cellBytes()));
                }
            }
            return sum.summary();
        }
    }

    /** Count, sum, min and max of one block's values, added in cell order. */
    private static final class Accumulator {
        private long count;
        private double sum;
        private double min = Double.POSITIVE_INFINITY;
        private double max = Double.NEGATIVE_INFINITY;

        void add(double value) {
            count++;
            sum += value;
            min = Math.min(min, value);
            max = Math.max(max, value);
        }

        /** {@code cells} values of zero, as {@code cells} calls of {@link #add} would add them. */
        void addZeros(long cells) {
            if (cells > 0) {
                count += cells;
                sum += 0.0;
                min = Math.min(min, 0.0);
                max = Math.max(max, 0.0);
            }
        }

        Summary summary() {
            return new Summary(count, sum, min, max);
        }
    }

    private static double load(FieldType type, MemorySegment segment, long offset) {
        return switch (type) {
            case I32 -> segment.get(ValueLayout.JAVA_INT, offset);
            case I64 -> segment.get(ValueLayout.JAVA_LONG, offset);
            case F32 -> segment.get(ValueLayout.JAVA_FLOAT, offset);
            case F64 -> segment.get(ValueLayout.JAVA_DOUBLE, offset);
        };
    }
}
