package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import java.lang.invoke.MethodHandle;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * {@link ActivationDeactivationTest}'s races through generated code: a bound interface's write of
 * v(0) activates the lower cell from the upper cell its walk stands in
 * ({@code activate<id>$set_i32$from}, {@code NodeTree.activateFrom}), racing the deactivation of
 * that lower cell or of the upper cell (whose release retires the word the activation from it
 * compare-and-sets, which must send it back to the root). Layout
 * {@code pointer(i,2).pointer(i,2).place(i32 v)}; the upper cell U (i=0) is active before the
 * race. The same outcomes as the generic path's: one of the two orders, nothing leaked. The
 * {@code GeneratedDeactivation} variants deactivate through the generated {@code deactivate_}
 * (its own walk, then {@code NodeTree.deactivateCell}) instead of the generic path.
 *
 * <p>Results: r1 the writer (0 returned normally, -9 threw), r2 the deactivation's result (1
 * something was active; in {@link TwoWritersOneNewCell}, the second writer's, as r1), r3 v(0)
 * afterwards, r4 upper cells in use, r5 lower cells in use, r6 cells still in use after
 * deactivating everything and collecting (0).
 */
public final class GeneratedActivationTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,2).pointer(i,2).place(i32 v)");
    static final SNode UPPER = LAYOUT.snode(1);
    static final SNode LOWER = LAYOUT.snode(2);
    private static final CompiledPool POOL = new CompiledPool(LAYOUT);

    private GeneratedActivationTest() {
    }

    /** The generated accessors of v, bound to an interface. */
    public interface V {
        int v(int i);

        void v(int i, int value);
    }

    /** A runtime with U active and nothing else, and its bound interface. */
    public abstract static class Race {
        final SNodeRuntime runtime;
        final V v;
        /** The generated deactivate_ of U and of the lower node, taken before the race. */
        final MethodHandle deactivateUpper;
        final MethodHandle deactivateLower;

        Race() {
            runtime = POOL.take();
            v = runtime.bind(V.class);
            deactivateUpper = runtime.nodeHandle("deactivate", UPPER);
            deactivateLower = runtime.nodeHandle("deactivate", LOWER);
            runtime.generic().activate(UPPER, 0);
        }

        void write(IIIIII_Result r) {
            try {
                v.v(0, 1);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("write", e);
            }
        }

        /** A second write of v(0), with 2; r2 as r1. */
        void writeTwo(IIIIII_Result r) {
            try {
                v.v(0, 2);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("write", e);
            }
        }

        void deactivate(IIIIII_Result r, SNode snode) {
            try {
                r.r2 = runtime.generic().deactivate(snode, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("deactivate", e);
            }
        }

        /** The deactivation through the generated {@code deactivate_} of {@code snode}, which walks there itself. */
        void deactivateGenerated(IIIIII_Result r, SNode snode) {
            try {
                MethodHandle deactivate = snode == UPPER ? deactivateUpper : deactivateLower;
                r.r2 = (boolean) deactivate.invokeExact(0) ? 1 : 0;
            } catch (Throwable e) {
                r.r2 = Unexpected.report("deactivate_", e);
            }
        }

        void observe(IIIIII_Result r) {
            try {
                r.r3 = v.v(0);
                r.r4 = RuntimePool.cellsInUse(runtime.generic(), UPPER);
                r.r5 = RuntimePool.cellsInUse(runtime.generic(), LOWER);
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }

    /** Generated write of v(0) against the deactivation of v(0)'s own (lower) pointer cell. */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first (found nothing), then the write: the write stays.")
    @Outcome(id = "0, 1, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: the lower cell is gone, v reads 0.")
    @State
    public static class SameCell extends Race {
        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            deactivate(r, LOWER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r);
        }
    }

    /** Generated write of v(0), resumed from U, against the deactivation of U. */
    @JCStressTest
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first, then the write: it activated a new upper and lower cell; the write stays.")
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: everything below U is gone, v reads 0.")
    @State
    public static class UpperCell extends Race {
        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            deactivate(r, UPPER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r);
        }
    }

    /**
     * Two generated writes of v(0), both resumed from U, race to publish v(0)'s new lower cell
     * ({@code GeneratedCalls.activatePointer}'s compare-and-exchange): exactly one cell is
     * published, the loser hands its cell back and writes into the winner's, and the value is the
     * last write's. r2 is the second writer's (0 returned normally).
     */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE, desc = "The write of 1 stored last; one lower cell.")
    @Outcome(id = "0, 0, 2, 1, 1, 0", expect = ACCEPTABLE, desc = "The write of 2 stored last; one lower cell.")
    @State
    public static class TwoWritersOneNewCell extends Race {
        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void second(IIIIII_Result r) {
            writeTwo(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r);
        }
    }

    /** {@link SameCell} with the generated deactivation ({@code deactivate_s2_pointer}: its own walk, then {@code NodeTree.deactivateCell}). */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first (found nothing), then the write: the write stays.")
    @Outcome(id = "0, 1, 0, 1, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: the lower cell is gone, v reads 0.")
    @State
    public static class SameCellGeneratedDeactivation extends Race {
        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            deactivateGenerated(r, LOWER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r);
        }
    }

    /** {@link UpperCell} with the generated deactivation of U ({@code deactivate_s1_pointer}). */
    @JCStressTest
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "Deactivation first, then the write: it activated a new upper and lower cell; the write stays.")
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "Write (or its activation) first, then the deactivation: everything below U is gone, v reads 0.")
    @State
    public static class UpperCellGeneratedDeactivation extends Race {
        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            deactivateGenerated(r, UPPER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r);
        }
    }
}
