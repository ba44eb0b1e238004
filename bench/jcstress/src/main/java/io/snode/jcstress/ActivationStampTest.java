package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.NodeTree;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The activation stamp that launches take before a walk ({@link NodeTree#activationStamp}) and
 * compare later to reuse a snapshot. An activation marks itself after its store, and only when
 * the mark is clear; a stamp clears the mark. The promise: a walk that followed a stamp either
 * saw the activation, or a later stamp differs from that one, so no launch reuses a snapshot that
 * misses it. One actor activates a cell; the other takes a stamp, then looks at the cell, as a
 * walk does. The arbiter, after both, takes another stamp.
 *
 * <p>Results: r1 whether the looker saw the cell active, r2 whether the arbiter's stamp differs
 * from the looker's, r3 the reset (0).
 */
public final class ActivationStampTest {
    private ActivationStampTest() {
    }

    /** A mask bit set by the one-walk path ({@code activateInline}) of {@code bitmasked(i,64).place(i32 v)}. */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "Activated before the stamp: the walk saw it, nothing new since.")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "The walk saw it, and its mark came after the stamp.")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "Activated after the look: the next stamp differs.")
    @Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "The walk missed the activation and the stamp did not move.")
    @State
    public static class BitSet {
        static final RuntimePool POOL = new RuntimePool("bitmasked(i,64).place(i32 v)");
        static final SNode MASKED = POOL.layout().snode(1);
        final SparseRuntime runtime = POOL.take();
        final NodeTree tree = runtime.internalTree();
        long stamp;

        public BitSet() {
            tree.activationStamp(); // clears a mark left by the runtime's earlier use
        }

        @Actor
        public void activate() {
            BitmaskTest.write(runtime, 5, 1);
        }

        @Actor
        public void stampThenLook(III_Result r) {
            stamp = tree.activationStamp();
            r.r1 = runtime.isActive(MASKED, 5) ? 1 : 0;
        }

        @Arbiter
        public void check(III_Result r) {
            r.r2 = tree.activationStamp() != stamp ? 1 : 0;
            r.r3 = POOL.reset(runtime);
        }
    }

    /** A pointer word published by the one-pointer path of {@code pointer(i,4).place(i32 v)} (a new cell). */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "Activated before the stamp: the walk saw it, nothing new since.")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "The walk saw it, and its mark came after the stamp.")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "Activated after the look: the next stamp differs.")
    @Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "The walk missed the activation and the stamp did not move.")
    @State
    public static class PointerPublished {
        static final RuntimePool POOL = new RuntimePool("pointer(i,4).place(i32 v)");
        static final SNode POINTER = POOL.layout().snode(1);
        final SparseRuntime runtime = POOL.take();
        final NodeTree tree = runtime.internalTree();
        long stamp;

        public PointerPublished() {
            tree.activationStamp();
        }

        @Actor
        public void activate() {
            try {
                runtime.setInt("v", 1, 2);
            } catch (RuntimeException | Error e) {
                Unexpected.report("write", e);
            }
        }

        @Actor
        public void stampThenLook(III_Result r) {
            stamp = tree.activationStamp();
            r.r1 = runtime.isActive(POINTER, 2) ? 1 : 0;
        }

        @Arbiter
        public void check(III_Result r) {
            r.r2 = tree.activationStamp() != stamp ? 1 : 0;
            r.r3 = POOL.reset(runtime);
        }
    }
}
