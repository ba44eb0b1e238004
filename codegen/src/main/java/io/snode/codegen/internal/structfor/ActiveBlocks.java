package io.snode.codegen.internal.structfor;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * The snapshot a struct-for launch iterates: every active cell of the target's parent (a
 * <em>block</em>: one container of the target), with the parent cell's coordinates and, taken at
 * the same moment, which cells of the container are active (a copy of the bitmask or of the
 * pointer words' activity; a dynamic list's length). Cells activated after the snapshot are not
 * in it, which is what a launch promises.
 *
 * <p>Blocks are held in flat arrays (block {@code b}'s base coordinates at
 * {@code bases[b * arity() ...]}, its mask words at {@code masks[b * maskWords() ...]}) and kept
 * in <em>memory order</em>: by the index of the cell of the deepest pointer node above the target
 * (the allocation order of the memory that holds the block), and in tree order inside one such
 * cell. Without a pointer node above the target, all blocks live in the root and tree order is
 * memory order. Reading blocks in that order streams through the node manager's chunks instead
 * of jumping between them; the order depends only on the structure's state, never on the
 * parallelism.
 *
 * <p>How the order is found: when the target's parent is that pointer node (leaf blocks under a
 * pointer, the common case), the walk records each active parent cell at slot {@code cell} of an
 * array sized by the parent manager's capacity and sets bit {@code cell} of a bitmap; reading the
 * bitmap in order is memory order, with no sort. {@link io.snode.codegen.internal.WalkerEmitter} generates this walk per
 * target; the generic walk ({@link SnapshotWalk}) is the fallback and the reference. One pass over the bitmap then
 * writes each block's memory, base coordinates and (bitmasked targets) mask and count, reading
 * node memory in order. Deeper targets record the pointer cells, order them by a counting sort,
 * and walk below each in that order.
 *
 * <p>A launch's snapshot is kept for the next launch of the same target, which uses it as it is
 * while the structure is unchanged and else refills its arrays instead of allocating them again
 * ({@link SnapshotCache#withSnapshot}).
 *
 * <p>The walk reads pointer words with plain loads and orders with an acquire what it reads of
 * the memory a word leads to (a child container, or the recorded blocks after the walk): the
 * generated walk with a fence, the generic one by reading each active word again with acquire
 * ordering ({@code NodeUnit.forEachActive}). The word was published with a release store after
 * the child cell was written, so the child's reads come after the word's.
 */
public final class ActiveBlocks {
    final SNode target;
    final SNodePlan plan;
    /** How a block of the target records which of its cells are active: chosen once, from its kind. */
    final TargetKind activity;
    private final int arity;
    final int maskWords;
    /** Cells of a block without a length of its own: the container's, or 1 where blocks are cells. */
    private final long blockCells;
    /** The target's size on each of its index axes (1 where it does not consume the axis). */
    private final int[] sizes;
    private final long[] fieldOffsets;
    int size;
    MemorySegment[] segments;
    long[] containers;
    int[] bases;
    long[] masks;
    /** Active cells per block for bitmasked and pointer targets (the masks' bit counts), else null. */
    int[] counts;
    long[] lengths;
    /**
     * The walk's scratch, kept with the arrays for the next snapshot that reuses them: the
     * coordinates recorded by cell index, and the bitmap of recorded cells (all zero between
     * walks: the emission clears every word it reads).
     */
    int[] byCell;
    long[] present;
    /** The split first phase's bitmaps, one per task, all zero between walks; null until a walk splits. */
    long[][] taskPresent;
    /**
     * The structure's epoch and activation stamp read before the walk ({@link #stamp}); -1
     * until stamped. Equal numbers later mean that the snapshot still describes the structure.
     */
    private long epochStamp = -1;
    private long activationStamp = -1;
    /** Running sums of the blocks' weights for splitting a launch ({@link #weightPrefix()}); made once. */
    private volatile long[] weightPrefix;
    /** The running sums' array of the snapshot whose arrays this one took over, refilled by {@link #weightPrefix()}; guarded by {@link #prefixLock}. */
    private long[] sparePrefix;
    private final Object prefixLock = new Object();
    /** A dynamic target's element chunks and directory blocks (null for other kinds, and no directory). */
    private final CheckedCells elementChunks;
    private final CheckedCells directoryBlocks;
    /** Where each list's chunks lie ({@link #listChunks()}); made on the first block-form launch. */
    private volatile ListChunks listChunks;
    /** The chunk arrays of the snapshot whose arrays this one took over, refilled by {@link #listChunks()}. */
    private ListChunks spareChunks;
    private final Object chunkLock = new Object();

    /**
     * Blocks of {@code target}, room for {@code capacity}; the arrays of {@code spare} (an
     * earlier snapshot of the same target that nobody reads any more, or null) are taken over
     * when they are large enough, so that a launch need not allocate and zero them again.
     */
    ActiveBlocks(NodeTree structure, SNode target, SNodePlan plan, int capacity, ActiveBlocks spare) {
        this.target = target;
        this.plan = plan;
        this.arity = target.indexAxes().size();
        this.activity = TargetKind.of(plan.kind());
        this.maskWords = activity.maskWords(plan);
        this.blockCells = activity.blocksAreCells() ? 1 : plan.cellCount();
        this.elementChunks = activity.hasLengths() ? structure.cells(target) : null;
        this.directoryBlocks = activity.hasLengths() ? structure.directories(target) : null;
        this.spareChunks = spare != null && spare.target == target ? spare.listChunks : null;
        boolean reuse = spare != null && spare.target == target && spare.segments.length >= capacity;
        this.segments = reuse ? spare.segments : new MemorySegment[capacity];
        this.containers = reuse ? spare.containers : new long[capacity];
        this.bases = reuse ? spare.bases : new int[capacity * arity];
        this.masks = maskWords == 0 ? null : reuse ? spare.masks : new long[capacity * maskWords];
        this.counts = maskWords == 0 ? null : reuse ? spare.counts : new int[capacity];
        this.lengths = !activity.hasLengths() ? null : reuse ? spare.lengths : new long[capacity];
        this.sparePrefix = reuse ? spare.weightPrefix : null;
        this.sizes = new int[arity];
        for (int n = 0; n < arity; n++) {
            sizes[n] = target.size(target.indexAxes().get(n));
        }
        this.fieldOffsets = new long[target.fields().size()];
        for (int slot = 0; slot < fieldOffsets.length; slot++) {
            fieldOffsets[slot] = plan.fieldOffset(slot);
        }
    }

    /** The blocks of {@code target} active now, in memory order. */
    public static ActiveBlocks of(NodeTree structure, SNode target) {
        return of(structure, target, 0);
    }

    /**
     * The blocks of {@code target} active now, in memory order; {@code expected} (say, the size
     * of the previous snapshot) sizes the arrays so that they need not grow.
     */
    public static ActiveBlocks of(NodeTree structure, SNode target, int expected) {
        return of(structure, target, expected, null);
    }

    /**
     * As {@link #of(NodeTree, SNode, int)}, with the first phase done by {@code walker}, the
     * walk that {@link io.snode.codegen.internal.WalkerEmitter} generated for {@code target}
     * (null: the generic walk).
     */
    public static ActiveBlocks of(NodeTree structure, SNode target, int expected, GeneratedWalk walker) {
        return of(structure, target, expected, walker, null, WalkSplit.SEQUENTIAL);
    }

    /**
     * As {@link #of(NodeTree, SNode, int, MethodHandle)}, refilling the arrays of
     * {@code spare}: an earlier snapshot of {@code target} that no launch reads any more (it is
     * overwritten; null: allocate). A launch of 56,628 blocks otherwise allocates and zeroes
     * several megabytes per call.
     */
    public static ActiveBlocks of(NodeTree structure, SNode target, int expected, GeneratedWalk walker,
                                  ActiveBlocks spare) {
        return of(structure, target, expected, walker, spare, WalkSplit.SEQUENTIAL);
    }

    /**
     * As {@link #of(NodeTree, SNode, int, GeneratedWalk, ActiveBlocks)}, the walk split over the
     * launches' pool as {@code split} says: the same blocks in the same order, on more threads.
     */
    public static ActiveBlocks of(NodeTree structure, SNode target, int expected, GeneratedWalk walker,
                                  ActiveBlocks spare, WalkSplit split) {
        if (target.kind() == NodeKind.ROOT) {
            throw new IllegalArgumentException("snode=root has one cell and no coordinates; read its fields directly");
        }
        if (spare != null && spare.target != target) {
            throw new IllegalArgumentException("the spare snapshot is of " + spare.target.path() + ", not of "
                    + target.path());
        }
        SnapshotWalk walk = new SnapshotWalk(structure, target);
        walk.walker = walker;
        walk.spare = spare;
        walk.split = java.util.Objects.requireNonNull(split, "split");
        return walk.run(expected);
    }

    public SNode target() {
        return target;
    }

    /**
     * Records the structure's epoch and activation stamp as read before this snapshot's walk
     * began (see {@link NodeTree#activationStamp()}).
     */
    void stamp(long epoch, long activations) {
        this.epochStamp = epoch;
        this.activationStamp = activations;
    }

    /**
     * Whether the structure is as this snapshot saw it: no activation, deactivation
     * or collection completed since its walk began ({@code epoch} and {@code activations} read
     * now, before the snapshot would be used).
     */
    boolean describes(long epoch, long activations) {
        return epochStamp == epoch && activationStamp == activations && epochStamp >= 0;
    }

    /** The epoch stamped before this snapshot's walk; -1 until stamped. */
    public long epochStamp() {
        return epochStamp;
    }

    /** Number of blocks. */
    public int size() {
        return size;
    }

    /** Coordinates per block: the target's index axes. */
    public int arity() {
        return arity;
    }

    /** Mask words per block: 0 unless the target is bitmasked or pointer. */
    public int maskWords() {
        return maskWords;
    }

    /** Memory holding block {@code b}. */
    public MemorySegment segment(int b) {
        return segments[b];
    }

    /** Byte offset of block {@code b}'s container in {@link #segment(int)}. */
    public long container(int b) {
        return containers[b];
    }

    /**
     * Base coordinates of every block, {@link #arity()} per block: the parent cell's coordinates
     * in the target's index axes (0 on axes the target adds). The array itself, not a copy.
     */
    public int[] bases() {
        return bases;
    }

    /** Mask words of every block, {@link #maskWords()} per block (bit n: cell n), or null. The array itself. */
    public long[] masks() {
        return masks;
    }

    /** Cells block {@code b} spans in the visit: a dynamic target's length, 1 for a hash target's, else its cell count. */
    public long length(int b) {
        return lengths == null ? blockCells : lengths[b];
    }

    /** Number of cells of block {@code b} the launch visits. */
    public long activeCells(int b) {
        return counts == null ? length(b) : counts[b];
    }

    /**
     * {@code prefix[b]}: the sum over blocks before {@code b} of {@code max(1, activeCells)}, for
     * {@code b} up to {@link #size()}: how a launch splits the blocks into tasks. Made on first
     * use and kept, so launches over a kept or reused snapshot do not make it again.
     */
    public long[] weightPrefix() {
        long[] prefix = weightPrefix;
        if (prefix != null) {
            return prefix;
        }
        synchronized (prefixLock) { // two launches of a kept set may come here at once
            prefix = weightPrefix;
            if (prefix == null) {
                prefix = sparePrefix != null && sparePrefix.length >= size + 1 ? sparePrefix : new long[size + 1];
                sparePrefix = null;
                prefix[0] = 0;
                for (int b = 0; b < size; b++) {
                    prefix[b + 1] = prefix[b] + Math.max(1, activeCells(b));
                }
                weightPrefix = prefix;
            }
            return prefix;
        }
    }

    /** Block {@code b} as a block kernel sees it (dense, bitmasked and dynamic targets). */
    public LeafBlock leaf(int b) {
        if (activity.hasLengths()) {
            return list(b, plan.chunkSize(), plan.cellBytes());
        }
        return leaf(b, plan.cellsOffset(), plan.cellBytes(), plan.cellCount());
    }

    /**
     * Block {@code b}, with the target's cell geometry passed in: the generated block drivers
     * pass the plan's numbers as literals, so that once the kernel is inlined the block's size is
     * a constant and the JIT can unroll loops over its cells and drop their bounds checks.
     */
    public LeafBlock leaf(int b, long cellsOffset, long cellBytes, long cellCount) {
        return new LeafBlock(target, segments[b], containers[b] + cellsOffset, cellBytes, cellCount,
                bases, b * arity, sizes, masks, b * maskWords, maskWords, activeCells(b), fieldOffsets);
    }

    /**
     * List {@code b} of a dynamic target as a block kernel sees it: its length and its chunks
     * ({@link ListChunks}), with the target's chunk size and element bytes passed in as
     * literals by the generated block drivers (see {@link #leaf(int, long, long, long)}).
     */
    public LeafBlock list(int b, long chunkSize, long cellBytes) {
        ListChunks chunks = listChunks();
        return new LeafBlock(target, lengths[b], chunkSize, cellBytes, chunks.segments, chunks.offsets,
                chunks.first[b], bases, b * arity, sizes, fieldOffsets);
    }

    /**
     * Memory of chunk {@code c} of list {@code b} (a dynamic target's), as the block forms find it
     * ({@link ListChunks}), for the per-element drivers of views that read the visited element;
     * null where the chunk had no memory when the chunks were resolved (the view then reads and
     * writes that chunk's elements through their coordinates, which see memory a later write
     * gave it). {@code c} lies below {@code ceil(length(b) / chunkSize)}.
     */
    public MemorySegment chunkSegment(int b, long c) {
        return listChunks().memory(b, c);
    }

    /** Byte offset of chunk {@code c} of list {@code b} in {@link #chunkSegment}. */
    public long chunkOffset(int b, long c) {
        ListChunks chunks = listChunks();
        return chunks.offsets[chunks.first[b] + (int) c];
    }

    /**
     * Where the chunks of every list lie, resolved on first use and kept with this snapshot.
     * Dynamic targets only. Launches racing here (over a kept set, or a snapshot reused by two
     * threads' launches) resolve once, under the lock: the spare's arrays are refilled by one.
     */
    ListChunks listChunks() {
        ListChunks chunks = listChunks;
        if (chunks != null) {
            return chunks;
        }
        if (elementChunks == null) {
            throw new AssertionError(target.path() + " is no dynamic node: its blocks have no list chunks");
        }
        synchronized (chunkLock) {
            chunks = listChunks;
            if (chunks == null) {
                chunks = ListChunks.resolve(this, elementChunks, directoryBlocks, spareChunks);
                spareChunks = null;
                listChunks = chunks;
            }
            return chunks;
        }
    }

    /**
     * What a launch throws when a block kernel threw {@code thrown} at block {@code b}: a
     * {@link KernelException} with the block's origin, or {@code thrown} itself when it already
     * is one (from a launch inside the kernel).
     */
    public RuntimeException failure(int b, Throwable thrown) {
        if (thrown instanceof KernelException e) {
            return e;
        }
        int[] origin = base(b);
        for (int n = 0; n < origin.length; n++) {
            origin[n] *= sizes[n];
        }
        return new KernelException(target.path(), origin, thrown);
    }

    /** Base coordinates of block {@code b} (a copy). */
    public int[] base(int b) {
        return Arrays.copyOfRange(bases, b * arity, (b + 1) * arity);
    }

    int add(MemorySegment segment, long container) {
        if (size == segments.length) {
            int capacity = Math.max(16, size * 2);
            segments = Arrays.copyOf(segments, capacity);
            containers = Arrays.copyOf(containers, capacity);
            bases = Arrays.copyOf(bases, capacity * arity);
            if (masks != null) {
                masks = Arrays.copyOf(masks, capacity * maskWords);
                counts = Arrays.copyOf(counts, capacity);
            }
            if (lengths != null) {
                lengths = Arrays.copyOf(lengths, capacity);
            }
        }
        segments[size] = segment;
        containers[size] = container;
        return size++;
    }

    /**
     * Numbers the axes the nodes of {@code chain} use, in order of first use: {@code slotOf[axis
     * ordinal]} becomes the axis's coordinate slot (-1 for unused axes). Returns the number of
     * slots. The generic walk and the generated one ({@link io.snode.codegen.internal.WalkerEmitter}) lay coordinates out
     * this way.
     */
    public static int numberSlots(SNode[] chain, int[] slotOf) {
        Arrays.fill(slotOf, -1);
        int slots = 0;
        for (SNode node : chain) {
            for (Axis axis : node.axes().list()) {
                if (slotOf[axis.ordinal()] < 0) {
                    slotOf[axis.ordinal()] = slots++;
                }
            }
        }
        return slots;
    }

}
