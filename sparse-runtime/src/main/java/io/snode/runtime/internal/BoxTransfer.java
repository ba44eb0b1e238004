package io.snode.runtime.internal;

import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.AxisSplit;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.PathStep;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.node.NodeUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.List;

/**
 * Bulk copies of one field between node memory and a linear buffer (a heap segment over a Java
 * array, or any {@link MemorySegment}), container by container instead of one walk per cell:
 * a box of the field's index space in row-major order (the last coordinate fastest), and lists
 * of cells given by their coordinates.
 *
 * <p>The field's SNode must be dense or bitmasked (the kinds whose cells lie inline in one
 * container); {@link #supports} says so. For each container the box cuts, a write activates the
 * path to it once (the activation protocol of {@link NodeTree}, for the cell of the parent that
 * holds the container: {@link NodeTree#activateContainer}, which sets no bit of the container's
 * own cells), stores the values of its cells in the box, then sets their mask bits with one
 * atomic OR per mask word; a read walks to the container without activating anything and copies
 * what it holds, zero for inactive cells (the ambient value), and leaves the buffer's part of an
 * inactive container zero. A write of a list of cells ({@link #writeCells}) does the same per
 * cell, with the containers of recent cells remembered (on a dense SNode, for a list at least as
 * long as one slab's containers, all the containers of the current slab: {@link #writeSlabs});
 * a scattered list, whose cells keep coming back to containers it forgot, goes on container by
 * container once its cells are grouped by container in scratch memory.
 *
 * <p><b>Shared state and failure.</b> What a write publishes is what per-cell writes publish:
 * pointer cells through the activation protocol (reserve, then publish top-down; a refusal by the
 * memory cap or an allocator fault leaves that container's path as it was), value stores, and
 * mask bits with atomic ORs. The order differs: a per-cell write activates its cell (sets the
 * bit) and then stores, so a reader may see the cell active and zero for a moment, as between an
 * activation and a write; a bulk write sets each bit after the value it publishes (a reader that
 * sees a bit with acquire ordering sees its value; one that reads the memory of a cell whose bit
 * is not set yet may see the new value or zero). A bulk write is a batch of such writes, like a launch, and never takes
 * back what it published (other threads may already use it): a box write activates a container
 * before anything is stored into it, and nothing after the activation can fail, so when the cap
 * refuses a container the containers before it are written whole and active, and nothing of that
 * container or the ones after it; a list write sets the bits of every cell it stored before the
 * exception leaves, so a prefix of the list is written and active, and nothing after it. Bad
 * input (coordinates outside the index space) is refused by the caller before the first store. A
 * container that another thread deactivates while a write copies into it is that caller's race,
 * as for per-cell writes.
 */
public final class BoxTransfer {
    private final NodeTree tree;
    private final SNodePlan plan;
    private final PathStep last;
    private final long cellBytes;
    private final long fieldOffset;
    private final int elementBytes;
    private final boolean masked;
    private final int dimensions;
    /** Per coordinate: the extent of one container (1 when the node's own level does not split it). */
    private final int[] extent;
    /** Per coordinate: the stride of its local index in the container's cell index (0: not split). */
    private final long[] stride;
    /** Per coordinate: how many containers the index space has along it (the radix of a container key). */
    private final long[] blocks;
    /** Per coordinate: log2 of its extent when that is a power of two (no division), else -1. */
    private final int[] shifts;
    /** Mask words of one container of a bitmasked node; 0 for a dense one. */
    private final int maskWords;
    /** The geometry of three coordinates whose extents are powers of two (every usual layout), else null. */
    private final Grid3 grid3;
    /** Whether a cell's container key and index fit one long ({@code key * cellCount + index}): what {@link GroupedWrite} carries. */
    private final boolean groupable;
    /**
     * Whether every container has a key of its own in a long (the containers number fewer than
     * 2^63): what {@link #writeCells}' cache of containers compares. Where they do not (an
     * index space of 2^64 blocks or more), two containers' keys could be equal, and the cache
     * wrote a cell into another cell's container; such lists are written cell by cell
     * ({@link #writeEach}).
     */
    private final boolean keysFit;
    /** Per coordinate: the extent of the SNode's index space, which every coordinate written must lie below. */
    private final int[] shape;

    public BoxTransfer(NodeTree tree, PlacedField field) {
        SNode node = field.snode();
        if (!supports(node)) {
            throw new IllegalArgumentException("field " + field.name() + " lies in " + node.description()
                    + ": bulk copies serve fields of dense and bitmasked SNodes");
        }
        this.tree = tree;
        this.plan = tree.plan().node(node);
        List<PathStep> path = tree.plan().path(node);
        this.last = path.get(path.size() - 1);
        this.cellBytes = plan.cellBytes();
        this.fieldOffset = plan.fieldOffset(field);
        this.elementBytes = field.type().byteSize();
        this.masked = node.kind() == NodeKind.BITMASKED;
        this.maskWords = masked ? (int) BitmaskWords.words(plan.cellCount()) : 0;
        this.dimensions = node.indexShape().length;
        this.extent = new int[dimensions];
        this.stride = new long[dimensions];
        Arrays.fill(extent, 1);
        for (AxisSplit split : last.splits()) {
            extent[split.coordinate()] = (int) (split.divisor() * split.size());
            stride[split.coordinate()] = split.stride();
        }
        this.blocks = new long[dimensions];
        int[] shape = node.indexShape();
        this.shape = shape;
        this.shifts = new int[dimensions];
        for (int c = 0; c < dimensions; c++) {
            blocks[c] = (shape[c] + extent[c] - 1) / extent[c];
            shifts[c] = Integer.bitCount(extent[c]) == 1 ? Integer.numberOfTrailingZeros(extent[c]) : -1;
        }
        long cells = plan.cellCount();
        long keys = 1;
        boolean fits = true;
        for (int c = 0; c < dimensions && fits; c++) {
            fits = keys <= Long.MAX_VALUE / blocks[c];
            keys *= fits ? blocks[c] : 1;
        }
        this.keysFit = fits;
        this.groupable = fits && cells <= Integer.MAX_VALUE && keys <= Long.MAX_VALUE / cells;
        this.grid3 = dimensions == 3 && shifts[0] >= 0 && shifts[1] >= 0 && shifts[2] >= 0
                ? new Grid3(shifts, extent, blocks, stride) : null;
    }

    /**
     * A container's key and a cell's index in it from three coordinates, by shifts and masks:
     * what {@link #containerKey} and {@link #cellIndex} compute, for the loops over many cells
     * ({@link #resolveRun3}, {@link GroupedWrite}), which take the record into a local so that
     * its fields stay in registers.
     */
    private record Grid3(int shift0, int shift1, int shift2, int mask0, int mask1, int mask2, long blocks1, long blocks2,
                         long stride0, long stride1, long stride2) {
        Grid3(int[] shifts, int[] extent, long[] blocks, long[] stride) {
            this(shifts[0], shifts[1], shifts[2], extent[0] - 1, extent[1] - 1, extent[2] - 1, blocks[1], blocks[2],
                    stride[0], stride[1], stride[2]);
        }

        long key(int x, int y, int z) {
            return rowKey(x, y) + (z >>> shift2);
        }

        long index(int x, int y, int z) {
            return rowIndex(x, y) + (z & mask2) * stride2;
        }

        /** The key of the container of cell (x, y, 0) of a row: a row's cells add z >>> shift2. */
        long rowKey(int x, int y) {
            return ((x >>> shift0) * blocks1 + (y >>> shift1)) * blocks2;
        }

        /** The index of cell (x, y, 0) in its container: a row's cells add (z & mask2) * stride2. */
        long rowIndex(int x, int y) {
            return (x & mask0) * stride0 + (y & mask1) * stride1;
        }

        /**
         * Entries of a {@link SlabCache} table, one per container of a slab (the containers whose
         * first coordinate's block is the same): the containers along the second and the third.
         */
        long slabEntries() {
            return blocks1 * blocks2;
        }
    }

    /** Whether fields of {@code node} can be copied in bulk: dense and bitmasked nodes. */
    public static boolean supports(SNode node) {
        return node.kind() == NodeKind.DENSE || node.kind() == NodeKind.BITMASKED;
    }

    /**
     * Copies {@code buffer} (the box's cells in row-major order, {@code elementBytes} each, native
     * byte order, from byte {@code at}) into the box {@code [low, high)}, activating every cell.
     * The box must lie in the index space (the caller checks).
     *
     * @return the cells written
     */
    public long write(int[] low, int[] high, MemorySegment buffer, long at) {
        return boxes(low, high, buffer, at, true);
    }

