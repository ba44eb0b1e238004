package io.snode.codegen.internal.structfor;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.internal.MaskCopy;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.AxisSplit;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.node.ActiveCellVisitor;
import io.snode.runtime.internal.node.NodeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

/**
 * One walk from the root to the target's containers, filling an {@link ActiveBlocks} snapshot;
 * no allocation per visited cell. How the blocks come out in memory order is told in
 * {@link ActiveBlocks}' class comment. Each level's active cells come from its node unit's
 * {@link NodeUnit#forEachActive}, with this walk as the visitor of every level.
 *
 * <p>With a pool ({@link WalkSplit}) a large walk under a pointer parent splits, both phases:
 * the generated first phase runs per active cell of the root's child container, in tasks of
 * neighbouring cells with a bitmap each, and the emission runs in ranges of bitmap words, each
 * range's first block the prefix sum of the bits before it (one pass merges the tasks' bitmaps
 * and counts). The blocks, their order and what is recorded of each are those of the walk on one
 * thread. A split walk only reads node memory, as a whole one does, and writes only this walk's
 * arrays, each slot by one task; a task that throws ends the walk with its exception after the
 * others end, and the arrays, with bits left set, are dropped with the walk (a failed launch
 * keeps no snapshot for reuse).
 */
final class SnapshotWalk implements ActiveCellVisitor {
    private final NodeTree structure;
    private final SNode target;
    private final SNode[] chain;
    private final SNodePlan[] plans;
    /** The node unit of each level below the root: units[level] = structure.unit(chain[level]). */
    private final NodeUnit[] units;
    /** Offset of chain[level + 1]'s container inside a cell of chain[level]. */
    private final long[] childOffsets;
    /**
     * Coordinates of the cell visited at each level, by <em>slot</em>: the position of the
     * axis among the axes any node of the chain uses ({@link #width} of them).
     */
    private final int[][] at;
    private final int width;
    /**
     * Per level and axis of the node: the coordinate slot, and how a cell index of its
     * container splits into the local coordinate ({@link AxisSplit#split} with the stride as
     * divisor; shift >= 0 when stride and size are powers of two).
     */
    private final int[][] splitSlot;
    private final int[][] splitSize;
    private final int[][] splitShift;
    private final long[][] splitStride;
    /** Slot of each of the target's index axes. */
    private final int[] targetSlots;
    /**
     * Level of the deepest pointer or hash node above the target whose cells hold its blocks,
     * or -1; the target's own level when its blocks are its cells ({@link #cellBlocks}).
     */
    private final int keyLevel;
    /** Whether each block is one active cell of the target (a hash target). */
    private final boolean cellBlocks;
    /** Level at which the first phase stops and records the cell, or -1 in the second. */
    private int stopLevel;
    private int records;
    private int[] recordCells;
    private int[] recordCoordinates;
    /**
     * When the key level is the target's parent: records go straight to slot {@code cell}
     * of {@link #byCell} (coordinates, {@link #width} per cell) and set bit {@code cell} of
     * {@link #present}; reading the bits in order is the memory order, with no sort.
     */
    private boolean direct;
    /** The generated first phase of the direct case, or null. */
    GeneratedWalk walker;
    /** Whether and how this walk splits over the launches' pool. */
    WalkSplit split = WalkSplit.SEQUENTIAL;
    /**
     * The split first phase's bitmaps, one per task (like {@link #present}, all zero between
     * walks: the emission clears every word it reads), or null when the first phase ran whole.
     */
    private long[][] taskPresent;
    /** While the split first phase lists the active cells of the root's child container. */
    private boolean collectingTops;
    private int tops;
    private MemorySegment[] topSegments;
    private long[] topCells;
    private int[] topCoordinates;
    private int capacity;
    private int[] byCell;
    private long[] present;
    private ActiveBlocks blocks;
    /** An earlier snapshot whose arrays this one reuses, or null. */
    ActiveBlocks spare;

