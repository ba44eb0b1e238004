package io.snode.gc;

import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;

/** Builds node managers in exact states, and reads their lists and cells back. */
final class ManagerStates {

    private ManagerStates() {
    }

    static long alignmentFor(long cellSize) {
        return Math.min(8, Long.lowestOneBit(cellSize));
    }

    /**
     * A manager with cache batch 1 and cells {@code 0 .. cells-1}, whose free list holds exactly
     * {@code free} in that order with the cursor at {@code cursor}, and whose recycled list holds
     * {@code recycled} in that order. Every cell that is not free holds {@link #pattern} bytes.
     */
    static NodeManager build(MemoryPool pool, String owner, long cellSize, int cells, int[] free, int cursor,
                             int[] recycled) {
        NodeManager m = new NodeManager(pool, owner, cellSize, alignmentFor(cellSize), 1);
        for (int i = 0; i < cells; i++) {
            int got = m.allocate();
            if (got != i) {
                throw new AssertionError("allocate()=" + got + " expected " + i);
            }
        }
        for (int f : free) {
            m.recycle(f);
        }
        m.collect();
        for (int i = 0; i < cursor; i++) {
            int got = m.allocate();
            if (got != free[i]) {
                throw new AssertionError("allocate()=" + got + " expected " + free[i]);
            }
        }
        for (int r : recycled) {
            m.recycle(r);
        }
        boolean[] isFree = new boolean[cells];
        for (int i = cursor; i < free.length; i++) {
            isFree[free[i]] = true;
        }
        for (int c = 0; c < cells; c++) {
            if (!isFree[c]) {
                writePattern(m, c, 1);
            }
        }
        return m;
    }

    /** Fills cell {@code cell} with non-zero bytes that depend on the cell and {@code salt}. */
    static void writePattern(NodeManager m, int cell, long salt) {
        MemorySegment chunk = m.cellChunk(cell);
        long offset = m.cellOffset(cell);
        for (long j = 0; j < m.cellStride(); j++) {
            chunk.set(ValueLayout.JAVA_BYTE, offset + j, (byte) ((cell * 31L + j * 7 + salt) | 1));
        }
    }

    static boolean isZero(NodeManager m, int cell) {
        MemorySegment chunk = m.cellChunk(cell);
        long offset = m.cellOffset(cell);
        for (long j = 0; j < m.cellStride(); j++) {
            if (chunk.get(ValueLayout.JAVA_BYTE, offset + j) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Free-list entries {@code [0, length)} (taken ones included). */
    static int[] freeEntries(NodeManager m) {
        return entries(m, m.freeListLength());
    }

    /** Free-list entries {@code [0, n)}, whatever the list's length. */
    static int[] entries(NodeManager m, long n) {
        int[] out = new int[(int) n];
        for (int i = 0; i < n; i++) {
            out[i] = m.freeList().getInt(i);
        }
        return out;
    }

    static int[] recycledEntries(NodeManager m, long n) {
        int[] out = new int[(int) n];
        for (int i = 0; i < n; i++) {
            out[i] = m.recycledList().getInt(i);
        }
        return out;
    }

    static int[] sorted(int[] a) {
        int[] s = a.clone();
        Arrays.sort(s);
        return s;
    }

    /** Bytes of every cell {@code [0, cellsAllocated)}. */
    static byte[] memory(NodeManager m) {
        long cells = m.metrics().cellsAllocated();
        byte[] out = new byte[(int) (cells * m.cellStride())];
        for (int c = 0; c < cells; c++) {
            MemorySegment.copy(m.cellChunk(c), ValueLayout.JAVA_BYTE, m.cellOffset(c), out,
                    (int) (c * m.cellStride()), (int) m.cellStride());
        }
        return out;
    }

    static final long[] CELL_SIZES = {4, 12, 16, 24, 64, 200, 2048};

    /**
     * A random state reached by a replayable script of allocations (on this thread and on
     * {@code other}, so two thread caches hold cells), recycles, writes and serial collections.
     * The same seed gives the same state.
     */
    static NodeManager random(MemoryPool pool, long seed, ExecutorService other) {
        Random rnd = new Random(seed);
        long cellSize = CELL_SIZES[rnd.nextInt(CELL_SIZES.length)];
        int batch = 1 + rnd.nextInt(8);
        NodeManager m = new NodeManager(pool, "random-" + seed, cellSize, alignmentFor(cellSize), batch);
        List<Integer> inUse = new ArrayList<>();
        int ops = rnd.nextInt(400);
        for (int op = 0; op < ops; op++) {
            int choice = rnd.nextInt(100);
            if (choice < 55) {
                int cell = rnd.nextInt(4) == 0 ? onOther(other, m) : m.allocate();
                writePattern(m, cell, seed + op);
                inUse.add(cell);
            } else if (choice < 97) {
                if (!inUse.isEmpty()) {
                    m.recycle(inUse.remove(rnd.nextInt(inUse.size())));
                }
            } else {
                m.collect();
            }
        }
        return m;
    }

    private static int onOther(ExecutorService other, NodeManager m) {
        try {
            return other.submit(m::allocate).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError(e);
        }
    }
}
