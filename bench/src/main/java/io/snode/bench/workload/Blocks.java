package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.function.LongFunction;

/**
 * What the block-map baselines share: a voxel's place in its 8^3 block ({@code float[512]},
 * {@code (i&7)<<6 | (j&7)<<3 | (k&7)}) under the block's key ({@link DataSet#blockKey}), and the
 * read-back of W1, W4 and W5's checksums.
 */
final class Blocks {
    /** The cells of a block. */
    static final int CELLS = DataSet.BLOCK * DataSet.BLOCK * DataSet.BLOCK;

    private Blocks() {
    }

    /**
     * Each voxel of {@code sorted}'s 8^3 block, numbered 0, 1, ... in the order the list first
     * reaches the blocks (the order a build allocates them); the last element is the count of blocks.
     */
    static int[] firstReached(NarrowBand sorted) {
        Long2IntOpenHashMap numbers = new Long2IntOpenHashMap();
        numbers.defaultReturnValue(-1);
        int[] block = new int[sorted.size() + 1];
        for (int v = 0; v < sorted.size(); v++) {
            long key = DataSet.blockKey(sorted.i(v), sorted.j(v), sorted.k(v));
            int number = numbers.get(key);
            if (number < 0) {
                number = numbers.size();
                numbers.put(key, number);
            }
            block[v] = number;
        }
        block[sorted.size()] = numbers.size();
        return block;
    }

    /** The index of voxel (i, j, k) in its block's array. */
    static int cell(int i, int j, int k) {
        return (i & 7) << 6 | (j & 7) << 3 | (k & 7);
    }

    /**
     * Reads every voxel of {@code sorted} back, in sorted order: {@code n} counts the voxels whose
     * block is present, {@code sum} adds every value read (0.0f where the block is absent).
     */
    static ReadBack readBack(NarrowBand sorted, LongFunction<float[]> blocks) {
        long n = 0;
        double sum = 0;
        for (int v = 0; v < sorted.size(); v++) {
            int i = sorted.i(v);
            int j = sorted.j(v);
            int k = sorted.k(v);
            float[] block = blocks.apply(DataSet.blockKey(i, j, k));
            if (block != null) {
                n++;
                sum += block[cell(i, j, k)];
            }
        }
        return new ReadBack(n, sum);
    }

    /** W1, W4 and W5's checksums before the count: voxels read back and the sum of their values. */
    record ReadBack(long n, double sum) {
    }
}
