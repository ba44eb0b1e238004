package io.snode.runtime.internal;

import io.snode.api.NodeKind;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The cells one activation has taken from node managers and not published yet, by slot: one
 * slot per path step (the cell a pointer step would publish), then the chunk and the two
 * directory blocks a list step may need. It also records the words written into reserved cells
 * while a fresh subtree is built in them ({@link #built}), so that a thread that loses the race
 * to publish can zero them again ({@link #unbuild}) and still own clean cells.
 *
 * <p>Cells are handed back with {@code unallocate} in the reverse order of their allocation,
 * which reverses each manager's counters exactly when nothing else moved them (see
 * {@code NodeManager}). One instance serves one call on one thread.
 */
public final class Reservation {
    public static final int NEED_CHUNK = 1;
    public static final int NEED_TOP = 2;
    public static final int NEED_LEAF = 4;

    private final int steps;
    private final long[] cells;
    private final CheckedCells[] managers;
    /** Slots in the order their cells were allocated. */
    private final int[] order;
    private int allocated;
    /** NEED_* bits of the list step, from the latest plan. */
    private int missing;
    /** Whether this call has published anything (a bit set, a word, a reference, a length). */
    public boolean changed;

    /**
     * Per path step, the hash table reserved for it (0: none) and the registry it came from;
     * null until a hash step reserves one, so paths without hash nodes allocate nothing more.
     */
    private long[] tables;
    private HashTables[] tableOwners;
    /** The capacity the latest plan found the planned hash step's table needs (0: none). */
    private int tableNeed;
    private int[] buildTables = new int[2];
    private int buildTableCount;

    private int[] buildSlots = new int[4];
    private int buildSlotCount;
    private MemorySegment[] builtSegments = new MemorySegment[8];
    private long[] builtOffsets = new long[8];
    private int builtCount;

    public Reservation(int steps) {
        this.steps = steps;
        int slots = steps + 3;
        this.cells = new long[slots];
        this.managers = new CheckedCells[slots];
        this.order = new int[slots * 2];
        Arrays.fill(cells, -1);
    }

    public int chunkSlot() {
        return steps;
    }

    public int topSlot() {
        return steps + 1;
    }

    public int leafSlot() {
        return steps + 2;
    }

    public int missing() {
        return missing;
    }

    public void needNothing() {
        missing = 0;
        tableNeed = 0;
    }

    // ------------------------------------------------------------------ hash tables

    /** The planned hash step needs a table of at least {@code capacity} entries (a new one or a larger one). */
    public void needTable(int capacity) {
        tableNeed = capacity;
    }

    /** What {@link #needTable} recorded in the latest plan; 0 when nothing. */
    public int tableNeed() {
        return tableNeed;
    }

    /** The table reserved for {@code step}, or 0. */
    public long table(int step) {
        return tables == null ? 0 : tables[step];
    }

    /** Reserves the table {@code id} of {@code owner} for {@code step}; one held before goes back. */
    public void putTable(int step, HashTables owner, long id) {
        if (tables == null) {
            tables = new long[steps];
            tableOwners = new HashTables[steps];
        }
        if (tables[step] != 0) {
            tableOwners[step].unreserve(tables[step]);
        }
        tables[step] = id;
        tableOwners[step] = owner;
    }

    /** The table of {@code step} is published: it is no longer this reservation's to hand back. */
    public void usedTable(int step) {
        tables[step] = 0;
    }

    /** The subtree being built names the table of {@code step}. */
    public void buildsWithTable(int step) {
        if (buildTableCount == buildTables.length) {
            buildTables = Arrays.copyOf(buildTables, buildTableCount * 2);
        }
        buildTables[buildTableCount++] = step;
    }

    /** The list of {@code last} (if it is dynamic) does not exist yet: every block to {@code element}. */
    public void needWholeList(SNodePlan last, long element) {
        if (last.kind() != NodeKind.DYNAMIC) {
            missing = 0;
            return;
        }
        missing = element / last.chunkSize() < DynamicHeader.INLINE_CHUNKS
                ? NEED_CHUNK : NEED_CHUNK | NEED_TOP | NEED_LEAF;
    }

    /** The list exists and lacks the references in {@code missingBits}; whether it lacks any. */
    public boolean needChunk(SNodePlan node, long element, int missingBits) {
        missing = missingBits;
        return missingBits != 0;
    }

    /** Whether a reserved block waits for every reference in {@code missingBits}. */
    public boolean covers(int missingBits) {
        return ((missingBits & NEED_CHUNK) == 0 || has(chunkSlot()))
                && ((missingBits & NEED_TOP) == 0 || has(topSlot()))
                && ((missingBits & NEED_LEAF) == 0 || has(leafSlot()));
    }

    public boolean has(int slot) {
        return cells[slot] >= 0;
    }

    public long cell(int slot) {
        long cell = cells[slot];
        if (cell < 0) {
            throw new AssertionError("no cell reserved in slot " + slot);
        }
        return cell;
    }

    /** The cell reserved in {@code slot}, or -1 when none is. */
    public long cellOrNone(int slot) {
        return cells[slot];
    }

    public void put(int slot, CheckedCells manager, long cell) {
        cells[slot] = cell;
        managers[slot] = manager;
        order[allocated++] = slot;
    }

    /** The cell in {@code slot} is published: it is no longer this reservation's to hand back. */
    public void used(int slot) {
        cells[slot] = -1;
    }

    // ------------------------------------------------------------------ building a fresh subtree

    public void startBuild() {
        buildSlotCount = 0;
        buildTableCount = 0;
        builtCount = 0;
    }

    /** The subtree being built names the cell in {@code slot}. */
    public void buildsWith(int slot) {
        if (buildSlotCount == buildSlots.length) {
            buildSlots = Arrays.copyOf(buildSlots, buildSlotCount * 2);
        }
        buildSlots[buildSlotCount++] = slot;
    }

    /** Stores {@code value} into a word of a reserved cell (all zero before) and remembers it. */
    public void built(MemorySegment segment, long offset, long value) {
        if (builtCount == builtOffsets.length) {
            builtSegments = Arrays.copyOf(builtSegments, builtCount * 2);
            builtOffsets = Arrays.copyOf(builtOffsets, builtCount * 2);
        }
        // Plain enough: nobody else can reach this cell until the release CAS that publishes it.
        Atomics.setRelease(segment, offset, value);
        builtSegments[builtCount] = segment;
        builtOffsets[builtCount] = offset;
        builtCount++;
    }

    /** The built subtree was published: its cells are no longer this reservation's. */
    public void usedBuilt() {
        for (int n = 0; n < buildSlotCount; n++) {
            used(buildSlots[n]);
        }
        for (int n = 0; n < buildTableCount; n++) {
            int step = buildTables[n];
            tableOwners[step].published(tables[step], 1); // a fresh table holding its one entry
            usedTable(step);
        }
        buildSlotCount = 0;
        buildTableCount = 0;
        builtCount = 0;
    }

    /** Zeroes every word the build wrote: the reserved cells are all zero again. */
    public void unbuild() {
        for (int n = builtCount - 1; n >= 0; n--) {
            Atomics.setRelease(builtSegments[n], builtOffsets[n], 0);
            builtSegments[n] = null;
        }
        builtCount = 0;
        buildSlotCount = 0;
        buildTableCount = 0;
    }

    // ------------------------------------------------------------------ handing back

    /** Hands every unpublished cell and table back, cells newest first. */
    public void release() {
        RuntimeException first = null;
        if (tables != null) {
            for (int step = steps - 1; step >= 0; step--) { // the reverse of their reservation
                if (tables[step] != 0) {
                    try {
                        tableOwners[step].unreserve(tables[step]);
                    } catch (RuntimeException e) {
                        first = chain(first, e);
                    }
                    tables[step] = 0;
                }
            }
        }
        for (int n = allocated - 1; n >= 0; n--) {
            int slot = order[n];
            if (cells[slot] >= 0) {
                try {
                    managers[slot].unallocate(cells[slot]);
                } catch (RuntimeException e) {
                    first = chain(first, e);
                }
                cells[slot] = -1;
            }
        }
        allocated = 0;
        if (first != null) {
            throw first;
        }
    }

    /** The first failure of a hand-back, with later ones suppressed in it. */
    private static RuntimeException chain(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** {@link #release()} at the end of a call; a failure there is added to {@code failure} if the call failed. */
    public void releaseAfter(Throwable failure) {
        try {
            release();
        } catch (RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }
}
