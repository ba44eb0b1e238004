package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.SNode;
import io.snode.runtime.DynamicListFullException;
import io.snode.runtime.SparseRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * Two appends racing into a list of capacity 1 (chunks of 1 element): layout
 * {@code pointer(i,4).dynamic(l,1,1).place(i32 v)}, list i=0. Exactly one append gets index 0
 * and its value stays; the other gets {@link DynamicListFullException} and changes nothing (the
 * issue's loss 1: the refused append rolled back the parent cell or the chunk the winner had
 * already used).
 *
 * <p>Results: r1 and r2 the appends (the index, -1 for {@code DynamicListFullException}, -9 for
 * anything else), r3 the list's length, r4 element 0, r5 cells still in use after deactivating
 * everything and collecting (0).
 */
public final class AppendFullListTest {
    static final RuntimePool POOL = new RuntimePool("pointer(i,4).dynamic(l,1,1).place(i32 v)");
    static final SNode POINTER = POOL.layout().snode(1);
    static final SNode LIST = POOL.layout().snode(2);
    static final int FULL = -1;

    private AppendFullListTest() {
    }

    /** The list's parent pointer cell is inactive before the race: both appends activate it. */
    @JCStressTest
    @Outcome(id = "0, -1, 1, 1, 0", expect = ACCEPTABLE, desc = "The first append won; the second found the list full.")
    @Outcome(id = "-1, 0, 1, 2, 0", expect = ACCEPTABLE, desc = "The second append won; the first found the list full.")
    @State
    public static class InactiveParent {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void appendOne(IIIII_Result r) {
            r.r1 = append(runtime, 1);
        }

        @Actor
        public void appendTwo(IIIII_Result r) {
            r.r2 = append(runtime, 2);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            observe(runtime, r);
        }
    }

    /** The parent pointer cell is active before the race: both appends race for the chunk. */
    @JCStressTest
    @Outcome(id = "0, -1, 1, 1, 0", expect = ACCEPTABLE, desc = "The first append won; the second found the list full.")
    @Outcome(id = "-1, 0, 1, 2, 0", expect = ACCEPTABLE, desc = "The second append won; the first found the list full.")
    @State
    public static class ActiveParent {
        final SparseRuntime runtime = POOL.take();

        public ActiveParent() {
            runtime.activate(POINTER, 0);
        }

        @Actor
        public void appendOne(IIIII_Result r) {
            r.r1 = append(runtime, 1);
        }

        @Actor
        public void appendTwo(IIIII_Result r) {
            r.r2 = append(runtime, 2);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            observe(runtime, r);
        }
    }

    static int append(SparseRuntime runtime, int value) {
        try {
            return (int) runtime.appendInt("v", value, 0);
        } catch (DynamicListFullException full) {
            return FULL;
        } catch (RuntimeException | Error e) {
            return Unexpected.report("append", e);
        }
    }

    static void observe(SparseRuntime runtime, IIIII_Result r) {
        try {
            r.r3 = (int) runtime.length(LIST, 0);
            r.r4 = runtime.getInt("v", 0, 0);
        } catch (RuntimeException | Error e) {
            r.r3 = Unexpected.report("check", e);
        }
        r.r5 = POOL.reset(runtime);
    }
}