    SnapshotWalk(NodeTree structure, SNode target) {
        this.structure = structure;
        this.target = target;
        List<SNode> ancestry = target.ancestry();
        this.chain = ancestry.toArray(new SNode[0]);
        int levels = chain.length;
        this.plans = new SNodePlan[levels];
        this.units = new NodeUnit[levels];
        this.childOffsets = new long[levels];
        int deepestPointer = -1;
        for (int level = 0; level < levels; level++) {
            plans[level] = structure.plan().node(chain[level]);
            units[level] = level == 0 ? null : structure.unit(chain[level]);
            if (level + 1 < levels) {
                childOffsets[level] = plans[level].childContainerOffset(chain[level].children().indexOf(chain[level + 1]));
                if (level > 0 && plans[level].hasChildCells()) {
                    deepestPointer = level;
                }
            }
        }
        this.cellBlocks = TargetKind.of(target.kind()).blocksAreCells();
        // blocks that are cells of a hash target are recorded by their own cell index
        this.keyLevel = cellBlocks ? levels - 1 : deepestPointer;
        int[] slotOf = new int[Axis.MAX_AXES];
        int slots = ActiveBlocks.numberSlots(chain, slotOf);
        this.width = slots;
        this.at = new int[levels][slots];
        this.splitSlot = new int[levels][];
        this.splitSize = new int[levels][];
        this.splitShift = new int[levels][];
        this.splitStride = new long[levels][];
        for (int level = 1; level < levels; level++) {
            SNode node = chain[level];
            int axes = node.sizes().length;
            splitSlot[level] = new int[axes];
            splitSize[level] = new int[axes];
            splitShift[level] = new int[axes];
            splitStride[level] = new long[axes];
            for (int n = 0; n < axes; n++) {
                int size = node.sizes()[n];
                long stride = plans[level].stride(n);
                splitSlot[level][n] = slotOf[node.axes().list().get(n).ordinal()];
                splitSize[level][n] = size;
                splitStride[level][n] = stride;
                splitShift[level][n] = Long.bitCount(stride) == 1 && Integer.bitCount(size) == 1
                        ? Long.numberOfTrailingZeros(stride) : -1;
            }
        }
        List<Axis> axes = target.indexAxes();
        this.targetSlots = new int[axes.size()];
        for (int n = 0; n < targetSlots.length; n++) {
            targetSlots[n] = slotOf[axes.get(n).ordinal()];
        }
    }

    /**
     * Without a pointer node above the target, tree order is memory order: one walk. Else
     * two phases: walk down to the key level and record each active cell there (its index and
     * coordinates), order the records by cell index, then walk below each record in that
     * order, so blocks land in their final place and nothing is permuted afterwards.
     */
    ActiveBlocks run(int expected) {
        SNodePlan targetPlan = plans[chain.length - 1];
        if (keyLevel < 0) {
            blocks = new ActiveBlocks(structure, target, targetPlan, Math.max(16, expected), spare);
            stopLevel = -1;
            visit(0, structure.root(), 0);
            return blocks;
        }
        stopLevel = keyLevel;
        CheckedCells keyCells = structure.cells(chain[keyLevel]);
        if (keyLevel == chain.length - 2) {
            long cellCapacity = keyCells.capacity();
            if (cellCapacity <= (Integer.MAX_VALUE - 64) / Math.max(1, width)) {
                return runDirect(keyCells, (int) cellCapacity, expected);
            }
        }
        // the records of the two-phase walk (the direct one above records by cell index instead)
        int recordCapacity = Math.max(64, expected);
        recordCells = new int[recordCapacity];
        recordCoordinates = new int[recordCapacity * width];
        visit(0, structure.root(), 0);
        long perRecord = 1;
        for (int level = keyLevel + 1; level < chain.length - 1; level++) {
            perRecord = Math.min(1 << 20, perRecord * plans[level].cellCount());
        }
        blocks = new ActiveBlocks(structure, target, targetPlan, (int) Math.max(Math.max(16, expected),
                Math.min((long) records * perRecord, (long) records * 8 + 64)), spare);
        stopLevel = -1;
        CheckedCells cells = structure.cells(chain[keyLevel]);
        boolean direct = keyLevel == chain.length - 2;
        long childOffset = childOffsets[keyLevel];
        int[] level = at[keyLevel];
        for (int record : order()) {
            int cell = recordCells[record];
            MemorySegment segment = cells.segment(cell);
            long offset = cells.offset(cell);
            if (cellBlocks) {
                snapshot(segment, offset, recordCoordinates, record * width);
            } else if (direct) {
                snapshot(segment, offset + childOffset, recordCoordinates, record * width);
            } else {
                System.arraycopy(recordCoordinates, record * width, level, 0, width);
                visit(keyLevel, segment, offset);
            }
        }
        return blocks;
    }