    /** Copies the box's values into {@code buffer} (row-major, from byte {@code at}); inactive cells give zero. */
    public long read(int[] low, int[] high, MemorySegment buffer, long at) {
        return boxes(low, high, buffer, at, false);
    }

    private long boxes(int[] low, int[] high, MemorySegment buffer, long at, boolean write) {
        long[] boxStride = new long[dimensions];
        long volume = 1;
        for (int c = dimensions - 1; c >= 0; c--) {
            boxStride[c] = volume;
            volume *= high[c] - low[c];
        }
        if (volume == 0) {
            return 0;
        }
        if (!write) {
            buffer.asSlice(at, volume * elementBytes).fill((byte) 0);
        }
        int[] origin = new int[dimensions];
        int[] first = new int[dimensions];
        int[] end = new int[dimensions];
        for (int c = 0; c < dimensions; c++) {
            origin[c] = Math.floorDiv(low[c], extent[c]) * extent[c];
        }
        Location location = new Location();
        long[] words = masked ? new long[maskWords] : null;
        long cells = 0;
        while (true) {
            for (int c = 0; c < dimensions; c++) {
                first[c] = Math.max(origin[c], low[c]);
                end[c] = Math.min(origin[c] + extent[c], high[c]);
            }
            long container = write ? activateContainer(first, location) : findContainer(first, location);
            if (container >= 0) {
                cells += copyContainer(location.segment, container, origin, first, end, low, boxStride, buffer, at,
                        write, words);
            }
            int c = dimensions - 1;
            while (c >= 0) {
                origin[c] += extent[c];
                if (origin[c] < high[c]) {
                    break;
                }
                origin[c] = Math.floorDiv(low[c], extent[c]) * extent[c];
                c--;
            }
            if (c < 0) {
                return cells;
            }
        }
    }

    /**
     * Writes {@code count} cells: cell {@code n} at coordinates {@code coordinates[c][from + n]},
     * its value the element {@code n} of {@code buffer} from byte {@code at}; activates each cell.
     * The containers of recent cells are remembered (direct-mapped by container), so a container
     * is walked to (and activated) once while its cells keep coming, as they do in input sorted
     * by coordinates or grouped by container; a bitmasked container's mask bits are gathered
     * while it is remembered and set with one atomic OR per word when it is forgotten (on three
     * coordinates, once the batch of cells that forgot it is stored: see {@link #writeBatch3}) or
     * the call ends. The coordinates must lie in the index space (the caller checks). Another
     * thread may change the caller's arrays during the call, so each coordinate is read once
     * where it is used and checked again there (a branch per cell that the resolving loop
     * hides; a copy of each batch cost W1s's import 9 %), or, where a pass reads a cell twice
     * ({@link GroupedWrite}, {@link #writeEach}), read from a checked copy ({@link #checkedCopy});
     * one found outside ends the call as a refusal does ({@link #changed}). On a dense SNode
     * whose containers' extents are powers of two, a list at least as long as a slab's table
     * takes {@link #writeSlabs} instead, with the same guarantees. A list that
     * keeps coming back to containers the cache forgot (shuffled input) goes on, after the batch
     * that shows it, container by container: see {@link GroupedWrite}, which takes 16 bytes of
     * Java heap a cell (24 for eight-byte values) and 4 per coordinate for up to {@link #GROUP} cells at a time; the
     * values written and the failure guarantee below are the same.
     *
     * <p>Values are stored before their bits are set (the OR publishes them: a reader that sees
     * the bit, with acquire ordering, sees the value). When the activation of a container fails
     * (the memory cap, a full hash container, an allocator fault), the bits of every cell stored
     * before are set first, so the call leaves a prefix of the list written and active, and
     * nothing after it.
     */
    public long writeCells(int[][] coordinates, int from, int count, MemorySegment buffer, long at) {
        if (!keysFit) {
            return writeEach(coordinates, from, count, buffer, at);
        }
        int[] cell = new int[dimensions];
        Location location = new Location();
        int end = from + count;
        if (grid3 != null && !masked && grid3.slabEntries() <= Math.min(count, SlabCache.MAX_ENTRIES)) {
            return writeSlabs(coordinates, from, count, buffer, at, cell, location);
        }
        CellCache cache = new CellCache(maskWords, count);
        try {
            // In batches, so that the JIT compiles the batch as a method (not only on stack replacement).
            for (int n = from; n < end; ) {
                int stop = Math.min(end, n + BATCH);
                long evicted = cache.evictions;
                writeBatch(coordinates, n, stop, buffer, at + (long) (n - from) * elementBytes, cache, cell, location);
                n = stop;
                if (groupable && cache.evictions - evicted > BATCH / SCATTERED && end - n >= BATCH) {
                    // Scattered input: the rest goes container by container. The gathered bits are
                    // set first, so that a failure there still leaves a prefix of the list.
                    cache.flushAll(this);
                    new GroupedWrite(Math.min(end - n, GROUP)).write(coordinates, n, end, buffer,
                            at + (long) (n - from) * elementBytes, cell, location);
                    break;
                }
            }
        } finally {
            cache.flushAll(this);
        }
        return count;
    }

    /**
     * {@link #writeCells} on a dense SNode whose containers' extents are powers of two, where a
     * slab's table ({@link SlabCache}) is no larger than the list: in batches of two passes, as
     * {@link #writeBatch3} writes, but the first pass finds a cell's container in the table of
     * the current slab, indexed by the container's second and third coordinates, instead of
     * comparing each cell's container with the last one's: a sorted list changes container
     * every few cells (the reference shell 1.9 M times in 8 M cells), a branch the processor
     * often mispredicts, while its slab changes every tens of thousands of cells. Each container
     * of a slab is walked to (and activated) once. A list that changes slab or meets an unknown
     * container more than once in {@link #SCATTERED} cells of a batch goes on container by
     * container ({@link GroupedWrite}), as the cached path does. Cells are stored a batch at a
     * time and nothing else is published (a dense container has no mask bits), so a failure
     * leaves the cells resolved before it stored, a prefix of the list.
     */
    private long writeSlabs(int[][] coordinates, int from, int count, MemorySegment buffer, long at, int[] cell,
                            Location location) {
        SlabCache cache = new SlabCache((int) grid3.slabEntries(), Math.min(count, BATCH));
        int end = from + count;
        for (int n = from; n < end; ) {
            int stop = Math.min(end, n + BATCH);
            long misses = cache.misses;
            writeSlabBatch(coordinates, n, stop, buffer, at + (long) (n - from) * elementBytes, cache, cell, location);
            n = stop;
            if (groupable && cache.misses - misses > BATCH / SCATTERED && end - n >= BATCH) {
                new GroupedWrite(Math.min(end - n, GROUP)).write(coordinates, n, end, buffer,
                        at + (long) (n - from) * elementBytes, cell, location);
                break;
            }
        }
        return count;
    }

    /** Reads cell {@code n}'s coordinates into {@code cell}, each once and checked against the index space ({@link #changed}). */
    private void readChecked(int[][] coordinates, int n, int[] cell) {
        for (int c = 0; c < cell.length; c++) {
            int x = coordinates[c][n];
            if (Integer.compareUnsigned(x, shape[c]) >= 0) {
                throw changed(n, c, x);
            }
            cell[c] = x;
        }
    }

    /** One batch of {@link #writeSlabs}: cells {@code [from, end)}, their values from byte {@code at} of {@code buffer}. */
    private void writeSlabBatch(int[][] coordinates, int from, int end, MemorySegment buffer, long at, SlabCache cache,
                                int[] cell, Location location) {
        long cellsOffset = plan.cellsOffset() + fieldOffset;
        Grid3 grid = grid3;
        int stored = from;
        int n = from;
        try {
            while (true) {
                n = resolveSlab(coordinates, n, end, cache, stored);
                if (n == end) {
                    break;
                }
                // Cell n's container is not in the table, or lies in another slab (or a coordinate
                // of it lies outside the index space: resolveSlab stops there too). Read once.
                readChecked(coordinates, n, cell);
                cache.misses++;
                int slab = cell[0] >>> grid.shift0();
                if (slab != cache.slab) {
                    cache.clear();
                    cache.slab = slab;
                }
                long container = activateContainer(cell, location);
                if (location.segment != cache.segment) {
                    // Another segment (a node manager without a region keeps its cells in chunks):
                    // the run so far is stored in its own, and the table forgets the containers of
                    // that segment, whose offsets the next run cannot use.
                    storeRun(cache.offsets, cache.segment, n - stored, buffer, at + (long) (stored - from) * elementBytes);
                    stored = n;
                    cache.segment = location.segment;
                    cache.clear();
                    cache.slab = slab;
                }
                cache.put((int) ((cell[1] >>> grid.shift1()) * grid.blocks2() + (cell[2] >>> grid.shift2())),
                        container + cellsOffset);
            }
        } finally {
            // Also when an activation failed: the cells resolved before it lie in active containers.
            storeRun(cache.offsets, cache.segment, n - stored, buffer, at + (long) (stored - from) * elementBytes);
        }
    }

