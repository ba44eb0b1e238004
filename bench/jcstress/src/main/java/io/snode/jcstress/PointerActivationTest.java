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
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Two threads activate the same pointer cell (the double-checked activation of
 * {@code NodeTree}): exactly one cell is allocated, and both threads write into it.
 * Layout {@code pointer(i,2).pointer(i,2).place(i32 v)}: v(0) and v(1) share the upper cell
 * and have lower cells of their own.
 */
public final class PointerActivationTest {
    static final RuntimePool POOL = new RuntimePool("pointer(i,2).pointer(i,2).place(i32 v)");
    static final SNode UPPER = POOL.layout().snode(1);
    static final SNode LOWER = POOL.layout().snode(2);

    private PointerActivationTest() {
    }

    /** Both threads set a value below the same fresh upper cell. */
    @JCStressTest
    @Outcome(id = "1, 2, 1, 2, 0", expect = ACCEPTABLE,
            desc = "Both writes kept; one upper cell and two lower cells in use; nothing left after reset.")
    @State
    public static class SameCellWrites {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void writeFirst(IIIII_Result r) {
            try {
                runtime.setInt("v", 1, 0);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("writeFirst", e);
            }
        }

        @Actor
        public void writeSecond(IIIII_Result r) {
            try {
                runtime.setInt("v", 2, 1);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("writeSecond", e);
            }
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                if (r.r1 == 0) {
                    r.r1 = runtime.getInt("v", 0);
                }
                if (r.r2 == 0) {
                    r.r2 = runtime.getInt("v", 1);
                }
                r.r3 = RuntimePool.cellsInUse(runtime, UPPER);
                r.r4 = RuntimePool.cellsInUse(runtime, LOWER);
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /** Both threads atomically add 1 to the same element of a fresh path. */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The first add saw 0, the second 1; one upper and one lower cell in use.")
    @Outcome(id = "1, 0, 2, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The second add saw 0, the first 1; one upper and one lower cell in use.")
    @State
    public static class SameElementAdds {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void addFirst(IIIIII_Result r) {
            try {
                r.r1 = runtime.addInt("v", 1, 0);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("addFirst", e);
            }
        }

        @Actor
        public void addSecond(IIIIII_Result r) {
            try {
                r.r2 = runtime.addInt("v", 1, 0);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("addSecond", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
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
}