    /**
     * The blocks are the cells of the key level: record them by cell index, then emit them
     * in index order. Cells at or above {@code cellCapacity} (read before the walk) were
     * allocated while the walk ran, so they are left out, as any cell activated after the
     * launch started may be.
     */
    private ActiveBlocks runDirect(CheckedCells cells, int cellCapacity, int expected) {
        direct = true;
        capacity = cellCapacity;
        int presentWords = (int) BitmaskWords.words(cellCapacity);
        boolean reuse = spare != null && spare.byCell != null && spare.byCell.length >= cellCapacity * width
                && spare.present.length >= presentWords;
        byCell = reuse ? spare.byCell : new int[cellCapacity * width];
        present = reuse ? spare.present : new long[presentWords];
        if (walker != null && walker.below() != null && split.tasks(cellCapacity, 2) > 1) {
            records = walkSplit(presentWords, reuse ? spare.taskPresent : null);
        } else if (walker != null) {
            try {
                records = (int) walker.walk().invokeExact(byCell, present, cellCapacity);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("the generated walk of " + target.path() + " failed", e);
            }
        } else {
            visit(0, structure.root(), 0);
        }
        blocks = new ActiveBlocks(structure, target, plans[chain.length - 1], Math.max(16, Math.max(records, expected)),
                spare);
        blocks.byCell = byCell;
        blocks.present = present;
        blocks.taskPresent = taskPresent;
        stopLevel = -1;
        int ranges = split.tasks(records, presentWords);
        if (ranges > 1) {
            emitSplit(cells, presentWords, ranges);
        } else {
            blocks.size = emitDirect(cells, 0, presentWords, 0);
            if (!blocks.activity.copiedWhileEmitted()) {
                blocks.activity.recordAll(blocks);
            }
        }
        return blocks;
    }

    /**
     * The first phase split over the pool: the active cells of the root's child container are
     * listed here (in tree order), then tasks of neighbouring ones each run the generated
     * {@code walkBelow} on theirs, into {@link #byCell} (every parent cell has one slot, written
     * by the one task that meets it) and a bitmap of the task's own. Returns the cells recorded.
     */
    private int walkSplit(int presentWords, long[][] spareBitmaps) {
        collectingTops = true;
        tops = 0;
        topSegments = new MemorySegment[16];
        topCells = new long[16];
        topCoordinates = new int[16 * width];
        try {
            visit(0, structure.root(), 0);
        } finally {
            collectingTops = false;
        }
        int tasks = split.tasks(capacity, tops);
        boolean reuse = spareBitmaps != null && spareBitmaps.length >= tasks && spareBitmaps[0].length >= presentWords;
        taskPresent = reuse ? spareBitmaps : new long[tasks][presentWords];
        List<IntSupplier> parts = new ArrayList<>(tasks);
        for (int t = 0; t < tasks; t++) {
            int from = (int) ((long) tops * t / tasks);
            int to = (int) ((long) tops * (t + 1) / tasks);
            long[] bitmap = taskPresent[t];
            parts.add(() -> walkBelow(from, to, bitmap));
        }
        int recorded = 0;
        for (int count : invokeAll(parts)) {
            recorded += count;
        }
        return recorded;
    }

    /** The generated walk below tops [from, to) into {@code bitmap}; the cells recorded. */
    private int walkBelow(int from, int to, long[] bitmap) {
        int[] at = new int[width];
        int count = 0;
        MethodHandle below = walker.below();
        for (int top = from; top < to; top++) {
            System.arraycopy(topCoordinates, top * width, at, 0, width);
            try {
                count += (int) below.invokeExact(topSegments[top], topCells[top], at, byCell, bitmap, capacity);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("the generated walk of " + target.path() + " failed", e);
            }
        }
        return count;
    }

    /** An active cell of the root's child container, listed for the split first phase. */
    private void addTop(long index, MemorySegment segment, long cell) {
        if (tops == topCells.length) {
            topSegments = Arrays.copyOf(topSegments, tops * 2);
            topCells = Arrays.copyOf(topCells, tops * 2);
            topCoordinates = Arrays.copyOf(topCoordinates, tops * 2 * width);
        }
        topSegments[tops] = segment;
        topCells[tops] = cell;
        descend(0, index, topCoordinates, tops * width);
        tops++;
    }