    /**
     * The first pass of {@link #writeSlabBatch}: from cell {@code from}, while each cell's slab is
     * the table's and its container is in the table, puts the cell's offset in the table's segment
     * into {@code cache.offsets} (cell {@code n} at {@code n - first}); returns the first cell
     * that is not so (or {@code end}). It reads Java arrays only, and a coordinate changed since
     * the caller checked it stops it as a cell not in the table does (see {@link #resolveRun3}).
     */
    private int resolveSlab(int[][] coordinates, int from, int end, SlabCache cache, int first) {
        int[] xs = coordinates[0];
        int[] ys = coordinates[1];
        int[] zs = coordinates[2];
        Grid3 grid = grid3;
        long cellBytes = this.cellBytes;
        long[] table = cache.table;
        long[] offsets = cache.offsets;
        int limit = Math.min(end, first + offsets.length);
        int shift0 = grid.shift0();
        int shift1 = grid.shift1();
        int shift2 = grid.shift2();
        int mask2 = grid.mask2();
        long blocks2 = grid.blocks2();
        long stride2 = grid.stride2();
        int shape0 = shape[0];
        int shape1 = shape[1];
        int shape2 = shape[2];
        int slab = cache.slab;
        if (from >= limit) {
            return from;
        }
        // The row of the last cell, as in resolveRun3: its x and y are checked where it changes.
        int rowX = xs[from];
        int rowY = ys[from];
        if (Integer.compareUnsigned(rowX, shape0) >= 0 | Integer.compareUnsigned(rowY, shape1) >= 0
                || rowX >>> shift0 != slab) {
            return from;
        }
        int rowBase = (int) ((rowY >>> shift1) * blocks2);
        long rowIndex = grid.rowIndex(rowX, rowY);
        int n = from;
        for (; n < limit; n++) {
            int x = xs[n];
            int y = ys[n];
            int z = zs[n];
            if (Integer.compareUnsigned(z, shape2) >= 0) {
                break;
            }
            if (x != rowX | y != rowY) {
                if (Integer.compareUnsigned(x, shape0) >= 0 | Integer.compareUnsigned(y, shape1) >= 0
                        || x >>> shift0 != slab) {
                    break;
                }
                rowX = x;
                rowY = y;
                rowBase = (int) ((y >>> shift1) * blocks2);
                rowIndex = grid.rowIndex(x, y);
            }
            long base = table[rowBase + (z >>> shift2)];
            if (base < 0) {
                break;
            }
            offsets[n - first] = base + (rowIndex + (z & mask2) * stride2) * cellBytes;
        }
        return n;
    }

    /**
     * The containers of one slab of a {@link #writeSlabs} call: a table indexed by a container's
     * second and third coordinates ({@code (y >>> shift1) * blocks2 + (z >>> shift2)}) holding the
     * offset of its cells in {@link #segment} (-1: not found yet), valid for the containers whose
     * first coordinate's block is {@link #slab}; and one batch's offsets.
     */
    private static final class SlabCache {
        /** The largest table a call makes (8 MiB): beyond it, or beyond the list's length, writes take the cached path. */
        static final int MAX_ENTRIES = 1 << 20;
        final long[] table;
        final long[] offsets;
        /** Table entries set since the last {@link #clear}, to clear them again (a slab holds few containers of its table). */
        private int[] set = new int[64];
        private int sets;
        int slab = -1;
        MemorySegment segment;
        /** Cells that found no container in the table: what marks a list as scattered. */
        long misses;

        SlabCache(int entries, int run) {
            this.table = new long[entries];
            Arrays.fill(table, -1);
            this.offsets = new long[Math.max(1, run)];
        }

        void put(int entry, long base) {
            if (sets == set.length) {
                set = Arrays.copyOf(set, sets * 2);
            }
            set[sets++] = entry;
            table[entry] = base;
        }

        void clear() {
            for (int s = 0; s < sets; s++) {
                table[set[s]] = -1;
            }
            sets = 0;
        }
    }

    /**
     * The hash of a container key that {@link GroupedWrite} takes its buckets and its table's
     * slots from (the top bits): Fibonacci hashing of the key with its high bits folded into its
     * low ones first (one xor-shift). It is called three times per cell, so it is one round, not
     * the two of {@link io.snode.runtime.HashHeader#homeByBits} (those made W1r's bulk import on
     * L2 5 to 10 % slower in three alternating runs of 12-06; this one is within their noise).
     * Fibonacci hashing alone gave the multiples of 2,971,215,073 one cluster of slots at every
     * table size up to 2^34 (32,768 probes per cell for 65,536 such containers) and a line of
     * blocks along j 5.1 probes per key; with the fold, at most 1.75 for lines along every axis,
     * a plane and those multiples.
     */
    static long spread(long key) {
        return (key ^ (key >>> 29)) * CellCache.MIX;
    }

    /**
     * {@link #writeCells} where container keys do not fit a long: each cell in turn walks to its
     * container (activating the path as {@link #writeCells} does), stores its value and then sets
     * its bit, so a failure leaves a prefix of the list written and active, as the cached path does.
     */
    private long writeEach(int[][] coordinates, int from, int count, MemorySegment buffer, long at) {
        int[] cell = new int[dimensions];
        Location location = new Location();
        long[] words = masked ? new long[maskWords] : null;
        long cellsOffset = plan.cellsOffset() + fieldOffset;
        int[][] batch = new int[dimensions][Math.min(count, BATCH)];
        for (int n = from; n < from + count; n++) {
            int q = (n - from) % BATCH;
            if (q == 0) {
                checkedCopy(coordinates, n, Math.min(from + count, n + BATCH), batch);
            }
            for (int c = 0; c < dimensions; c++) {
                cell[c] = batch[c][q];
            }
            long container = activateContainer(cell, location);
            long index = cellIndex(batch, q);
            store(location.segment, container + cellsOffset + index * cellBytes, buffer,
                    at + (long) (n - from) * elementBytes);
            if (masked) {
                int word = (int) (index >>> 6);
                words[word] = 1L << index;
                publishBits(location.segment, container, words, 0, maskWords);
                words[word] = 0;
            }
        }
        return count;
    }

    /**
     * Copies cells {@code [from, end)} of the caller's {@code coordinates} into {@code into}
     * ({@code into[c][0, end - from)}) and checks the copy against the index space, for the
     * writes that read a cell's coordinates more than once. The caller checked every
     * coordinate before the first write ({@code Bulk}), but another thread may change its arrays
     * during the call: a coordinate changed to one outside the index space would have been
     * written through (into another cell, or over a container's mask words), and one changed
     * between two passes over a group would have broken the group's counts. Such a change is
     * refused here as the memory cap's refusal is: the cells of the batches before stay written
     * and active.
     *
     * @throws java.util.ConcurrentModificationException when a coordinate copied lies outside
     *                                                   the index space (the caller's arrays changed during the call)
     */
    private void checkedCopy(int[][] coordinates, int from, int end, int[][] into) {
        for (int c = 0; c < dimensions; c++) {
            System.arraycopy(coordinates[c], from, into[c], 0, end - from);
        }
        check(into, from, end - from);
    }

    /** Checks {@code copy[c][0, count)}, cells {@code from} on of the list, against the index space ({@link #checkedCopy}). */
    private void check(int[][] copies, int from, int count) {
        for (int c = 0; c < dimensions; c++) {
            int[] copy = copies[c];
            int min = 0;
            int max = 0;
            for (int q = 0; q < count; q++) { // min and max of the copy: a loop C2 vectorises
                min = Math.min(min, copy[q]);
                max = Math.max(max, copy[q]);
            }
            if (min < 0 || max >= shape[c]) {
                for (int q = 0; q < count; q++) {
                    if (copy[q] < 0 || copy[q] >= shape[c]) {
                        throw changed(from + q, c, copy[q]);
                    }
                }
            }
        }
    }

    /** Cell {@code n}'s coordinate {@code c}, read again, is {@code x}, outside the index space the caller checked it against. */
    private ConcurrentModificationException changed(int n, int c, int x) {
        return new ConcurrentModificationException("cell " + n + ": coordinate " + c + " is " + x
                + ", outside [0, " + shape[c] + "), though it was inside when the call checked it: another thread"
                + " changed the coordinate arrays during the call (cells of the list before it are written, as"
                + " after a refusal by the memory cap)");
    }

