package io.snode.codegen.internal.structfor;

import io.snode.api.FieldType;
import io.snode.api.PlacedField;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.vectorization.ReductionKernels;
import io.snode.runtime.internal.vectorization.ScalarReductionKernels;
import java.lang.foreign.MemorySegment;

/**
 * How a reduction finds the value of a field in the cells of one block of the snapshot, per kind
 * of target ({@link TargetKind#values}): the very cells a {@code forEach} over the SNode visits.
 * A dense block's every cell, a bitmasked or pointer block's cells whose mask bit is set, a
 * list's indices below its length. Cell {@code n} of the block (a list's index {@code n}) goes to
 * partial sum {@code n % LANES} ({@link ReductionKernels}); runs of cells that lie next to each
 * other (a leaf block, a list's chunk) go to the kernels in one call.
 */
abstract sealed class BlockValues {
    private static final ReductionKernels KERNELS = Reductions.KERNELS;

    final SNodePlan plan;
    final FieldType type;
    final long fieldOffset;

    BlockValues(SNodePlan plan, PlacedField field) {
        this.plan = plan;
        this.type = field.type();
        this.fieldOffset = plan.fieldOffset(field.slot());
    }

    /** Adds the values of block {@code b}'s cells to the partial sums {@code lanes}, in the order of {@link ReductionKernels}. */
    abstract void sum(ActiveBlocks blocks, int b, double[] lanes);

    /** {@code Math.max} (or {@code Math.min}) of {@code start} and the values of block {@code b}'s cells. */
    abstract double extremum(boolean max, ActiveBlocks blocks, int b, double start);

    /** Dense and bitmasked blocks: the cells lie in the block (a bitmasked one's: where the mask bit is set). */
    static final class Leaf extends BlockValues {
        Leaf(SNodePlan plan, PlacedField field) {
            super(plan, field);
        }

        /**
         * Every cell of the block, a bitmasked one's too: its inactive cells hold zero (the runtime
         * zeroes a cell when it deactivates it, as {@code LeafBlock} promises), which adds nothing
         * ({@link ReductionKernels}), so no mask is tested.
         */
        @Override
        void sum(ActiveBlocks blocks, int b, double[] lanes) {
            KERNELS.sum(type, blocks.segment(b), first(blocks, b), plan.cellBytes(), blocks.length(b), 0, lanes);
        }

        @Override
        double extremum(boolean max, ActiveBlocks blocks, int b, double start) {
            MemorySegment segment = blocks.segment(b);
            long first = first(blocks, b);
            long length = blocks.length(b);
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            return max ? KERNELS.max(type, segment, first, plan.cellBytes(), length, mask, maskAt, start)
                    : KERNELS.min(type, segment, first, plan.cellBytes(), length, mask, maskAt, start);
        }

        private long first(ActiveBlocks blocks, int b) {
            return blocks.container(b) + plan.cellsOffset() + fieldOffset;
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
        void sum(ActiveBlocks blocks, int b, double[] lanes) {
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            long length = blocks.length(b);
            for (long n = 0; n < length; n++) {
                if (BitmaskWords.isSet(mask, maskAt, n)) {
                    lanes[(int) (n & (ReductionKernels.LANES - 1))] += value(blocks, b, n);
                }
            }
        }

        @Override
        double extremum(boolean max, ActiveBlocks blocks, int b, double start) {
            long[] mask = blocks.masks();
            int maskAt = b * blocks.maskWords();
            long length = blocks.length(b);
            double result = start;
            for (long n = 0; n < length; n++) {
                if (BitmaskWords.isSet(mask, maskAt, n)) {
                    double value = value(blocks, b, n);
                    result = max ? Math.max(result, value) : Math.min(result, value);
                }
            }
            return result;
        }

        /** The value of cell {@code n} of block {@code b}, whose word the snapshot saw active: zero if inactive now. */
        private double value(ActiveBlocks blocks, int b, long n) {
            long word = Atomics.getAcquire(blocks.segment(b), blocks.container(b) + n * PointerWord.BYTES);
            if (!PointerWord.isActive(word)) {
                return 0;
            }
            long cell = PointerWord.cellIndex(word);
            return ScalarReductionKernels.load(type, cells.segment(cell), cells.offset(cell) + fieldOffset);
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
        void sum(ActiveBlocks blocks, int b, double[] lanes) {
            MemorySegment segment = blocks.segment(b);
            long header = blocks.container(b);
            int chunkSize = plan.chunkSize();
            long length = blocks.length(b);
            for (long chunk = 0; chunk * chunkSize < length; chunk++) {
                long start = chunk * chunkSize;
                long reference = GeneratedCalls.chunkReference(segment, header, chunk, directories, leafFanout);
                if (reference != PointerWord.NULL) { // an unallocated chunk's zeros add nothing
                    long cell = PointerWord.cellIndex(reference);
                    KERNELS.sum(type, cells.segment(cell), cells.offset(cell) + fieldOffset, plan.cellBytes(),
                            Math.min(length, start + chunkSize) - start, (int) (start & (ReductionKernels.LANES - 1)),
                            lanes);
                }
            }
        }

        @Override
        double extremum(boolean max, ActiveBlocks blocks, int b, double start) {
            MemorySegment segment = blocks.segment(b);
            long header = blocks.container(b);
            int chunkSize = plan.chunkSize();
            long length = blocks.length(b);
            double result = start;
            for (long chunk = 0; chunk * chunkSize < length; chunk++) {
                long first = chunk * chunkSize;
                long reference = GeneratedCalls.chunkReference(segment, header, chunk, directories, leafFanout);
                if (reference == PointerWord.NULL) { // never written: its elements read zero
                    result = max ? Math.max(result, 0.0) : Math.min(result, 0.0);
                    continue;
                }
                long cell = PointerWord.cellIndex(reference);
                long count = Math.min(length, first + chunkSize) - first;
                long offset = cells.offset(cell) + fieldOffset;
                result = max ? KERNELS.max(type, cells.segment(cell), offset, plan.cellBytes(), count, null, 0, result)
                        : KERNELS.min(type, cells.segment(cell), offset, plan.cellBytes(), count, null, 0, result);
            }
            return result;
        }
    }
}
