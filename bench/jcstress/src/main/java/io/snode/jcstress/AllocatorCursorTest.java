package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.MemoryCapExceededException;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.memory.NodeManagerMetrics;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two threads allocate from one {@link NodeManager} whose thread caches take one cell per refill
 * ({@code cacheBatch = 1}), so that every allocation goes to the shared free-list cursor or to
 * growth under the growth lock: the two indices must differ. 16-byte cells.
 *
 * <p>Results: r1 and r2 the indices (-9 when {@code allocate} threw), r3 and r4 as each test
 * says.
 */
public final class AllocatorCursorTest {
    private AllocatorCursorTest() {
    }

    /** One manager (and its pool) per state. */
    static final class Cells {
        final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);
        final NodeManager manager = new NodeManager(pool, "jcstress.cells", 16, 8, 1);
    }

    /**
     * Both take an entry of a free list that holds cells 0 and 1 (allocated, recycled and
     * collected before). r3 cells in use afterwards (2), r4 the manager's state after both cells
     * were recycled and collected again (0: two free cells, none in use).
     */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 0", expect = ACCEPTABLE, desc = "The first thread took entry 0, the second entry 1.")
    @Outcome(id = "1, 0, 2, 0", expect = ACCEPTABLE, desc = "The second thread took entry 0, the first entry 1.")
    @State
    public static class FreeList {
        static final ConcurrentLinkedQueue<Cells> IDLE = new ConcurrentLinkedQueue<>();
        final Cells cells = take();

        private static Cells take() {
            Cells cells = IDLE.poll();
            if (cells == null) {
                cells = new Cells();
                cells.manager.allocate();
                cells.manager.allocate();
                cells.manager.recycle(0);
                cells.manager.recycle(1);
                cells.manager.collect();
            }
            return cells;
        }

        @Actor
        public void allocateFirst(IIII_Result r) {
            r.r1 = allocate(cells.manager);
        }

        @Actor
        public void allocateSecond(IIII_Result r) {
            r.r2 = allocate(cells.manager);
        }

        @Arbiter
        public void check(IIII_Result r) {
            NodeManager manager = cells.manager;
            r.r3 = (int) manager.metrics().cellsInUse();
            try {
                manager.recycle(r.r1);
                manager.recycle(r.r2);
                manager.collect();
                NodeManagerMetrics after = manager.metrics();
                boolean clean = after.cellsInUse() == 0 && after.cellsFree() == 2 && after.cellsAllocated() == 2;
                r.r4 = clean ? 0 : 1;
            } catch (RuntimeException | Error e) {
                r.r4 = Unexpected.report("check", e);
            }
            if (r.r4 == 0) {
                IDLE.add(cells);
            } else {
                cells.pool.close();
            }
        }
    }

    /**
     * Both grow a fresh manager (its free list is empty): one cell each under the growth lock.
     * r3 cells allocated (2), r4 cells in use (2).
     */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 2", expect = ACCEPTABLE, desc = "The first thread grew first.")
    @Outcome(id = "1, 0, 2, 2", expect = ACCEPTABLE, desc = "The second thread grew first.")
    @State
    public static class Growth {
        final Cells cells = new Cells();

        @Actor
        public void allocateFirst(IIII_Result r) {
            r.r1 = allocate(cells.manager);
        }

        @Actor
        public void allocateSecond(IIII_Result r) {
            r.r2 = allocate(cells.manager);
        }

        @Arbiter
        public void check(IIII_Result r) {
            NodeManagerMetrics metrics = cells.manager.metrics();
            r.r3 = (int) metrics.cellsAllocated();
            r.r4 = (int) metrics.cellsInUse();
            cells.pool.close();
        }
    }

    /**
     * Cells left by a thread that ended: a manager of 64-byte cells under a cap that holds its
     * first chunks only (64 cells); the state's thread took cells 0 to 61 and a thread that then
     * ended took cell 62 of its growth batch of two, leaving 63 in its cache. Both actors allocate:
     * the free list is empty and growth is refused, so each looks for the ended thread's cache
     * (a thread's first allocation among the oldest caches, a refused refill among all of them):
     * exactly one takes cell 63, the other is refused by the cap. r1 and r2 the indices (-1 when
     * the cap refused, -9 anything else), r3 cells in use afterwards (64), r4 cells cached (0).
     */
    @JCStressTest
    @Outcome(id = "63, -1, 64, 0", expect = ACCEPTABLE, desc = "The first thread took the ended thread's cell.")
    @Outcome(id = "-1, 63, 64, 0", expect = ACCEPTABLE, desc = "The second thread took the ended thread's cell.")
    @State
    public static class EndedThreadsCache {
        final MemoryPool pool = new MemoryPool(3 * 4096);
        final NodeManager manager = new NodeManager(pool, "jcstress.cells", 64, 8, 2);

        public EndedThreadsCache() {
            for (int n = 0; n < 62; n++) {
                manager.allocate();
            }
            Thread ended = new Thread(manager::allocate, "ends");
            ended.start();
            try {
                ended.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Actor
        public void allocateFirst(IIII_Result r) {
            r.r1 = allocateOrRefused(manager);
        }

        @Actor
        public void allocateSecond(IIII_Result r) {
            r.r2 = allocateOrRefused(manager);
        }

        @Arbiter
        public void check(IIII_Result r) {
            NodeManagerMetrics metrics = manager.metrics();
            r.r3 = (int) metrics.cellsInUse();
            r.r4 = (int) metrics.cellsCached();
            pool.close();
        }

        private static int allocateOrRefused(NodeManager manager) {
            try {
                return manager.allocate();
            } catch (MemoryCapExceededException refused) {
                return -1;
            } catch (RuntimeException | Error e) {
                return Unexpected.report("allocate", e);
            }
        }
    }

    static int allocate(NodeManager manager) {
        try {
            return manager.allocate();
        } catch (RuntimeException | Error e) {
            return Unexpected.report("allocate", e);
        }
    }
}
