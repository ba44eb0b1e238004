package io.snode.bench.gc;

import io.snode.gc.internal.CellIndexSort;
import io.snode.gc.internal.ManagerCollection;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.memory.ListManager;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.vectorization.GcKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.lang.foreign.MemorySegment;
import java.util.Random;

/**
 * A node manager whose recycled list holds {@code zeroBytes} of cells, ready for phase 2 (refill
 * and zero) to be run on it again and again: {@link ManagerCollection#refillAndZero} reads the
 * (lazily cleared) recycled list and rewrites the same free-list entries each time, so every run
 * does the same work.
 *
 * <ul>
 *   <li>{@code contiguous}: every cell of a {@code zeroBytes} region, recycled in index order (so
 *       the collector zeroes a few long runs).</li>
 *   <li>{@code scattered}: half the cells of a region twice as large, chosen at random and
 *       recycled in random order (each cell zeroed on its own: the realistic case).</li>
 * </ul>
 */
public final class RecycledRegion implements AutoCloseable {

    public enum Layout { CONTIGUOUS, SCATTERED }

    private final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);
    private final NodeManager manager;
    private final int recycledCells;
    private final long cellBytes;
    private final CellIndexSort sort = new CellIndexSort();

    public RecycledRegion(Layout layout, long zeroBytes, long cellBytes, long seed) {
        this.cellBytes = cellBytes;
        this.manager = new NodeManager(pool, "bench/" + layout, cellBytes, 8, 1);
        this.recycledCells = Math.toIntExact(zeroBytes / cellBytes);
        int cells = layout == Layout.CONTIGUOUS ? recycledCells : 2 * recycledCells;
        // Batch 1: cells 0 .. cells-1 in order, nothing left in a thread cache.
        manager.dataList().ensureCapacity(cells);
        for (int i = 0; i < cells; i++) {
            manager.allocate();
        }
        int[] order = new int[cells];
        for (int i = 0; i < cells; i++) {
            order[i] = i;
        }
        if (layout == Layout.SCATTERED) {
            Random rnd = new Random(seed);
            for (int i = cells - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        for (int i = 0; i < recycledCells; i++) {
            manager.recycle(order[i]);
        }
        // One real collection: the free list is now the recycled order, and the recycled list,
        // cleared lazily, still holds it for refillAndZero.
        manager.collect();
    }

    /** Phase 2 over every recycled cell with the given kernels and runner, in recycling or index order. */
    public void phase2(GcKernels kernels, TaskRunner runner, long grainBytes, boolean sorted) {
        ManagerCollection.refillAndZero(kernels, runner, manager, 0, recycledCells, Math.max(1, grainBytes / cellBytes),
                sorted ? sort : null);
    }

    /** {@link MemorySegment#fill} over each recycled cell on its own, in the same order (no index copy). */
    public void fillEachCell() {
        ListManager recycled = manager.recycledList();
        for (int i = 0; i < recycledCells; i++) {
            int cell = recycled.getInt(i);
            manager.cellChunk(cell).asSlice(manager.cellOffset(cell), cellBytes).fill((byte) 0);
        }
    }

    /** {@link MemorySegment#fill} over the data list's first {@code bytes} bytes, chunk by chunk. */
    public void fillRegion(long bytes) {
        ListManager data = manager.dataList();
        long left = bytes;
        for (int k = 0; k < data.chunkCount() && left > 0; k++) {
            MemorySegment chunk = data.chunk(k);
            long n = Math.min(left, chunk.byteSize());
            chunk.asSlice(0, n).fill((byte) 0);
            left -= n;
        }
    }

    public long zeroBytes() {
        return (long) recycledCells * cellBytes;
    }

    public static GcKernels kernels(String name) {
        return switch (name) {
            case "vector" -> VectorizationProvider.vector().map(VectorizationProvider::gcKernels)
                    .orElseThrow(() -> new IllegalStateException(
                            "the Vector API kernels are unavailable: run with --add-modules jdk.incubator.vector"));
            case "scalar" -> VectorizationProvider.scalar().gcKernels();
            default -> throw new IllegalArgumentException("kernels=" + name + " (vector or scalar)");
        };
    }

    @Override
    public void close() {
        manager.close();
        pool.close();
    }
}