    private static final int BATCH = 4096;
    /**
     * A batch in which more than one cell in this many forgets a remembered container marks the
     * list as scattered (the sorted reference shell forgets one in 300, a shuffled one nearly
     * every cell): walking again to a forgotten container costs more than grouping the cells
     * (the shuffled shell on L2: 0.6-0.8 s grouped, against 1.5 s remembered and 1.4 s through
     * the bound interface, in one probe).
     */
    private static final int SCATTERED = 16;
    /**
     * Cells that {@link GroupedWrite} groups at a time: 16 bytes of scratch each for four-byte
     * values, 24 for eight-byte ones (64 or 96 MiB at most), and the group's checked copy of its
     * coordinates (4 bytes each: 48 MiB for three). Smaller groups measured slower on
     * the shuffled reference shell: each group sets every container's bits again.
     */
    private static final int GROUP = 1 << 22;

    private void writeBatch(int[][] coordinates, int from, int end, MemorySegment buffer, long at, CellCache cache,
                            int[] cell, Location location) {
        if (grid3 != null) {
            writeBatch3(coordinates, from, end, buffer, at, cache, cell, location);
            return;
        }
        long cellsOffset = plan.cellsOffset() + fieldOffset;
        for (int n = from; n < end; n++) {
            long key = 0;
            long index = 0;
            for (int c = 0; c < dimensions; c++) {
                int x = coordinates[c][n]; // read once: the key, the index and the activation use this value
                if (Integer.compareUnsigned(x, shape[c]) >= 0) {
                    throw changed(n, c, x);
                }
                cell[c] = x;
                int shift = shifts[c];
                int block = shift >= 0 ? x >>> shift : x / extent[c];
                key = key * blocks[c] + block;
                index += (x - block * extent[c]) * stride[c];
            }
            int slot = remember(cache, key, cell, location, false);
            store(cache.segments[slot], cache.containers[slot] + cellsOffset + index * cellBytes, buffer,
                    at + (long) (n - from) * elementBytes);
            if (masked) {
                cache.mark(slot, index);
            }
        }
    }

    /**
     * {@link #writeBatch} for three coordinates whose containers' extents are powers of two (every
     * usual layout), in two passes over the batch: {@link #resolveRun3} puts each cell's offset in
     * {@code cache.offsets}, stopping at each cell whose container is not remembered (or lies in
     * another segment) for it to be activated and remembered, and then {@link #storeRun} stores
     * the batch's values (one run per segment; with a region per node manager, one run). So the
     * activations' locked instructions (a pointer cell's publication, a free list's exchange) do
     * not wait behind the batch's stores, and the mask bits of the containers forgotten meanwhile
     * wait (in {@code cache}'s pending words) until their values are stored: bits are set only
     * after their values. When an activation fails, the cells resolved before it are stored
     * before the exception leaves, so that {@link #writeCells}' final flush sets the bits of
     * stored cells only.
     */
    private void writeBatch3(int[][] coordinates, int from, int end, MemorySegment buffer, long at, CellCache cache,
                             int[] cell, Location location) {
        int stored = from;
        int n = from;
        try {
            while (true) {
                n = resolveRun3(coordinates, n, end, cache, stored);
                if (n == end) {
                    break;
                }
                // Cell n's container is not remembered, or lies in another segment (or a coordinate
                // of it lies outside the index space: resolveRun3 stops there too). Read once.
                readChecked(coordinates, n, cell);
                int slot = remember(cache, grid3.key(cell[0], cell[1], cell[2]), cell, location, true);
                if (cache.segments[slot] != cache.segment) {
                    storeRun(cache.offsets, cache.segment, n - stored, buffer, at + (long) (stored - from) * elementBytes);
                    stored = n;
                    cache.segment = cache.segments[slot];
                }
                cache.lastKey = -1;
            }
        } finally {
            // Also when an activation failed: the cells resolved before it lie in active containers.
            storeRun(cache.offsets, cache.segment, n - stored, buffer, at + (long) (stored - from) * elementBytes);
            cache.publishPending(this);
        }
    }

    /**
     * The slot of {@code cache} that holds the container with {@code key}, the one holding cell
     * {@code n} of {@code coordinates}: where it is not remembered, the slot's container is
     * forgotten (its gathered bits set, or with {@code deferBits} kept in the cache's pending
     * words until the caller has stored their values) and this one activated (through
     * {@code cell}) and remembered in its place.
     */
    private int remember(CellCache cache, long key, int[] cell, Location location, boolean deferBits) {
        int slot = cache.slot(key);
        if (!cache.holds(slot, key)) {
            if (cache.segments[slot] != null) {
                cache.evictions++;
            }
            if (deferBits) {
                cache.defer(slot);
            } else {
                cache.flush(slot, this);
            }
            long container = activateContainer(cell, location);
            cache.put(slot, key, location.segment, container);
        }
        return slot;
    }

    /**
     * The first pass of {@link #writeBatch3} (every extent a power of two): from cell
     * {@code from}, while the cells' containers are remembered in {@code cache} and lie in its
     * segment (the node manager's region, when it has one: then every container does), puts each
     * cell's offset in that segment into {@code cache.offsets}, cell {@code n} at
     * {@code n - first} (and, on a bitmasked node, ORs its
     * bit into the slot's gathered mask words, marking the slot dirty: the bits of consecutive
     * cells in one word are gathered in a register and ORed into the array once, as the cells of
     * a row share a word); returns the first cell whose container is not
     * (or {@code end}), with the cursor (the last container's key, mask words and cells) left in
     * {@code cache}. It reads only Java arrays; the stores come after it, in
     * {@link #storeRun}'s loop, which has no exit and calls nothing, so that C2 checks the
     * segment and the buffer once per run instead of once per cell (a loop that both looked
     * containers up, leaving at the first it did not remember, and stored kept every FFM check
     * per cell: 21 ns a cell on the reference shell, against 7 ns for a loop without exits).
     * One pass that looks up and stores (2f7a583, reverted) depends on the processor: on the 2-core
     * Intel Xeon VM of 12-06 it took 6.9 ns a cell of the sorted shell on L1 against 7.85 for two
     * passes, on the 2-core AMD EPYC VM of 12-07 11.6 and 13.2 ns against 9.9 and 9.6 (L2 13.9 and
     * 15.7 against 11.2 and 13.5; {@code CellListBenchmark}, alternating). Runs of 512 offsets
     * instead of a batch's 4,096 made no difference there. Two more variants were no faster there
     * ({@code CellListBenchmark}, three alternations each, 12-07): each cell's key and index
     * computed whole and its container looked up in the cache, without the row and the last key
     * (no branch that the container's changes mispredict), took 13.9 to 15.9 ns a cell on L2 and
     * 11.1 to 13.9 on L1, against 9.8 to 13.0 and 7.3 to 9.9 here; and, where a container's rows
     * lie in one mask word, moving the word only where the row or the container changes, instead
     * of comparing it per cell, 11.1 to 12.4 ns on L2 against 11.0 to 11.6. The loop costs about
     * 4 ns a cell on the sorted shell either way (1.9 M changes of container and 0.5 M of row
     * in its 8 M cells), a standalone copy of it about the same.
     */
    private int resolveRun3(int[][] coordinates, int from, int end, CellCache cache, int first) {
        long cellsOffset = plan.cellsOffset() + fieldOffset;
        int[] xs = coordinates[0];
        int[] ys = coordinates[1];
        int[] zs = coordinates[2];
        Grid3 grid = grid3;
        long cellBytes = this.cellBytes;
        boolean masked = this.masked;
        MemorySegment segment = cache.segment;
        long[] keys = cache.keys;
        MemorySegment[] segments = cache.segments;
        long[] containers = cache.containers;
        boolean[] dirty = cache.dirty;
        long[] offsets = cache.offsets;
        long[] words = cache.words;
        int maskWords = cache.maskWords;
        int slotShift = Long.SIZE - cache.slotBits;
        long lastKey = cache.lastKey;
        int wordBase = cache.wordBase;
        long base = cache.base;
        int limit = Math.min(end, first + offsets.length);
        int shift2 = grid.shift2();
        int mask2 = grid.mask2();
        int shape0 = shape[0];
        int shape1 = shape[1];
        int shape2 = shape[2];
        long stride2 = grid.stride2();
        // The row of the last cell: a sorted list keeps x and y for many cells, so that a cell
        // costs one product for its index instead of five for its key and index. The row starts
        // as the first cell's, checked (so a cell whose x and y equal the row's has them inside
        // the index space, whatever another thread did to the arrays).
        int rowX = from < limit ? xs[from] : 0;
        int rowY = from < limit ? ys[from] : 0;
        if (Integer.compareUnsigned(rowX, shape0) >= 0 | Integer.compareUnsigned(rowY, shape1) >= 0) {
            return from; // changed since the caller checked it: writeBatch3 reads it again and refuses it
        }
        long rowKey = grid.rowKey(rowX, rowY);
        long rowIndex = grid.rowIndex(rowX, rowY);
        // The mask word of the last cell and the bits gathered for it since it became the last
        // one: a row of a container's cells shares a word, so most cells OR into a register.
        int word = 0;
        long gathered = 0;
        int n = from;
        for (; n < limit; n++) {
            int x = xs[n];
            int y = ys[n];
            int z = zs[n];
            if (Integer.compareUnsigned(z, shape2) >= 0) {
                break; // changed since the caller checked it: writeBatch3 reads it again and refuses it
            }
            if (x != rowX | y != rowY) {
                if (Integer.compareUnsigned(x, shape0) >= 0 | Integer.compareUnsigned(y, shape1) >= 0) {
                    break; // as for z (x and y are checked where the row changes: the row's cells share them)
                }
                rowX = x;
                rowY = y;
                rowKey = grid.rowKey(x, y);
                rowIndex = grid.rowIndex(x, y);
            }
            long key = rowKey + (z >>> shift2);
            long index = rowIndex + (z & mask2) * stride2;
            if (key != lastKey) {
                // The slot of lastKey holds it until another key takes the slot, which sets lastKey.
                int slot = (int) ((key * CellCache.MIX) >>> slotShift);
                if (keys[slot] != key || segments[slot] != segment) {
                    break;
                }
                if (masked) {
                    dirty[slot] = true;
                }
                lastKey = key;
                wordBase = slot * maskWords;
                base = containers[slot] + cellsOffset;
            }
            offsets[n - first] = base + index * cellBytes;
            if (masked) {
                int at = wordBase + (int) (index >>> 6);
                if (at != word) {
                    words[word] |= gathered;
                    word = at;
                    gathered = 0;
                }
                gathered |= 1L << index;
            }
        }
        if (masked) {
            words[word] |= gathered;
        }
        cache.lastKey = lastKey;
        cache.wordBase = wordBase;
        cache.base = base;
        return n;
    }

