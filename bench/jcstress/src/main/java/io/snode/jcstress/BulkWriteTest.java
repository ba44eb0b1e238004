package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.BoxTransfer;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.I_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Bulk writes ({@link BoxTransfer}, what {@code Bulk.write} and {@code Bulk.writeCells} run):
 * the values are stored first, then the mask bits are set with one atomic OR per word, which
 * publishes them. Layout {@code bitmasked(i,64).place(i32 v)}: the 64 mask bits are one word in
 * the root cell; {@link ForgottenContainersPublishAfterTheirValues} writes a three-coordinate
 * layout, whose lists take the two-pass path.
 */
public final class BulkWriteTest {
    static final RuntimePool POOL = new RuntimePool("bitmasked(i,64).place(i32 v)");
    static final SNode MASKED = POOL.layout().snode(1);

    private BulkWriteTest() {
    }

    private static BoxTransfer transfer(SparseRuntime runtime) {
        return new BoxTransfer(runtime.internalTree(), POOL.layout().field("v"));
    }

    /**
     * A list write of cells 0 and 1 (values 7 and 9) against a reader that reads one cell's bit
     * (acquire) and then its value: r1 the cell active as the reader saw it, r2 the value it read
     * then. The two tests below differ in the cell read.
     */
    abstract static class ListWriteAgainstReader {
        final SparseRuntime runtime = POOL.take();
        final BoxTransfer transfer = transfer(runtime);
        final int[][] cells = {{0, 1}};
        final MemorySegment values = MemorySegment.ofArray(new int[] {7, 9});

        void writeList() {
            transfer.writeCells(cells, 0, 2, values, 0);
        }

        void readCell(int cell, II_Result r) {
            try {
                r.r1 = runtime.isActive(MASKED, cell) ? 1 : 0;
                r.r2 = runtime.getInt("v", cell);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("read", e);
            }
        }

        void reset(II_Result r) {
            if (POOL.reset(runtime) != 0) {
                r.r1 = -1;
            }
        }
    }

    /** The reader on cell 1, which the list reaches second. */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Read before the write.")
    @Outcome(id = "0, 9", expect = ACCEPTABLE, desc = "The value is stored, its bit not set yet.")
    @Outcome(id = "1, 9", expect = ACCEPTABLE, desc = "Read after the write.")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "The bit published without its value.")
    @State
    public static class BitPublishesValue extends ListWriteAgainstReader {
        @Actor
        public void write(II_Result r) {
            writeList();
        }

        @Actor
        public void read(II_Result r) {
            readCell(1, r);
        }

        @Arbiter
        public void arbiter(II_Result r) {
            reset(r);
        }
    }

    /**
     * The reader on cell 0, the cell that reaches the container first: the write activates the
     * container for it, and that activation must not set its bit before its value is stored (it
     * did, as the activation of the cell itself, until 12-04).
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Read before the write.")
    @Outcome(id = "0, 7", expect = ACCEPTABLE, desc = "The value is stored, its bit not set yet.")
    @Outcome(id = "1, 7", expect = ACCEPTABLE, desc = "Read after the write.")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "The bit published without its value.")
    @State
    public static class FirstCellBitPublishesValue extends ListWriteAgainstReader {
        @Actor
        public void write(II_Result r) {
            writeList();
        }

        @Actor
        public void read(II_Result r) {
            readCell(0, r);
        }

        @Arbiter
        public void arbiter(II_Result r) {
            reset(r);
        }
    }

    /**
     * A box write of cells [0, 2) (values 1 and 2) against a per-cell write of cell 2 (value 3)
     * in the same mask word. Results: r1..r3 cells 0..2 active, r4 v(0) + v(1) * 10 + v(2) * 100,
     * r5 the count of active cells, r6 the reset (0).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1, 321, 3, 0", expect = ACCEPTABLE, desc = "Every bit and every value kept.")
    @State
    public static class BoxBesideACellWrite {
        final SparseRuntime runtime = POOL.take();
        final BoxTransfer transfer = transfer(runtime);
        final MemorySegment values = MemorySegment.ofArray(new int[] {1, 2});

        @Actor
        public void box(IIIIII_Result r) {
            transfer.write(new int[] {0}, new int[] {2}, values, 0);
        }

        @Actor
        public void cell(IIIIII_Result r) {
            try {
                runtime.setInt("v", 3, 2);
            } catch (RuntimeException | Error e) {
                r.r5 = Unexpected.report("cell", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            try {
                r.r1 = runtime.isActive(MASKED, 0) ? 1 : 0;
                r.r2 = runtime.isActive(MASKED, 1) ? 1 : 0;
                r.r3 = runtime.isActive(MASKED, 2) ? 1 : 0;
                r.r4 = runtime.getInt("v", 0) + runtime.getInt("v", 1) * 10 + runtime.getInt("v", 2) * 100;
                int active = 0;
                for (int i = 0; i < 64; i++) {
                    active += runtime.isActive(MASKED, i) ? 1 : 0;
                }
                r.r5 = active;
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }

    static final RuntimePool GRID = new RuntimePool("pointer(ijk,4).bitmasked(ijk,2).place(i32 v)");
    static final SNode GRID_MASKED = GRID.layout().snode(2);

    /**
     * A list write on three coordinates (the path that resolves a batch's cells first, activating
     * their containers, and stores them after) over 24 cells, each in a container of its own: the
     * call's cache of containers has 32 slots, so it forgets some containers (with their gathered
     * bits) before the batch's values are stored. A reader goes over the cells, each bit (acquire)
     * then its value: r1 counts the cells it saw active with value 0. The forgotten containers'
     * bits must wait until their values are stored.
     */
    @JCStressTest
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "No cell seen active before its value.")
    @Outcome(expect = FORBIDDEN, desc = "Cells seen active with value 0 (or an unexpected exception, negative).")
    @State
    public static class ForgottenContainersPublishAfterTheirValues {
        static final int CELLS = 24;
        static final int[][] COORDINATES = new int[3][CELLS];
        static final int[] VALUES = new int[CELLS];

        static {
            for (int n = 0; n < CELLS; n++) {
                // Containers (n % 4, (n / 4) % 4, n / 16): 24 distinct ones of the 64.
                COORDINATES[0][n] = 2 * (n % 4);
                COORDINATES[1][n] = 2 * ((n / 4) % 4) + 1;
                COORDINATES[2][n] = 2 * (n / 16);
                VALUES[n] = n + 1;
            }
        }

        final SparseRuntime runtime = GRID.take();
        final BoxTransfer transfer = new BoxTransfer(runtime.internalTree(), GRID.layout().field("v"));

        @Actor
        public void write(I_Result r) {
            transfer.writeCells(COORDINATES, 0, CELLS, MemorySegment.ofArray(VALUES), 0);
        }

        @Actor
        public void read(I_Result r) {
            try {
                int early = 0;
                for (int n = 0; n < CELLS; n++) {
                    int x = COORDINATES[0][n];
                    int y = COORDINATES[1][n];
                    int z = COORDINATES[2][n];
                    if (runtime.isActive(GRID_MASKED, x, y, z) && runtime.getInt("v", x, y, z) == 0) {
                        early++;
                    }
                }
                r.r1 = early;
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("read", e);
            }
        }

        @Arbiter
        public void arbiter(I_Result r) {
            if (GRID.reset(runtime) != 0) {
                r.r1 = -1;
            }
        }
    }
}