    /**
     * The emission split into {@code ranges} ranges of bitmap words: one pass here merges the
     * tasks' bitmaps into {@link #present} (clearing theirs) and counts each range's bits, whose
     * prefix sum is each range's first block; then each range is emitted by a task of its own.
     */
    private void emitSplit(CheckedCells cells, int presentWords, int ranges) {
        int[] firstWord = new int[ranges + 1];
        int[] firstBlock = new int[ranges + 1];
        for (int r = 0; r < ranges; r++) {
            firstWord[r] = (int) ((long) presentWords * r / ranges);
        }
        firstWord[ranges] = presentWords;
        for (int r = 0; r < ranges; r++) {
            int count = 0;
            for (int word = firstWord[r]; word < firstWord[r + 1]; word++) {
                count += Long.bitCount(mergedWord(word));
            }
            firstBlock[r + 1] = firstBlock[r] + count;
        }
        taskPresent = null; // merged: the ranges read present alone
        boolean recordAfter = !blocks.activity.copiedWhileEmitted();
        List<IntSupplier> parts = new ArrayList<>(ranges);
        for (int r = 0; r < ranges; r++) {
            int range = r;
            parts.add(() -> {
                int end = emitDirect(cells, firstWord[range], firstWord[range + 1], firstBlock[range]);
                if (recordAfter) {
                    for (int b = firstBlock[range]; b < end; b++) {
                        blocks.activity.record(blocks, b, blocks.segments[b], blocks.containers[b]);
                    }
                }
                return end;
            });
        }
        invokeAll(parts);
        blocks.size = firstBlock[ranges];
    }

    /** Word {@code word} of {@link #present} with the tasks' bitmaps ORed in (and cleared); stored back and returned. */
    private long mergedWord(int word) {
        long bits = present[word];
        if (taskPresent != null) {
            for (long[] bitmap : taskPresent) {
                bits |= bitmap[word];
                bitmap[word] = 0;
            }
        }
        present[word] = bits;
        return bits;
    }

