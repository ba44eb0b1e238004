package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import io.snode.codegen.samples.SplitMix64;
import java.util.Arrays;

/**
 * Everything the workloads of {@code WORKLOADS.md} read, built before any timing: the sorted and
 * shuffled lists of a band, W2's read coordinates, W4's blocks and W6's particles, and the
 * reference values every structure's checksums must equal, computed here from the sorted list
 * alone (no structure is involved).
 *
 * <p>W2's coordinates take 120 MB for the reference band (three {@code int[10_000_000]}); the
 * whole data set about 260 MB.
 */
public final class DataSet {
    /** W2's reads. */
    public static final int READS = 10_000_000;
    /** W6's particles. */
    public static final int PARTICLES = 4_000_000;
    /** The edge of a leaf block (8^3 voxels, as OpenVDB's leaf and the layouts' leaves). */
    public static final int BLOCK = 8;
    /** W4 deletes the blocks whose lowest i is below this. */
    public static final int W4_SPLIT = 1024;

    private final NarrowBand sorted;
    private final NarrowBand shuffled;
    private final int[] readI;
    private final int[] readJ;
    private final int[] readK;
    private final int[] particleVoxel;
    private final int[] lowBlocks;
    private final int lowVoxels;
    private final References references;

    private DataSet(NarrowBand sorted) {
        this.sorted = sorted;
        this.shuffled = sorted.shuffled();
        int n = sorted.size();
        readI = new int[READS];
        readJ = new int[READS];
        readK = new int[READS];
        SplitMix64 reads = new SplitMix64(7);
        int low = sorted.boxLow();
        int box = sorted.boxSize();
        double readSum = 0;
        for (int q = 0; q < READS; q++) {
            long r = reads.next();
            if ((r & 1) == 0) {
                int index = (int) Long.remainderUnsigned(r >>> 1, n);
                readI[q] = sorted.i(index);
                readJ[q] = sorted.j(index);
                readK[q] = sorted.k(index);
            } else {
                readI[q] = low + (int) ((r >>> 1) % box);
                readJ[q] = low + (int) ((r >>> 11) % box);
                readK[q] = low + (int) ((r >>> 21) % box);
            }
            readSum += sorted.valueAt(readI[q], readJ[q], readK[q]);
        }
        particleVoxel = new int[PARTICLES];
        SplitMix64 particles = new SplitMix64(99);
        long[] particleBlocks = new long[PARTICLES];
        for (int p = 0; p < PARTICLES; p++) {
            int index = (int) Long.remainderUnsigned(particles.next() >>> 1, n);
            particleVoxel[p] = index;
            particleBlocks[p] = blockKey(sorted.i(index), sorted.j(index), sorted.k(index));
        }
        long[] blocks = new long[n];
        int lowCount = 0;
        for (int v = 0; v < n; v++) {
            blocks[v] = blockKey(sorted.i(v), sorted.j(v), sorted.k(v));
            if (sorted.i(v) < W4_SPLIT) {
                lowCount++;
            }
        }
        lowVoxels = lowCount;
        long[] distinct = distinct(blocks);
        lowBlocks = Arrays.stream(distinct).filter(key -> blockI(key) * BLOCK < W4_SPLIT).mapToInt(Math::toIntExact).toArray();
        references = new References(n, sorted.valueSum(), distinct.length, lowBlocks.length, lowVoxels, readSum,
                PARTICLES, (long) PARTICLES * (PARTICLES - 1) / 2, distinct(particleBlocks).length);
    }

    /** The reference band (radius 400): the figures WORKLOADS.md and OpenVDB print. */
    public static DataSet reference() {
        return new DataSet(NarrowBand.sorted());
    }

    /** The quick band (radius 100) of {@code --quick} runs. */
    public static DataSet quick() {
        return new DataSet(NarrowBand.sorted(NarrowBand.QUICK_RADIUS));
    }

    public NarrowBand sorted() {
        return sorted;
    }

    public NarrowBand shuffled() {
        return shuffled;
    }

    /** W2's read {@code q}: i, j, k (the reads are in these three arrays, by index). */
    public int[] readI() {
        return readI;
    }

    public int[] readJ() {
        return readJ;
    }

    public int[] readK() {
        return readK;
    }

    /** W6: particle p is the voxel at sorted index {@code particleVoxel()[p]}. */
    public int[] particleVoxel() {
        return particleVoxel;
    }

    /**
     * W4's blocks, those whose lowest i is below 1024, as block keys ({@link #blockKey}; every key
     * fits an int: block coordinates are below 256 = 2048 / 8).
     */
    public int[] lowBlocks() {
        return lowBlocks;
    }

    /** W4 rewrites the first {@code lowVoxels()} voxels of the sorted list (those with i below 1024). */
    public int lowVoxels() {
        return lowVoxels;
    }

    public References references() {
        return references;
    }

    /** The key of the 8^3 block that holds voxel (i, j, k): {@code bi << 16 | bj << 8 | bk}. */
    public static long blockKey(int i, int j, int k) {
        return (long) (i >> 3) << 16 | (j >> 3) << 8 | (k >> 3);
    }

    /** The block i coordinate of a key of {@link #blockKey}. */
    static int blockI(long key) {
        return (int) (key >>> 16);
    }

    private static long[] distinct(long[] keys) {
        long[] copy = keys.clone();
        Arrays.sort(copy);
        int count = 0;
        for (int n = 0; n < copy.length; n++) {
            if (n == 0 || copy[n] != copy[n - 1]) {
                copy[count++] = copy[n];
            }
        }
        return Arrays.copyOf(copy, count);
    }

    /**
     * The values every structure's checksums must equal.
     *
     * @param voxels N, the band's voxels (W1, W4, W5)
     * @param valueSum the double sum of the values (W1, W3, W4, W5: exact, so any order gives it)
     * @param blocks the 8^3 blocks that hold a band voxel (W3's count is 512 times this where a
     *     whole block is active)
     * @param lowBlocks W4's deleted blocks
     * @param lowVoxels W4's rewritten voxels
     * @param readSum W2's sum
     * @param particles W6's particle count
     * @param particleIdSum W6's sum of particle ids
     * @param particleBlocks W6's non-empty blocks
     */
    public record References(long voxels, double valueSum, long blocks, long lowBlocks, long lowVoxels, double readSum,
            long particles, long particleIdSum, long particleBlocks) {
        /** WORKLOADS.md's and the OpenVDB harness's figures for the reference band. */
        public static final References DOCUMENTED = new References(8_048_580, 33845.922322932631, 56_628, 28_294,
                4_019_224, 21268.324701510253, 4_000_000, 7_999_998_000_000L, 54_932);

        /** W3's count (and W1's active cells): N with per-voxel activity, 512 per block with per-block activity. */
        public long activeCells(Activity activity) {
            return activity == Activity.VOXEL ? voxels : blocks * BLOCK * BLOCK * BLOCK;
        }
    }

    /** What a structure keeps active: each written voxel, or the whole 8^3 block around it. */
    public enum Activity {
        VOXEL,
        BLOCK
    }
}
