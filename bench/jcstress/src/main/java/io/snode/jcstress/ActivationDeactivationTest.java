package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * A write that activates a cell racing the deactivation of that cell, of the cell above it, or
 * of every cell of its node ({@code deactivateAll}).
 * Layout {@code pointer(i,2).pointer(i,2).place(i32 v)}; the upper cell U (i=0) is active
 * before the race. The documentation leaves the write's fate to the order (a write that lands
 * while its cell is being deactivated may be lost), but every outcome must be one of the two
 * orders, with nothing leaked: no lower cell may stay in use under an inactive upper cell.
 *
 * <p>Results: r1 the writer (0 returned normally, -9 threw), r2 the deactivation's result (1
 * something was active), r3 v(0) afterwards, r4 upper cells in use, r5 lower cells in use, r6
 * cells still in use after deactivating everything and collecting (0).
 */
public final class ActivationDeactivationTest {
    static final RuntimePool POOL = new RuntimePool("pointer(i,2).pointer(i,2).place(i32 v)");
    static final SNode UPPER = POOL.layout().snode(1);
    static final SNode LOWER = POOL.layout().snode(2);

    private ActivationDeactivationTest() {
    }

    /** Writer of v(0) against the deactivation of v(0)'s own (lower) pointer cell. */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first (found nothing), then the write: the write stays.")
    @Outcome(id = "0, 1, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: the lower cell is gone, v reads 0.")
    @State
    public static class SameCell {
        final SparseRuntime runtime = POOL.take();

        public SameCell() {
            runtime.activate(UPPER, 0);
        }

        @Actor
        public void write(IIIIII_Result r) {
            writeOne(runtime, r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            try {
                r.r2 = runtime.deactivate(LOWER, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("deactivate", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(runtime, r);
        }
    }

    /** Writer of v(0) against the deactivation of the upper cell above it. */
    @JCStressTest
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first, then the write: it activated a new upper and lower cell; the write stays.")
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: everything below U is gone, v reads 0.")
    @State
    public static class UpperCell {
        final SparseRuntime runtime = POOL.take();

        public UpperCell() {
            runtime.activate(UPPER, 0);
        }

        @Actor
        public void write(IIIIII_Result r) {
            writeOne(runtime, r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            try {
                r.r2 = runtime.deactivate(UPPER, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("deactivate", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(runtime, r);
        }
    }

    /**
     * Writer of v(0) against {@code deactivateAll} of the lower node, whose one container (in U)
     * is at rest before the race. r2 is 1 when the call changed something (the epoch advanced).
     * A call that finds the container at rest changes nothing (since 12-07), so r2 = 0 exactly
     * when the write stays: a call that found the write's cell released it, and one that found
     * nothing left it.
     */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "deactivateAll first (found nothing, changed nothing), then the write: the write stays.")
    @Outcome(id = "0, 1, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then deactivateAll: the lower cell is gone, v reads 0.")
    @State
    public static class AllLowerCells {
        final SparseRuntime runtime = POOL.take();

        public AllLowerCells() {
            runtime.activate(UPPER, 0);
        }

        @Actor
        public void write(IIIIII_Result r) {
            writeOne(runtime, r);
        }

        @Actor
        public void deactivateAll(IIIIII_Result r) {
            try {
                long epoch = runtime.internalTree().epoch();
                runtime.deactivateAll(LOWER);
                r.r2 = runtime.internalTree().epoch() != epoch ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("deactivateAll", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(runtime, r);
        }
    }

    /** Writes 1 to v(0); r1 the report when that throws. */
    static void writeOne(SparseRuntime runtime, IIIIII_Result r) {
        try {
            runtime.setInt("v", 1, 0);
        } catch (RuntimeException | Error e) {
            r.r1 = Unexpected.report("write", e);
        }
    }

    static void observe(SparseRuntime runtime, IIIIII_Result r) {
        try {
            r.r3 = runtime.getInt("v", 0);
            r.r4 = RuntimePool.cellsInUse(runtime, UPPER);
            r.r5 = RuntimePool.cellsInUse(runtime, LOWER);
        } catch (RuntimeException | Error e) {
            r.r3 = Unexpected.report("check", e);
        }
        r.r6 = POOL.reset(runtime);
    }
}