    /**
     * Runs {@code parts} and returns their results in order: the calling thread and up to
     * parallelism - 1 helpers on the pool each take the next part not yet taken until none is
     * left ({@link TaskRunner}), so the parts run on as many threads as are free, without waiting for
     * a helper to start (a helper that starts after every part was taken does nothing). Returns
     * once every part has ended; the first part's exception is rethrown, after the others end.
     */
    private int[] invokeAll(List<IntSupplier> parts) {
        int[] results = new int[parts.size()];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Returns once every part has ended: the parts write into this walk's arrays.
        TaskRunner.forkJoin(split.pool()).forRange(parts.size(), 1, (from, to) -> {
            for (int p = (int) from; p < to && failure.get() == null; p++) {
                try {
                    results[p] = parts.get(p).getAsInt();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }
        });
        LaunchSplit.rethrow(failure.get());
        return results;
    }

    /**
     * Blocks in the order of the present bits of words {@code [fromWord, toWord)}, from block
     * {@code firstBlock} on (clearing the bits for the next walk; the tasks' bitmaps of a split
     * first phase are merged in): memory, base coordinates, and for a bitmasked target its mask
     * and count in the same pass (the block's memory is read in order, once). Inside one chunk,
     * cells lie at the manager's constant stride, so the chunk is looked up once per run of
     * cells. Returns the block after the last one written.
     */
    private int emitDirect(CheckedCells cells, int fromWord, int toWord, int firstBlock) {
        long childOffset = childOffsets[keyLevel];
        long stride = cells.cellStride();
        MemorySegment[] segments = blocks.segments;
        long[] containers = blocks.containers;
        int[] bases = blocks.bases;
        int[] slots = targetSlots;
        int arity = slots.length;
        int width = this.width;
        long[] present = this.present;
        int[] byCell = this.byCell;
        boolean masked = blocks.activity.copiedWhileEmitted();
        int words = blocks.maskWords;
        long[] masks = blocks.masks;
        int[] counts = blocks.counts;
        boolean inOrder = true; // the target's slots are the first ones: coordinates copy straight
        for (int n = 0; n < arity; n++) {
            inOrder &= slots[n] == n;
        }
        MemorySegment chunk = null;
        long chunkEnd = 0;
        long chunkBase = 0;
        int b = firstBlock;
        for (int word = fromWord; word < toWord; word++) {
            long bits = taskPresent == null ? present[word] : mergedWord(word);
            if (bits == 0) {
                continue;
            }
            present[word] = 0;
            do {
                int cell = (int) BitmaskWords.lowestIndex(word, bits);
                bits &= bits - 1;
                if (cell >= chunkEnd) {
                    chunk = cells.segment(cell);
                    chunkEnd = cells.chunkEnd(cell);
                    chunkBase = cells.offset(cell) - cell * stride + childOffset;
                }
                long container = chunkBase + cell * stride;
                if (segments[b] != chunk) {
                    segments[b] = chunk; // a reused array mostly holds the same chunk already
                }
                containers[b] = container;
                int from = cell * width;
                int to = b * arity;
                if (inOrder) {
                    for (int n = 0; n < arity; n++) {
                        bases[to + n] = byCell[from + n];
                    }
                } else {
                    for (int n = 0; n < arity; n++) {
                        bases[to + n] = byCell[from + slots[n]];
                    }
                }
                if (masked) {
                    counts[b] = MaskCopy.copy(chunk, container, masks, b * words, words);
                }
                b++;
            } while (bits != 0);
        }
        if (masked) {
            VarHandle.acquireFence();
        }
        return b;
    }

    /** Record numbers by cell index: a counting sort when the indices are dense enough. */
    private int[] order() {
        int[] order = new int[records];
        int maxCell = 0;
        boolean sorted = true;
        for (int r = 0; r < records; r++) {
            maxCell = Math.max(maxCell, recordCells[r]);
            sorted &= r == 0 || recordCells[r - 1] <= recordCells[r];
        }
        if (sorted) {
            for (int r = 0; r < records; r++) {
                order[r] = r;
            }
        } else if ((long) maxCell + 1 <= 4L * records + 4096) {
            int[] starts = new int[maxCell + 2];
            for (int r = 0; r < records; r++) {
                starts[recordCells[r] + 1]++;
            }
            for (int cell = 0; cell <= maxCell; cell++) {
                starts[cell + 1] += starts[cell];
            }
            for (int r = 0; r < records; r++) {
                order[starts[recordCells[r]]++] = r;
            }
        } else {
            long[] packed = new long[records];
            for (int r = 0; r < records; r++) {
                packed[r] = (long) recordCells[r] << 32 | r;
            }
            Arrays.sort(packed);
            for (int r = 0; r < records; r++) {
                order[r] = (int) packed[r];
            }
        }
        return order;
    }

    /** Records cell {@code cell} of the key level, at the coordinates of cell {@code index} below at[level]. */
    private void record(int cell, int level, long index) {
        if (direct) {
            if (cell < capacity) {
                descend(level, index, byCell, cell * width);
                BitmaskWords.set(present, 0, cell);
                records++;
            }
            return;
        }
        if (records == recordCells.length) {
            recordCells = Arrays.copyOf(recordCells, records * 2);
            recordCoordinates = Arrays.copyOf(recordCoordinates, records * 2 * width);
        }
        recordCells[records] = cell;
        descend(level, index, recordCoordinates, records * width);
        records++;
    }

    /** At the cell of chain[level] at {@code cell} in {@code segment} (coordinates at[level]). */
    private void visit(int level, MemorySegment segment, long cell) {
        long container = cell + childOffsets[level];
        int childLevel = level + 1;
        if (childLevel == chain.length - 1 && !cellBlocks) {
            snapshot(segment, container, at[level], 0);
            return;
        }
        units[childLevel].forEachActive(segment, container, this, level);
    }

    /**
     * An active cell {@code index} of chain[level + 1]'s container below the cell of
     * chain[level]: recorded at the first phase's stop level (a pointer child: {@code managed}
     * is its cell index), else walked below.
     */
    @Override
    public void visit(int level, long index, MemorySegment segment, long cell, long managed) {
        int childLevel = level + 1;
        if (collectingTops) {
            addTop(index, segment, cell);
            return;
        }
        if (childLevel == stopLevel) {
            record((int) managed, level, index);
            return;
        }
        descend(level, index, at[childLevel], 0);
        visit(childLevel, segment, cell);
    }

    /**
     * Writes to {@code to[toAt ...]} the coordinates of cell {@code index} of
     * chain[level + 1]'s container below at[level].
     */
    private void descend(int level, long index, int[] to, int toAt) {
        int[] from = at[level];
        for (int slot = 0; slot < width; slot++) {
            to[toAt + slot] = from[slot];
        }
        int child = level + 1;
        int[] slots = splitSlot[child];
        int[] sizes = splitSize[child];
        int[] shifts = splitShift[child];
        long[] strides = splitStride[child];
        for (int n = 0; n < slots.length; n++) {
            int size = sizes[n];
            int local = (int) AxisSplit.split(index, strides[n], shifts[n], size);
            to[toAt + slots[n]] = from[slots[n]] * size + local;
        }
    }

    /** One block: the container at {@code container}, its parent's coordinates at {@code parent[parentAt ...]}. */
    private void snapshot(MemorySegment segment, long container, int[] parent, int parentAt) {
        int b = blocks.add(segment, container);
        int[] bases = blocks.bases;
        int arity = targetSlots.length;
        for (int n = 0; n < arity; n++) {
            bases[b * arity + n] = parent[parentAt + targetSlots[n]];
        }
        blocks.activity.record(blocks, b, segment, container);
    }
}
