package io.snode.bench.workload;

import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * W3's block form: what one task of a {@code reduceBlocks} over f32 leaf blocks accumulates, the
 * blocks' floats widened to double a vector at a time into per-lane sums, and the active cells
 * counted. The lanes are added once, at the end ({@link #sum()}): an ordered horizontal reduction
 * of eight doubles per 2 KiB block measured as a third of the time.
 */
public final class BlockSum {
    static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED;

    /** Per-lane sums: blocks add their vector sums here. */
    final double[] lanes = new double[DOUBLES.length()];
    long count;

    /** Adds {@code other}'s lanes and count to this one; returns this. */
    public BlockSum merge(BlockSum other) {
        for (int lane = 0; lane < lanes.length; lane++) {
            lanes[lane] += other.lanes[lane];
        }
        count += other.count;
        return this;
    }

    /** The sum of every block accumulated (and merged) so far. */
    public double sum() {
        return DoubleVector.fromArray(DOUBLES, lanes, 0).reduceLanes(VectorOperators.ADD);
    }

    /** Active cells of every block accumulated so far. */
    public long count() {
        return count;
    }

    /**
     * The reducer: adds every float of the block (inactive cells of a bitmasked block hold zero
     * in memory too, so the whole block sums) into four vector accumulators, then into the lanes.
     * Through the block's slice: on L2 it measured faster than indexing the chunk's segment.
     */
    public static void accumulate(BlockSum partial, LeafBlock block) {
        MemorySegment cells = block.cells();
        int lanes = FLOATS.length();
        DoubleVector a0 = DoubleVector.fromArray(DOUBLES, partial.lanes, 0);
        DoubleVector a1 = DoubleVector.zero(DOUBLES);
        DoubleVector a2 = a1;
        DoubleVector a3 = a1;
        long bytes = cells.byteSize();
        long step = 8L * lanes;
        long offset = 0;
        for (; offset + step <= bytes; offset += step) {
            FloatVector x = FloatVector.fromMemorySegment(FLOATS, cells, offset, ByteOrder.nativeOrder());
            FloatVector y = FloatVector.fromMemorySegment(FLOATS, cells, offset + 4L * lanes, ByteOrder.nativeOrder());
            a0 = a0.add(x.convertShape(VectorOperators.F2D, DOUBLES, 0).reinterpretAsDoubles());
            a1 = a1.add(x.convertShape(VectorOperators.F2D, DOUBLES, 1).reinterpretAsDoubles());
            a2 = a2.add(y.convertShape(VectorOperators.F2D, DOUBLES, 0).reinterpretAsDoubles());
            a3 = a3.add(y.convertShape(VectorOperators.F2D, DOUBLES, 1).reinterpretAsDoubles());
        }
        a0.add(a1).add(a2).add(a3).intoArray(partial.lanes, 0);
        if (offset < bytes) {
            partial.lanes[0] += tail(cells, offset, bytes);
        }
        partial.count += block.activeCount();
    }

    /** The floats after the last whole pair of vectors (none for 8^3 blocks); out of line, as a scalar loop in the vector loop's method halved its speed. */
    static double tail(MemorySegment memory, long from, long end) {
        double sum = 0;
        for (long offset = from; offset < end; offset += 4) {
            sum += memory.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, offset);
        }
        return sum;
    }
}
