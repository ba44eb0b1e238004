package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The baseline "floors": what L1's and L2's memory and the atomic operations of the library's
 * protocol cost on W1s and W2 by themselves, with none of the library's code (no walk, no
 * container cache, no activation, no coordinate check). A structure's row against the floor of
 * the same workload says what its own code costs; a target below the floor cannot be reached by
 * code in this design on the machine of the run.
 *
 * <p>The memory is laid out as the library lays it out after W1s: off-heap 8^3 blocks, one after
 * another in the order the sorted list first reaches them (the order a build allocates them), in
 * one segment of a shared arena (the kind of arena a runtime's memory comes from, with the same
 * liveness check on every access); an L2 block is 64 bytes of mask words (bit {@code c} of word
 * {@code c >>> 6} for cell {@code c = (i&7)<<6 | (j&7)<<3 | (k&7)}) before its 2,048 bytes of
 * values, 2,112 bytes as in L2's leaf cells. W2's pointer levels are L1's: the root's 4,096 words
 * and one 4,096-word inner node per active root cell, 64-bit words read with acquire ordering as
 * generated reads read them, an inactive word leading to a node or block of zeros (the library's
 * zero cells), so a read never branches.
 *
 * <ul>
 *   <li>W1s, the sorted list, one thread; each voxel's place in the blocks is computed before the
 *       timing: its value stored there (L1's floor); the store and one atomic OR of its mask bit
 *       (L2's floor per voxel, what a per-voxel write must pay); the stores with the mask bits
 *       gathered in a {@code long[]}, then one atomic OR per mask word that has bits (L2's floor
 *       for a bulk import).
 *   <li>W2: the three dependent loads of a read of L1 (root word, inner word, leaf value) through
 *       FFM, and the same loads from Java arrays ({@code long[]} words, {@code float[]} leaves),
 *       which shows what FFM's bounds and liveness checks add.
 * </ul>
 *
 * <p>It takes no part in W1r and W3 to W6 (W3's floor is the dense baseline's sum).
 */
public final class BaselineFloors implements Contender {
    /** Bytes of an L1 block's values: 512 floats. */
    static final long L1_BLOCK_BYTES = Blocks.CELLS * (long) Float.BYTES;
    /** Bytes of an L2 block's mask words before its values. */
    static final long MASK_BYTES = Blocks.CELLS / Byte.SIZE;
    /** Bytes of an L2 block: mask words, then values. */
    static final long L2_BLOCK_BYTES = MASK_BYTES + L1_BLOCK_BYTES;
    /** Words of a pointer node of L1: 16^3. */
    static final int NODE_WORDS = 4096;
    /** Bit 0 of a pointer word: active; the rest: the child's number. */
    static final long ACTIVE = 1;

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    @Override
    public String structure() {
        return "floors";
    }

    @Override
    public DataSet.Activity activity() {
        return DataSet.Activity.VOXEL;
    }

    @Override
    public List<Result> run(Workload workload, Context context) {
        return switch (workload) {
            case W1S -> stores(context);
            case W2 -> reads(context);
            case W1R, W3, W4, W5, W6, W6V -> List.of();
        };
    }

    /** The workloads this structure takes part in. */
    public static boolean takesPart(Workload workload) {
        return workload == Workload.W1S || workload == Workload.W2;
    }

    // ------------------------------------------------------------------ W1s

    private List<Result> stores(Context context) {
        NarrowBand sorted = context.data().sorted();
        Places places = Places.of(sorted);
        int voxels = sorted.size();
        float[] values = new float[voxels];
        for (int n = 0; n < voxels; n++) {
            values[n] = sorted.value(n);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment l1 = arena.allocate(places.blocks * L1_BLOCK_BYTES, Long.BYTES);
            MemorySegment l2 = arena.allocate(places.blocks * L2_BLOCK_BYTES, Long.BYTES);
            long[] valueAt = new long[voxels];
            long[] valueAt2 = new long[voxels];
            long[] maskAt = new long[voxels];
            long[] bit = new long[voxels];
            int wordsPerBlock = (int) (MASK_BYTES / Long.BYTES);
            int[] wordAt = new int[voxels];
            for (int n = 0; n < voxels; n++) {
                long block = places.block[n];
                int cell = places.cell[n];
                valueAt[n] = block * L1_BLOCK_BYTES + (long) cell * Float.BYTES;
                valueAt2[n] = block * L2_BLOCK_BYTES + MASK_BYTES + (long) cell * Float.BYTES;
                maskAt[n] = block * L2_BLOCK_BYTES + (long) (cell >>> 6) * Long.BYTES;
                bit[n] = 1L << cell;
                wordAt[n] = Math.toIntExact(block * wordsPerBlock + (cell >>> 6));
            }
            long[] gathered = new long[Math.toIntExact(places.blocks * (MASK_BYTES / Long.BYTES))];

            Trials.Timed<MemorySegment> plain = context.trials().time(label(Workload.W1S, "L1's stores at precomputed places"),
                    () -> l1.fill((byte) 0), segment -> {
                        for (int n = 0; n < voxels; n++) {
                            segment.set(ValueLayout.JAVA_FLOAT_UNALIGNED, valueAt[n], values[n]);
                        }
                    });
            Result l1Row = row(context, plain, "L1's floor: the stores alone, at precomputed places in off-heap blocks",
                    l1, valueAt, null, places.blocks * L1_BLOCK_BYTES, voxels);

            Trials.Timed<MemorySegment> perVoxel = context.trials().time(label(Workload.W1S, "L2's stores + an atomic OR per voxel"),
                    () -> l2.fill((byte) 0), segment -> {
                        for (int n = 0; n < voxels; n++) {
                            segment.set(ValueLayout.JAVA_FLOAT_UNALIGNED, valueAt2[n], values[n]);
                            WORD.getAndBitwiseOr(segment, maskAt[n], bit[n]);
                        }
                    });
            Result perVoxelRow = row(context, perVoxel,
                    "L2's floor per voxel: the stores + one atomic OR of each voxel's mask bit", l2, valueAt2, places,
                    places.blocks * L2_BLOCK_BYTES, voxels);

            Trials.Timed<MemorySegment> perWord = context.trials().time(label(Workload.W1S, "L2's stores + an atomic OR per mask word"),
                    () -> {
                        java.util.Arrays.fill(gathered, 0);
                        return l2.fill((byte) 0);
                    }, segment -> {
                        for (int n = 0; n < voxels; n++) {
                            segment.set(ValueLayout.JAVA_FLOAT_UNALIGNED, valueAt2[n], values[n]);
                            gathered[wordAt[n]] |= bit[n];
                        }
                        for (int w = 0; w < gathered.length; w++) {
                            long bits = gathered[w];
                            if (bits != 0) {
                                WORD.getAndBitwiseOr(segment, (w / wordsPerBlock) * L2_BLOCK_BYTES
                                        + (long) (w % wordsPerBlock) * Long.BYTES, bits);
                            }
                        }
                    });
            Result perWordRow = row(context, perWord,
                    "L2's floor for a bulk import: the stores + one atomic OR per mask word with bits", l2, valueAt2,
                    places, places.blocks * L2_BLOCK_BYTES, voxels);
            return List.of(l1Row, perVoxelRow, perWordRow);
        }
    }

    /** The row of a W1s floor, with the voxels and the values read back from {@code segment} (and the mask bits counted). */
    private Result row(Context context, Trials.Timed<?> timed, String api, MemorySegment segment, long[] valueAt,
                       Places masked, long bytes, int voxels) {
        double sum = 0;
        for (long at : valueAt) {
            sum += segment.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at);
        }
        Long count = null;
        if (masked != null) {
            long bits = 0;
            for (long block = 0; block < masked.blocks; block++) {
                for (long w = 0; w < MASK_BYTES; w += Long.BYTES) {
                    bits += Long.bitCount(segment.get(ValueLayout.JAVA_LONG, block * L2_BLOCK_BYTES + w));
                }
            }
            count = bits;
        }
        return Row.of(Workload.W1S, this, 1, api, timed, voxels)
                .checksums((long) voxels, sum, count)
                .memory(bytes, bytes, voxels)
                .note("no lookup, no activation: each voxel's place computed before the timing")
                .check(context.data().references(), activity());
    }

    /** Each voxel of the sorted list: its block's number in first-reached order and its cell in the block. */
    private record Places(int[] block, int[] cell, long blocks) {
        static Places of(NarrowBand sorted) {
            int[] block = Blocks.firstReached(sorted);
            int[] cell = new int[sorted.size()];
            for (int n = 0; n < sorted.size(); n++) {
                cell[n] = Blocks.cell(sorted.i(n), sorted.j(n), sorted.k(n));
            }
            return new Places(block, cell, block[sorted.size()]);
        }
    }

    // ------------------------------------------------------------------ W2

    private List<Result> reads(Context context) {
        DataSet data = context.data();
        Tree tree = Tree.of(data.sorted());
        int[] is = data.readI();
        int[] js = data.readJ();
        int[] ks = data.readK();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment root = arena.allocate((long) NODE_WORDS * Long.BYTES, Long.BYTES);
            MemorySegment inner = arena.allocate((long) tree.inner.length * Long.BYTES, Long.BYTES);
            MemorySegment leaves = arena.allocate((long) tree.leaves.length * Float.BYTES, Long.BYTES);
            MemorySegment.copy(tree.root, 0, root, ValueLayout.JAVA_LONG, 0, tree.root.length);
            MemorySegment.copy(tree.inner, 0, inner, ValueLayout.JAVA_LONG, 0, tree.inner.length);
            MemorySegment.copy(tree.leaves, 0, leaves, ValueLayout.JAVA_FLOAT, 0, tree.leaves.length);
            double[] sum = new double[2];
            Trials.Timed<double[]> ffm = context.trials().time(label(Workload.W2, "L1's loads through FFM"), () -> sum, s -> {
                double total = 0;
                for (int q = 0; q < is.length; q++) {
                    total += readFfm(root, inner, leaves, is[q], js[q], ks[q]);
                }
                s[0] = total;
            });
            Trials.Timed<double[]> arrays = context.trials().time(label(Workload.W2, "L1's loads from Java arrays"), () -> sum, s -> {
                double total = 0;
                for (int q = 0; q < is.length; q++) {
                    total += tree.read(is[q], js[q], ks[q]);
                }
                s[1] = total;
            });
            long bytes = (long) (tree.root.length + tree.inner.length) * Long.BYTES + (long) tree.leaves.length * Float.BYTES;
            return List.of(
                    Row.of(Workload.W2, this, 1, "L1's floor: root word, inner word (acquire), leaf value through FFM",
                                    ffm, DataSet.READS)
                            .checksums(null, sum[0], null)
                            .note("no coordinate check, no library code; " + bytes + " bytes as L1's three levels")
                            .check(data.references(), activity()),
                    Row.of(Workload.W2, this, 1, "the same three loads from Java arrays (no FFM checks)", arrays,
                                    DataSet.READS)
                            .checksums(null, sum[1], null)
                            .check(data.references(), activity()));
        }
    }

    private static float readFfm(MemorySegment root, MemorySegment inner, MemorySegment leaves, int i, int j, int k) {
        long top = (long) WORD.getAcquire(root, (long) Tree.rootIndex(i, j, k) * Long.BYTES);
        long node = top >>> 1;
        long word = (long) WORD.getAcquire(inner, (node * NODE_WORDS + Tree.innerIndex(i, j, k)) * Long.BYTES);
        long block = word >>> 1;
        return leaves.get(ValueLayout.JAVA_FLOAT_UNALIGNED, (block * Blocks.CELLS + Blocks.cell(i, j, k)) * Float.BYTES);
    }

    /**
     * L1's three levels as arrays: root words, inner nodes (node 0 all zero: where an inactive root
     * word leads) and leaf blocks (block 0 all zero: where an inactive inner word leads); a word is
     * {@code number << 1 | ACTIVE}, zero when inactive.
     */
    private record Tree(long[] root, long[] inner, float[] leaves) {
        static int rootIndex(int i, int j, int k) {
            return (i >>> 7) << 8 | (j >>> 7) << 4 | (k >>> 7);
        }

        static int innerIndex(int i, int j, int k) {
            return ((i >>> 3) & 15) << 8 | ((j >>> 3) & 15) << 4 | ((k >>> 3) & 15);
        }

        static Tree of(NarrowBand sorted) {
            long[] root = new long[NODE_WORDS];
            int nodes = 1;
            for (int n = 0; n < sorted.size(); n++) {
                int r = rootIndex(sorted.i(n), sorted.j(n), sorted.k(n));
                if (root[r] == 0) {
                    root[r] = (long) nodes++ << 1 | ACTIVE;
                }
            }
            long[] inner = new long[nodes * NODE_WORDS];
            int blocks = 1;
            for (int n = 0; n < sorted.size(); n++) {
                int i = sorted.i(n);
                int j = sorted.j(n);
                int k = sorted.k(n);
                int at = (int) (root[rootIndex(i, j, k)] >>> 1) * NODE_WORDS + innerIndex(i, j, k);
                if (inner[at] == 0) {
                    inner[at] = (long) blocks++ << 1 | ACTIVE;
                }
            }
            float[] leaves = new float[blocks * Blocks.CELLS];
            Tree tree = new Tree(root, inner, leaves);
            for (int n = 0; n < sorted.size(); n++) {
                int i = sorted.i(n);
                int j = sorted.j(n);
                int k = sorted.k(n);
                leaves[tree.block(i, j, k) * Blocks.CELLS + Blocks.cell(i, j, k)] = sorted.value(n);
            }
            return tree;
        }

        int block(int i, int j, int k) {
            long node = root[rootIndex(i, j, k)] >>> 1;
            return (int) (inner[(int) node * NODE_WORDS + innerIndex(i, j, k)] >>> 1);
        }

        float read(int i, int j, int k) {
            return leaves[block(i, j, k) * Blocks.CELLS + Blocks.cell(i, j, k)];
        }
    }

    private String label(Workload workload, String what) {
        return workload.id() + " " + structure() + " " + what;
    }
}
