package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Bitmasked activation (an atomic OR on the mask word) and deactivation (an atomic AND, then the
 * cell is zeroed) of cells that share one mask word. Layout {@code bitmasked(i,64).place(i32 v)}:
 * the 64 mask bits are one word in the root cell.
 */
public final class BitmaskTest {
    static final RuntimePool POOL = new RuntimePool("bitmasked(i,64).place(i32 v)");
    static final SNode MASKED = POOL.layout().snode(1);

    private BitmaskTest() {
    }

    /**
     * Two writes set two bits of the same word. Results: r1 cell 0 active, r2 v(0), r3 cell 1
     * active, r4 v(1), r5 the reset (0).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1, 2, 0", expect = ACCEPTABLE, desc = "Both bits set, both values kept.")
    @State
    public static class SetSet {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void setFirst(IIIII_Result r) {
            write(runtime, 0, 1);
        }

        @Actor
        public void setSecond(IIIII_Result r) {
            write(runtime, 1, 2);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                r.r1 = runtime.isActive(MASKED, 0) ? 1 : 0;
                r.r2 = runtime.getInt("v", 0);
                r.r3 = runtime.isActive(MASKED, 1) ? 1 : 0;
                r.r4 = runtime.getInt("v", 1);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /**
     * A write sets bit 0 while a deactivation clears bit 1 (active before the race) of the same
     * word. Results: r1 cell 0 active, r2 v(0), r3 cell 1 active, r4 v(1), r5 the deactivation's
     * result (1: was active), r6 the reset (0).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0, 0, 1, 0", expect = ACCEPTABLE,
            desc = "Bit 0 set with its value, bit 1 cleared with its cell zeroed.")
    @State
    public static class SetClear {
        final SparseRuntime runtime = POOL.take();

        public SetClear() {
            runtime.setInt("v", 5, 1);
        }

        @Actor
        public void set(IIIIII_Result r) {
            write(runtime, 0, 1);
        }

        @Actor
        public void clear(IIIIII_Result r) {
            r.r5 = deactivate(runtime, 1);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            readTwoCells(runtime, r);
            r.r6 = POOL.reset(runtime);
        }
    }

    /**
     * A write to cell 0 racing its deactivation (inactive before the race). Results: r1 the
     * deactivation's result (1: was active), r2 cell 0 active, r3 v(0), r4 v(0) after activating
     * cell 0 again (a cell that was inactive must come back zeroed), r5 the reset (0).
     */
    @JCStressTest
    @Outcome(id = "0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first (found nothing), then the write: it stays.")
    @Outcome(id = "1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "Write first, then the deactivation: cell inactive, and it reads 0 when activated again.")
    @Outcome(id = "1, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The write set the bit, the deactivation cleared it and zeroed the cell, then the write's"
                    + " store landed: a write racing the deactivation of its own cell (the caller's race, see"
                    + " NodeTree). A bitmasked cell is inline, with no collection between its lives, so the"
                    + " stray value is there when the cell is activated again; no other cell is touched.")
    @State
    public static class SetClearSameCell {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void set(IIIII_Result r) {
            write(runtime, 0, 1);
        }

        @Actor
        public void clear(IIIII_Result r) {
            r.r1 = deactivate(runtime, 0);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                r.r2 = runtime.isActive(MASKED, 0) ? 1 : 0;
                r.r3 = runtime.getInt("v", 0);
                runtime.activate(MASKED, 0);
                r.r4 = runtime.getInt("v", 0);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /**
     * A write to cell 0 racing {@code deactivateAll} of the node while cell 1 (same word) is
     * active: the call clears the word with one exchange and zeroes the cells of the bits it
     * returned (since 12-07; before, one AND per cell). Results: r1 cell 0 active, r2 v(0), r3
     * cell 1 active, r4 v(1), r5 v(0) after activating cell 0 again (a cell that was inactive
     * must come back zeroed), r6 the reset (0; what {@code deactivateAll} threw, if it did).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0, 0, 1, 0", expect = ACCEPTABLE,
            desc = "deactivateAll first, then the write: cell 0 stays with its value; cell 1 gone, zeroed.")
    @Outcome(id = "0, 0, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The write first, then deactivateAll: both cells gone, and cell 0 reads 0 when activated again.")
    @Outcome(id = "0, 0, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The write set bit 0, the exchange cleared it and the cell was zeroed, then the write's store"
                    + " landed: a write racing the deactivation of its own cell (the caller's race, as in"
                    + " SetClearSameCell); cell 1 is zeroed all the same.")
    @State
    public static class SetClearAll {
        final SparseRuntime runtime = POOL.take();
        int failed;

        public SetClearAll() {
            runtime.setInt("v", 5, 1);
        }

        @Actor
        public void set(IIIIII_Result r) {
            write(runtime, 0, 1);
        }

        @Actor
        public void clearAll(IIIIII_Result r) {
            try {
                runtime.deactivateAll(MASKED);
            } catch (RuntimeException | Error e) {
                failed = Unexpected.report("deactivateAll", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            if (readTwoCells(runtime, r)) {
                try {
                    runtime.activate(MASKED, 0);
                    r.r5 = runtime.getInt("v", 0);
                } catch (RuntimeException | Error e) {
                    r.r1 = Unexpected.report("check", e);
                }
            }
            int reset = POOL.reset(runtime);
            r.r6 = failed != 0 ? failed : reset;
        }
    }

    /**
     * r1 cell 0 active, r2 v(0), r3 cell 1 active, r4 v(1); false (r1 the report) when a read
     * threw.
     */
    static boolean readTwoCells(SparseRuntime runtime, IIIIII_Result r) {
        try {
            r.r1 = runtime.isActive(MASKED, 0) ? 1 : 0;
            r.r2 = runtime.getInt("v", 0);
            r.r3 = runtime.isActive(MASKED, 1) ? 1 : 0;
            r.r4 = runtime.getInt("v", 1);
            return true;
        } catch (RuntimeException | Error e) {
            r.r1 = Unexpected.report("check", e);
            return false;
        }
    }

    /** Writes; an exception is reported and shows as a wrong value. */
    static void write(SparseRuntime runtime, int i, int value) {
        try {
            runtime.setInt("v", value, i);
        } catch (RuntimeException | Error e) {
            Unexpected.report("write", e);
        }
    }

    static int deactivate(SparseRuntime runtime, int i) {
        try {
            return runtime.deactivate(MASKED, i) ? 1 : 0;
        } catch (RuntimeException | Error e) {
            return Unexpected.report("deactivate", e);
        }
    }
}