    /**
     * The second pass of {@link #writeBatch3}: stores the {@code count} values of {@code buffer}
     * from byte {@code at} at the offsets {@link #resolveRun3} put in {@code cache}, all in
     * {@code segment}. The store loop has no exit and calls nothing. Their mask bits are already
     * gathered (by {@link #resolveRun3}); nothing publishes them before the stores: the containers
     * forgotten between the passes keep theirs pending, and only a flush of a slot or of the
     * pending bits publishes, after this pass. The loop cannot fail halfway while the
     * runtime is open (every offset lies in an activated container of the segment); once it is
     * closed, the flush at the end of the call fails on the freed memory too.
     */
    private void storeRun(long[] offsets, MemorySegment segment, int count, MemorySegment buffer, long at) {
        if (count == 0) {
            return;
        }
        // Unaligned access forms: node memory is aligned anyway, and they skip the alignment check.
        if (elementBytes == Integer.BYTES) {
            for (int q = 0; q < count; q++) {
                segment.set(ValueLayout.JAVA_INT_UNALIGNED, offsets[q],
                        buffer.get(ValueLayout.JAVA_INT_UNALIGNED, at + (long) q * Integer.BYTES));
            }
        } else {
            for (int q = 0; q < count; q++) {
                segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offsets[q],
                        buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, at + (long) q * Long.BYTES));
            }
        }
    }

    /** The key of the container that holds cell {@code n} of {@code coordinates} (its container coordinates in radix). */
    private long containerKey(int[][] coordinates, int n) {
        long key = 0;
        for (int c = 0; c < dimensions; c++) {
            int shift = shifts[c];
            int x = coordinates[c][n];
            key = key * blocks[c] + (shift >= 0 ? x >>> shift : x / extent[c]);
        }
        return key;
    }

    /** The index in its container of cell {@code n} of {@code coordinates}. */
    private long cellIndex(int[][] coordinates, int n) {
        long index = 0;
        for (int c = 0; c < dimensions; c++) {
            int shift = shifts[c];
            int x = coordinates[c][n];
            index += (shift >= 0 ? x & (extent[c] - 1) : x % extent[c]) * stride[c];
        }
        return index;
    }

    /** Copies one element of {@code buffer} at {@code value} into node memory at {@code node}. */
    private void store(MemorySegment segment, long node, MemorySegment buffer, long value) {
        // Unaligned access forms: node memory is aligned anyway, and they skip the alignment check.
        if (elementBytes == Integer.BYTES) {
            segment.set(ValueLayout.JAVA_INT_UNALIGNED, node, buffer.get(ValueLayout.JAVA_INT_UNALIGNED, value));
        } else {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, node, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, value));
        }
    }

    /**
     * The containers of one {@link #writeCells} call, direct-mapped by container key, with their
     * gathered mask bits: up to 4096 of them (more than the containers one 8-voxel slab of the
     * reference shell cuts), fewer for short lists. Two containers of a slab that share a slot
     * take it from each other, so the sorted reference shell makes 79,268 walks for its 56,628
     * containers; 16,384 slots made 62,000 and 65,536 none extra, but neither was faster in a
     * probe (the larger arrays, and their mask words on a bitmasked node, cost what the walks saved),
     * nor, once {@link #writeBatch3} resolved whole batches, were 16,384 slots or sets of two slots
     * (the older container kept beside the newer): a walk again to a forgotten container costs
     * little of the call (probes of 12-05 in the afternoon).
     */
    private static final class CellCache {
        final int slotBits;
        final long[] keys;
        final MemorySegment[] segments;
        final long[] containers;
        final int maskWords;
        /** Slot {@code s}'s gathered mask words at {@code [s * maskWords, (s + 1) * maskWords)}. */
        final long[] words;
        final boolean[] dirty;
        /**
         * {@link #resolveRun3}'s cursor: the last container's key (-1: none), the start of its
         * gathered mask words and of its cells, and the segment the run writes into.
         */
        long lastKey = -1;
        /** Containers forgotten so that another could take their slot: what marks a list as scattered. */
        long evictions;
        int wordBase;
        long base;
        MemorySegment segment;
        /** One batch's cells as {@link #resolveRun3} resolves them for {@link #storeRun}: offsets in the segment. */
        final long[] offsets;
        /**
         * Forgotten containers whose gathered bits wait for their values' stores ({@link #defer}):
         * their segments, offsets, and mask words ({@code maskWords} each).
         */
        private MemorySegment[] pendingSegments = new MemorySegment[16];
        private long[] pendingContainers = new long[16];
        private long[] pendingWords = new long[0];
        private int pending;
        /** What {@link #readFirstWords} read, kept so that its loads are not dropped. */
        private long maskWordsRead;

        CellCache(int maskWords, int cells) {
            this.slotBits = Math.max(4, Math.min(12, Integer.SIZE - Integer.numberOfLeadingZeros(Math.max(1, cells) - 1)));
            int slots = 1 << slotBits;
            this.keys = new long[slots];
            // No container has key -1, so an empty slot never matches: resolveRun3 tests only the key and the segment.
            Arrays.fill(keys, -1);
            this.segments = new MemorySegment[slots];
            this.containers = new long[slots];
            this.maskWords = maskWords;
            this.words = new long[slots * maskWords];
            this.dirty = new boolean[slots];
            int run = Math.max(1, Math.min(BATCH, cells));
            this.offsets = new long[run];
        }

        /** The multiplier of the slot hash (Fibonacci hashing: the top bits of key times 2^64 / phi). */
        static final long MIX = 0x9E3779B97F4A7C15L;

        int slot(long key) {
            return (int) ((key * MIX) >>> (Long.SIZE - slotBits));
        }

        boolean holds(int slot, long key) {
            return segments[slot] != null && keys[slot] == key;
        }

        void put(int slot, long key, MemorySegment segment, long container) {
            keys[slot] = key;
            segments[slot] = segment;
            containers[slot] = container;
        }

        void mark(int slot, long index) {
            words[slot * maskWords + (int) (index >>> 6)] |= 1L << index;
            dirty[slot] = true;
        }

        /** Sets the gathered bits of the container in {@code slot}, if any. */
        void flush(int slot, BoxTransfer transfer) {
            if (dirty[slot]) {
                transfer.publishBits(segments[slot], containers[slot], words, slot * maskWords, maskWords);
                Arrays.fill(words, slot * maskWords, (slot + 1) * maskWords, 0);
                dirty[slot] = false;
            }
        }

        /** Forgets the gathered bits of {@code slot}'s container until {@link #publishPending}. */
        void defer(int slot) {
            if (!dirty[slot]) {
                return;
            }
            if (pending == pendingContainers.length) {
                pendingSegments = Arrays.copyOf(pendingSegments, pending * 2);
                pendingContainers = Arrays.copyOf(pendingContainers, pending * 2);
            }
            if ((pending + 1) * maskWords > pendingWords.length) {
                pendingWords = Arrays.copyOf(pendingWords, Math.max(16, pendingContainers.length) * maskWords);
            }
            pendingSegments[pending] = segments[slot];
            pendingContainers[pending] = containers[slot];
            System.arraycopy(words, slot * maskWords, pendingWords, pending * maskWords, maskWords);
            pending++;
            Arrays.fill(words, slot * maskWords, (slot + 1) * maskWords, 0);
            dirty[slot] = false;
        }

        /** Sets the bits that {@link #defer} kept. */
        void publishPending(BoxTransfer transfer) {
            readFirstWords(pendingSegments, pendingContainers, null, pending);
            for (int p = 0; p < pending; p++) {
                transfer.publishBits(pendingSegments[p], pendingContainers[p], pendingWords, p * maskWords, maskWords);
                pendingSegments[p] = null;
            }
            pending = 0;
        }

        void flushAll(BoxTransfer transfer) {
            publishPending(transfer);
            readFirstWords(segments, containers, dirty, keys.length);
            for (int slot = 0; slot < keys.length; slot++) {
                flush(slot, transfer);
            }
        }

        /**
         * Reads the first mask word of the containers {@code [0, count)} of {@code segments} and
         * {@code containers} (those marked in {@code only}, unless it is null) before a run of
         * atomic ORs sets their bits: each OR waits for every load before it, so the words are
         * read first, all at once (plain loads that the processor overlaps), and the ORs then find
         * them cached.
         */
        private void readFirstWords(MemorySegment[] segments, long[] containers, boolean[] only, int count) {
            long read = 0;
            for (int c = 0; c < count; c++) {
                if (only == null || only[c]) {
                    read ^= segments[c].get(ValueLayout.JAVA_LONG, containers[c]);
                }
            }
            maskWordsRead ^= read;
        }
    }

    /**
     * The rest of a scattered {@link #writeCells} list, container by container, up to
     * {@link #GROUP} cells at a time. A pass over the group's cells sorts them (a counting sort,
     * stable) into buckets by the top bits of their container key's hash ({@link #spread}), each cell's
     * container key, position, cell index and value carried along in one record; a table from
     * container key to the call's number for it, kept for the whole call and indexed by the top
     * bits of the same hash (so one bucket's lookups stay in one stretch of it), names each
     * cell's container; the containers the call has not activated yet are activated in the order
     * the list first reaches them; then each bucket (the cells of a few hundred containers, whose
     * memory stays in cache meanwhile) stores its values and sets their mask bits with one atomic
     * OR per word and container. A cell listed twice keeps its last value: the buckets keep the
     * list's order.
     *
     * <p><b>Failure.</b> A group's activations come before any of its stores and follow the order
     * in which the list first reaches the containers, so when the cap or an allocator fault
     * refuses container {@code c}, every container of a cell listed before {@code c}'s first cell
     * is active, and none was activated that holds only cells at or after it. The group then
     * stores and publishes exactly the cells listed before that first cell, and the exception
     * leaves: the call leaves a prefix of the list written and active, as the
     * remembered-container path does. A container activated by an earlier group (or another
     * thread) is written without a new walk, as a remembered one is.
     */
    private final class GroupedWrite {
        private static final int BUCKET_BITS = 8;
        private static final long EMPTY = -1;
        private static final int MAX_PROBES = 16;
        /** Slots per container numbered beyond which a long probe no longer grows the table. */
        private static final int SPARSE = 16;
        /**
         * Per cell of the group, in bucket order, {@link #width} longs: {@code key * cellCount +
         * cell index} (after the numbering {@code number << 32 | cell index}), then for four-byte
         * values {@code position << 32 | value bits}, for eight-byte ones the position and the
         * value bits. The position is the cell's index in the group.
         */
        private final long[] records;
        private final int[] bucketStart = new int[(1 << BUCKET_BITS) + 1];
        /** Container key to number, for the whole call; slot from the top bits of the key's hash. */
        private long[] tableKeys = new long[1 << 12];
        private int[] tableNumbers = new int[1 << 12];
        private int known;
        /**
         * Per container number: its segment and offset once activated (null before); its first
         * cell in the group while the group is numbered and activated, then its index among its
         * bucket's containers while the bucket stores; the stamp of the group or bucket that set it.
         */
        private MemorySegment[] segments = new MemorySegment[1 << 10];
        private long[] containers = new long[1 << 10];
        private int[] firstCell = new int[1 << 10];
        private int[] stamps = new int[1 << 10];
        private int stamp;
        /** One bucket's containers in the order met, and their gathered mask words. */
        private int[] bucketNumbers = new int[1 << 6];
        private long[] words = new long[0];

        /** Longs per record: 2 for four-byte values, 3 for eight-byte ones. */
        private final int width = elementBytes == Integer.BYTES ? 2 : 3;

        GroupedWrite(int group) {
            records = new long[width * group];
            Arrays.fill(tableKeys, EMPTY);
        }

        void write(int[][] coordinates, int from, int end, MemorySegment buffer, long at, int[] cell, Location location) {
            int group = records.length / width;
            int[][] copy = new int[dimensions][];
            for (int n = from; n < end; n += group) {
                int stop = Math.min(end, n + group);
                // The group's passes read one checked copy (copyOfRange: an array the JIT does not zero first).
                for (int c = 0; c < dimensions; c++) {
                    copy[c] = Arrays.copyOfRange(coordinates[c], n, stop);
                }
                check(copy, n, stop - n);
                group(copy, 0, stop - n, buffer, at + (long) (n - from) * elementBytes, cell, location);
            }
        }

        /** Writes the cells {@code [from, end)} of the list, their values from byte {@code at} of {@code buffer}. */
        private void group(int[][] coordinates, int from, int end, MemorySegment buffer, long at, int[] cell,
                           Location location) {
            int count = end - from;
            int buckets = 1 << BUCKET_BITS;
            int bucketShift = Long.SIZE - BUCKET_BITS;
            long[] records = this.records;
            int width = this.width;
            if (grid3 != null) {
                bucketize3(coordinates, from, count, buffer, at);
            } else {
                Arrays.fill(bucketStart, 0);
                for (int n = from; n < end; n++) {
                    bucketStart[(int) (spread(containerKey(coordinates, n)) >>> bucketShift) + 1]++;
                }
                for (int b = 0; b < buckets; b++) {
                    bucketStart[b + 1] += bucketStart[b];
                }
                int[] heads = Arrays.copyOf(bucketStart, buckets);
                for (int q = 0; q < count; q++) {
                    int n = from + q;
                    long key = containerKey(coordinates, n);
                    put(records, width * heads[(int) (spread(key) >>> bucketShift)]++, key,
                            cellIndex(coordinates, n), q, buffer, at);
                }
            }
            // Name each cell's container (the record's first long becomes number << 32 | cell index); list the new ones.
            int group = ++stamp;
            int[] fresh = new int[64];
            int freshCount = 0;
            long cells = plan.cellCount();
            int cellShift = Long.bitCount(cells) == 1 ? Long.numberOfTrailingZeros(cells) : -1;
            for (int r = 0; r < width * count; r += width) {
                long key = cellShift >= 0 ? records[r] >>> cellShift : records[r] / cells;
                int number = number(key);
                records[r] = ((long) number << 32) | (records[r] - key * cells);
                if (stamps[number] != group) {
                    stamps[number] = group;
                    firstCell[number] = position(records, r);
                    if (segments[number] == null) {
                        if (freshCount == fresh.length) {
                            fresh = Arrays.copyOf(fresh, freshCount * 2);
                        }
                        fresh[freshCount++] = number;
                    }
                }
            }
            // Activate the new ones in the order the list first reaches them; a refusal limits the group.
            long[] order = new long[freshCount];
            for (int f = 0; f < freshCount; f++) {
                order[f] = ((long) firstCell[fresh[f]] << 32) | fresh[f];
            }
            Arrays.sort(order);
            int limit = count;
            Throwable refused = null;
            for (long entry : order) {
                int number = (int) entry;
                int q = (int) (entry >>> 32);
                for (int c = 0; c < dimensions; c++) {
                    cell[c] = coordinates[c][from + q];
                }
                try {
                    containers[number] = activateContainer(cell, location);
                    segments[number] = location.segment;
                } catch (RuntimeException | Error e) {
                    limit = q;
                    refused = e;
                    break;
                }
            }
            long cellsOffset = plan.cellsOffset() + fieldOffset;
            for (int b = 0; b < buckets; b++) {
                store(records, bucketStart[b], bucketStart[b + 1], limit, cellsOffset);
            }
            if (refused instanceof RuntimeException e) {
                throw e;
            }
            if (refused instanceof Error e) {
                throw e;
            }
        }

        /** The counting sort of {@link #group} into the buckets for three coordinates whose extents are powers of two. */
        private void bucketize3(int[][] coordinates, int from, int count, MemorySegment buffer, long at) {
            int[] xs = coordinates[0];
            int[] ys = coordinates[1];
            int[] zs = coordinates[2];
            Grid3 grid = grid3;
            int bucketShift = Long.SIZE - BUCKET_BITS;
            int buckets = 1 << BUCKET_BITS;
            int[] starts = bucketStart;
            Arrays.fill(starts, 0);
            int end = from + count;
            for (int n = from; n < end; n++) {
                long key = grid.key(xs[n], ys[n], zs[n]);
                starts[(int) (spread(key) >>> bucketShift) + 1]++;
            }
            for (int b = 0; b < buckets; b++) {
                starts[b + 1] += starts[b];
            }
            int[] heads = Arrays.copyOf(starts, buckets);
            long[] records = this.records;
            int width = this.width;
            for (int q = 0; q < count; q++) {
                int n = from + q;
                int x = xs[n];
                int y = ys[n];
                int z = zs[n];
                long key = grid.key(x, y, z);
                long local = grid.index(x, y, z);
                put(records, width * heads[(int) (spread(key) >>> bucketShift)]++, key, local, q, buffer, at);
            }
        }

        /**
         * Fills the record at {@code r}: {@code key * cellCount + local}, then for four-byte values
         * {@code q << 32 | value}, for eight-byte ones {@code q} and the value.
         */
        private void put(long[] records, int r, long key, long local, int q, MemorySegment buffer, long at) {
            long value = at + (long) q * elementBytes;
            records[r] = key * plan.cellCount() + local;
            if (width == 2) {
                records[r + 1] = ((long) q << 32) | (buffer.get(ValueLayout.JAVA_INT_UNALIGNED, value) & 0xFFFF_FFFFL);
            } else {
                records[r + 1] = q;
                records[r + 2] = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, value);
            }
        }

        /** The position in the group of the cell of the record at {@code r}. */
        private int position(long[] records, int r) {
            return width == 2 ? (int) (records[r + 1] >>> 32) : (int) records[r + 1];
        }

        /** Stores the records {@code [first, last)} (one bucket) of cells before {@code limit}, then sets their bits. */
        private void store(long[] records, int first, int last, int limit, long cellsOffset) {
            if (first == last) {
                return;
            }
            int here = 0;
            int bucket = ++stamp;
            int width = this.width;
            for (int r = width * first; r < width * last; r += width) {
                if (position(records, r) >= limit) {
                    continue;
                }
                int number = (int) (records[r] >>> 32);
                int local = (int) records[r];
                long node = containers[number] + cellsOffset + local * cellBytes;
                if (width == 2) {
                    segments[number].set(ValueLayout.JAVA_INT_UNALIGNED, node, (int) records[r + 1]);
                } else {
                    segments[number].set(ValueLayout.JAVA_LONG_UNALIGNED, node, records[r + 2]);
                }
                if (masked) {
                    if (stamps[number] != bucket) {
                        // First met in this bucket: its mask words are the bucket's next.
                        stamps[number] = bucket;
                        if (here == bucketNumbers.length) {
                            bucketNumbers = Arrays.copyOf(bucketNumbers, here * 2);
                        }
                        if (words.length < (here + 1) * maskWords) {
                            words = Arrays.copyOf(words, Math.max(64, here * 2) * maskWords);
                        }
                        firstCell[number] = here;
                        bucketNumbers[here++] = number;
                    }
                    words[firstCell[number] * maskWords + (local >>> 6)] |= 1L << local;
                }
            }
            for (int k = 0; k < here; k++) {
                int number = bucketNumbers[k];
                publishBits(segments[number], containers[number], words, k * maskWords, maskWords);
            }
            Arrays.fill(words, 0, here * maskWords, 0);
        }

        /** The call's number for the container with {@code key}, numbering it if new. */
        private int number(long key) {
            int mask = tableKeys.length - 1;
            int slot = slot(key, tableKeys.length);
            int probes = 0;
            while (true) {
                long k = tableKeys[slot];
                if (k == key) {
                    return tableNumbers[slot];
                }
                if (k == EMPTY) {
                    break;
                }
                slot = (slot + 1) & mask;
                if (++probes == MAX_PROBES && tableKeys.length < SPARSE * (known + 1)) {
                    // The buckets fill the table's stretches one after another: grow before they run
                    // into each other. Not past SPARSE slots a container: keys whose hashes share
                    // their top bits collide at every size (multiples of 2,971,215,073 share 34),
                    // and doubling for them ran the heap out; they probe on (the table is at most
                    // half full, so a probe ends).
                    grow();
                    return number(key);
                }
            }
            int number = known++;
            if (number == segments.length) {
                int grown = number * 2;
                segments = Arrays.copyOf(segments, grown);
                containers = Arrays.copyOf(containers, grown);
                firstCell = Arrays.copyOf(firstCell, grown);
                stamps = Arrays.copyOf(stamps, grown);
            }
            tableKeys[slot] = key;
            tableNumbers[slot] = number;
            if (2 * known > tableKeys.length) {
                grow();
            }
            return number;
        }

        /** The home slot of {@code key} in a table of {@code length} slots (a power of two): the top bits of its hash. */
        private static int slot(long key, int length) {
            return (int) (spread(key) >>> (Long.SIZE - Integer.numberOfTrailingZeros(length)));
        }

        private void grow() {
            long[] oldKeys = tableKeys;
            int[] oldNumbers = tableNumbers;
            tableKeys = new long[2 * oldKeys.length];
            tableNumbers = new int[2 * oldKeys.length];
            Arrays.fill(tableKeys, EMPTY);
            int mask = tableKeys.length - 1;
            for (int s = 0; s < oldKeys.length; s++) {
                long key = oldKeys[s];
                if (key != EMPTY) {
                    int slot = slot(key, tableKeys.length);
                    while (tableKeys[slot] != EMPTY) {
                        slot = (slot + 1) & mask;
                    }
                    tableKeys[slot] = key;
                    tableNumbers[slot] = oldNumbers[s];
                }
            }
        }
    }

    /** Receives the active cells of {@link #forEachActive}: the value of the cell at {@code coordinates} is at {@code offset} of {@code segment}. */
    public interface CellSink {
        void cell(int[] coordinates, MemorySegment segment, long offset);
    }

    /**
     * Hands {@code sink} every active cell of the field's SNode, container by container in the
     * structure's order (at each level, cells in the order of their index), reading each mask and
     * pointer word once with acquire ordering.
     *
     * @return the cells handed over
     */
    public long forEachActive(CellSink sink) {
        List<PathStep> path = tree.plan().path(plan.snode());
        PathStep[] steps = path.toArray(PathStep[]::new);
        NodeUnit[] units = new NodeUnit[steps.length];
        for (int s = 0; s < steps.length; s++) {
            units[s] = tree.unit(steps[s].node().snode());
        }
        return new ActiveWalk(steps, units, sink).visit(0, tree.root(), 0);
    }

    /**
     * The walk of {@link #forEachActive}: the levels above the field's SNode through their units'
     * active cells, keeping per level the low corner of the cell whose container it visits; the
     * field's own containers directly (mask words read once each, with acquire ordering), with
     * each cell's local coordinates from a table made once.
     */
    private final class ActiveWalk {
        private static final int TABLE_LIMIT = 1 << 16;
        private final PathStep[] steps;
        private final NodeUnit[] units;
        private final CellSink sink;
        private final int[][] corners;
        private final int[] at = new int[dimensions];
        /** Per coordinate, per cell index of a container: its local coordinate; null for large containers. */
        private final int[][] local;
        private long visited;

        ActiveWalk(PathStep[] steps, NodeUnit[] units, CellSink sink) {
            this.steps = steps;
            this.units = units;
            this.sink = sink;
            this.corners = new int[steps.length + 1][dimensions];
            long cells = plan.cellCount();
            if (cells <= TABLE_LIMIT) {
                local = new int[dimensions][(int) cells];
                for (int index = 0; index < cells; index++) {
                    for (AxisSplit split : last.splits()) {
                        local[split.coordinate()][index] =
                                (int) (AxisSplit.split(index, split.stride(), -1, split.size()) * split.divisor());
                    }
                }
            } else {
                local = null;
            }
        }

        long visit(int level, MemorySegment segment, long cell) {
            long container = cell + steps[level].containerOffset();
            if (level == steps.length - 1) {
                leaf(segment, container, corners[level]);
                return visited;
            }
            units[level].forEachActive(segment, container, (s, index, childSegment, child, managed) -> {
                int[] corner = corners[level + 1];
                System.arraycopy(corners[level], 0, corner, 0, corner.length);
                for (AxisSplit split : steps[level].splits()) {
                    long digit = AxisSplit.split(index, split.stride(), -1, split.size());
                    corner[split.coordinate()] += (int) (digit * split.divisor());
                }
                visit(level + 1, childSegment, child);
            }, level);
            return visited;
        }

        /** Every active cell of the field's container at {@code container}, whose cell 0 is at {@code corner}. */
        private void leaf(MemorySegment segment, long container, int[] corner) {
            long cells = container + plan.cellsOffset() + fieldOffset;
            long count = plan.cellCount();
            if (!masked) {
                for (long index = 0; index < count; index++) {
                    cell(segment, cells, corner, index);
                }
                return;
            }
            long words = BitmaskWords.words(count);
            for (long w = 0; w < words; w++) {
                long bits = Atomics.getAcquire(segment, container + BitmaskWords.offsetOfWord(w));
                while (bits != 0) {
                    long index = BitmaskWords.lowestIndex(w, bits);
                    bits &= bits - 1;
                    cell(segment, cells, corner, index);
                }
            }
        }

        private void cell(MemorySegment segment, long cells, int[] corner, long index) {
            if (local != null) {
                for (int c = 0; c < dimensions; c++) {
                    at[c] = corner[c] + local[c][(int) index];
                }
            } else {
                System.arraycopy(corner, 0, at, 0, dimensions);
                for (AxisSplit split : last.splits()) {
                    at[split.coordinate()] += (int) (AxisSplit.split(index, split.stride(), -1, split.size()) * split.divisor());
                }
            }
            sink.cell(at, segment, cells + index * cellBytes);
            visited++;
        }
    }

    /**
     * Activates the path to the container holding {@code cell}, but not that cell (its bit is set
     * with the others, after the values: {@link NodeTree#activateContainer}); returns the
     * container's offset.
     */
    private long activateContainer(int[] cell, Location location) {
        tree.activateContainer(plan.snode(), cell, location);
        return location.offset;
    }

    /** The offset of the container holding {@code cell}, or -1 when a level above it is inactive. */
    private long findContainer(int[] cell, Location location) {
        if (!tree.locateContainer(plan.snode(), cell, location)) {
            return -1;
        }
        return location.offset;
    }

    /**
     * Copies the cells {@code [first, end)} of the container at {@code container} (whose cell 0
     * has coordinates {@code origin}) between node memory and the buffer. A write to a bitmasked
     * container stores the values first, then sets their mask bits (one OR per word publishes them).
     */
    private long copyContainer(MemorySegment segment, long container, int[] origin, int[] first, int[] end, int[] low,
                               long[] boxStride, MemorySegment buffer, long at, boolean write, long[] words) {
        if (write) {
            long cells = runs(segment, container, origin, first, end, low, boxStride, buffer, at, Pass.STORE, words);
            if (words != null) {
                Arrays.fill(words, 0);
                runs(segment, container, origin, first, end, low, boxStride, buffer, at, Pass.BITS, words);
                publishBits(segment, container, words);
            }
            return cells;
        }
        if (words != null) {
            for (int w = 0; w < words.length; w++) {
                words[w] = Atomics.getAcquire(segment, container + BitmaskWords.offsetOfWord(w));
            }
        }
        return runs(segment, container, origin, first, end, low, boxStride, buffer, at,
                words == null ? Pass.LOAD : Pass.LOAD_ACTIVE, words);
    }

    private enum Pass { BITS, STORE, LOAD, LOAD_ACTIVE }

    /** One pass over the rows (runs along the last coordinate) of {@code [first, end)}. */
    private long runs(MemorySegment segment, long container, int[] origin, int[] first, int[] end, int[] low,
                      long[] boxStride, MemorySegment buffer, long at, Pass pass, long[] words) {
        int d = dimensions - 1;
        int run = end[d] - first[d];
        long runStride = stride[d];
        long cellsAt = container + plan.cellsOffset() + fieldOffset;
        int[] x = first.clone();
        long count = 0;
        while (true) {
            long index = 0;
            long position = 0;
            for (int c = 0; c < dimensions; c++) {
                index += (x[c] - origin[c]) * stride[c];
                position += (x[c] - low[c]) * boxStride[c];
            }
            long node = cellsAt + index * cellBytes;
            long linear = at + position * elementBytes;
            switch (pass) {
                case BITS -> {
                    for (int t = 0; t < run; t++) {
                        BitmaskWords.set(words, 0, index + t * runStride);
                    }
                }
                case STORE -> copyRun(segment, node, buffer, linear, run, runStride, true);
                case LOAD -> copyRun(segment, node, buffer, linear, run, runStride, false);
                case LOAD_ACTIVE -> {
                    int active = 0;
                    for (int t = 0; t < run; t++) {
                        active += BitmaskWords.isSet(words, 0, index + t * runStride) ? 1 : 0;
                    }
                    if (active == run) {
                        copyRun(segment, node, buffer, linear, run, runStride, false);
                        break;
                    }
                    for (int t = 0; t < run && active > 0; t++) {
                        if (BitmaskWords.isSet(words, 0, index + t * runStride)) {
                            copyRun(segment, node + t * runStride * cellBytes, buffer,
                                    linear + (long) t * elementBytes, 1, 1, false);
                        }
                    }
                }
            }
            count += run;
            int c = d - 1;
            while (c >= 0) {
                if (++x[c] < end[c]) {
                    break;
                }
                x[c] = first[c];
                c--;
            }
            if (c < 0) {
                return count;
            }
        }
    }

    /**
     * Sets the container's bits in {@code words} with one atomic OR per word that has any, and
     * counts an activation when one of them was clear.
     */
    private void publishBits(MemorySegment segment, long container, long[] words) {
        publishBits(segment, container, words, 0, words.length);
    }

    private void publishBits(MemorySegment segment, long container, long[] words, int from, int count) {
        boolean changed = false;
        for (int w = 0; w < count; w++) {
            long bits = words[from + w];
            if (bits == 0) {
                continue;
            }
            long offset = container + BitmaskWords.offsetOfWord(w);
            if ((Atomics.getAcquire(segment, offset) & bits) != bits) {
                changed |= (Atomics.getAndBitwiseOr(segment, offset, bits) & bits) != bits;
            }
        }
        if (changed) {
            tree.countActivation();
        }
    }


    /**
     * Copies {@code run} elements between node memory (cells {@code runStride} apart, from
     * {@code nodeAt}) and the buffer (consecutive elements from {@code bufferAt}), into node memory
     * when {@code toNode}. One copy when the cells are consecutive elements too.
     */
    private void copyRun(MemorySegment node, long nodeAt, MemorySegment buffer, long bufferAt, int run, long runStride,
                         boolean toNode) {
        long nodeStep = runStride * cellBytes;
        if (nodeStep == elementBytes && run > 1) {
            long bytes = (long) run * elementBytes;
            if (toNode) {
                MemorySegment.copy(buffer, bufferAt, node, nodeAt, bytes);
            } else {
                MemorySegment.copy(node, nodeAt, buffer, bufferAt, bytes);
            }
            return;
        }
        for (int t = 0; t < run; t++, nodeAt += nodeStep, bufferAt += elementBytes) {
            if (elementBytes == Integer.BYTES) {
                if (toNode) {
                    node.set(ValueLayout.JAVA_INT, nodeAt, buffer.get(ValueLayout.JAVA_INT_UNALIGNED, bufferAt));
                } else {
                    buffer.set(ValueLayout.JAVA_INT_UNALIGNED, bufferAt, node.get(ValueLayout.JAVA_INT, nodeAt));
                }
            } else if (toNode) {
                node.set(ValueLayout.JAVA_LONG, nodeAt, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, bufferAt));
            } else {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, bufferAt, node.get(ValueLayout.JAVA_LONG, nodeAt));
            }
        }
    }
}
