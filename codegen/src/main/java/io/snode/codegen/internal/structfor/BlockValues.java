package io.snode.codegen.internal.structfor;

import io.snode.api.FieldType;
import io.snode.api.PlacedField;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.GeneratedCalls;
import java.lang.foreign.MemorySegment;

/**
 * How a reduction finds the value of a field in the cells of one block of the snapshot, per kind
 * of target ({@link TargetKind#values}): the very cells a {@code forEach} over the SNode visits.
 * A dense block's every cell, a bitmasked or pointer block's cells whose mask bit is set, a
 * list's indices below its length. The values are added in cell order.
 */
abstract sealed class BlockValues {
    final SNodePlan plan;
    final FieldType type;
    final long fieldOffset;

    BlockValues(SNodePlan plan, PlacedField field) {
        this.plan = plan;
        this.type = field.type();
        this.fieldOffset = plan.fieldOffset(field.slot());
    }

    /** Adds the values of block {@code b}'s cells to {@code sum}, in cell order. */
    abstract void add(ActiveBlocks blocks, int b, Reductions.Accumulator sum);

    /** Dense and bitmasked blocks: the cells lie in the block (a bitmasked one's: where the mask bit is set). */
    static final class Leaf extends BlockValues {
        Leaf(SNodePlan plan, PlacedField field) {
            super(plan, field);
        }

        @Override
        void add(ActiveBlocks blocks, int b, Reductions.Accumulator sum) {
            MemorySegment segment = blocks.segment(b);
            long first = blocks.container(b) + plan.cellsOffset() + fieldOffset;
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            sum.addCells(type, segment, first, plan.cellBytes(), blocks.length(b), mask, maskAt);
        }
    }

    /**
     * A pointer block: the cells whose words the snapshot saw active. A word found inactive
     * now (deactivated by another thread since) counts as zero, as a read of it gives.
     */
    static final class Pointers extends BlockValues {
        private final CheckedCells cells;

        Pointers(CheckedCells cells, SNodePlan plan, PlacedField field) {
            super(plan, field);
            this.cells = cells;
        }

        @Override
        void add(ActiveBlocks blocks, int b, Reductions.Accumulator sum) {
            MemorySegment segment = blocks.segment(b);
            long container = blocks.container(b);
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            long length = blocks.length(b);
            for (long n = 0; n < length; n++) {
                if (!BitmaskWords.isSet(mask, maskAt, n)) {
                    continue;
                }
                long word = Atomics.getAcquire(segment, container + n * PointerWord.BYTES);
                if (PointerWord.isActive(word)) {
                    long cell = PointerWord.cellIndex(word);
                    sum.add(Reductions.load(type, cells.segment(cell), cells.offset(cell) + fieldOffset));
                } else {
                    sum.add(0);
                }
            }
        }
    }

    /**
     * A list: every index below the snapshot's length; an index whose chunk was never allocated
     * (below a write past the length) counts with the value zero, as reading it gives.
     */
    static final class Lists extends BlockValues {
        /** The element chunks. */
        private final CheckedCells cells;
        /** The directory blocks (or null) and their fan-out. */
        private final CheckedCells directories;
        private final int leafFanout;

        Lists(CheckedCells cells, CheckedCells directories, SNodePlan plan, PlacedField field) {
            super(plan, field);
            this.cells = cells;
            this.directories = directories;
            this.leafFanout = plan.directoryLeafFanout();
        }

        @Override
        void add(ActiveBlocks blocks, int b, Reductions.Accumulator sum) {
            MemorySegment segment = blocks.segment(b);
            long header = blocks.container(b);
            int chunkSize = plan.chunkSize();
            long length = blocks.length(b);
            for (long chunk = 0; chunk * chunkSize < length; chunk++) {
                long end = Math.min(length, (chunk + 1) * chunkSize);
                long reference = GeneratedCalls.chunkReference(segment, header, chunk, directories, leafFanout);
                if (reference == PointerWord.NULL) {
                    sum.addZeros(end - chunk * chunkSize);
                    continue;
                }
                long cell = PointerWord.cellIndex(reference);
                MemorySegment elements = cells.segment(cell);
                long first = cells.offset(cell) + fieldOffset;
                for (long n = 0; n < end - chunk * chunkSize; n++) {
                    sum.add(Reductions.load(type, elements, first + n * plan.cellBytes()));
                }
            }
        }
    }
}
