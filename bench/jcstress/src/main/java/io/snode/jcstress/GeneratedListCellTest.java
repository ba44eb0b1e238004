package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * A generated append to the list of an inactive bitmasked cell C ({@code
 * GeneratedCalls.activateListCell}: the list's first chunk published under its lock, then C's
 * bit set), racing the deactivation of C, the deactivation of the upper pointer cell U that
 * holds C's container (whose release retires the lists of its inactive cells too), or another
 * such append; and a bulk append, which takes the same way, against the deactivation of C. With
 * U inactive too ({@code NewBlock...}: {@code GeneratedCalls.activateListCellBlock} publishes
 * U's new block with C's bit set and the list's first chunk in it), two appends to C's list, two
 * to the lists of two cells of U, and an append against the deactivation of U.
 * Layout {@code pointer(i,2).bitmasked(i,2).dynamic(j,64,4).place(i32 v)}; U (i=0) is active
 * and C (i=0) inactive, its list never used, before the race. Allowed: one of the two orders;
 * not allowed: a chunk in use under an inactive C or a released U, an element the list does
 * not count, two appends with one index.
 *
 * <p>Results: r1 the append's index (-9 threw), r2 the deactivation's result (1: something was
 * active) or the second append's index, r3 the list's length afterwards, r4 the list's chunks in
 * use, r5 C active afterwards (U in {@link UpperCell}), r6 cells still in use after deactivating
 * everything and collecting (0).
 */
public final class GeneratedListCellTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,2).bitmasked(i,2).dynamic(j,64,4).place(i32 v)");
    static final SNode UPPER = LAYOUT.snode(1);
    static final SNode CELL = LAYOUT.snode(2);
    static final SNode LIST = LAYOUT.snode(3);
    private static final CompiledPool POOL = new CompiledPool(LAYOUT);

    private GeneratedListCellTest() {
    }

    /** The generated append to the list of C's cell i, bound to an interface. */
    public interface V {
        long appendV(int i, int value);
    }

    /** A runtime with U active and nothing else, and its bound interface. */
    public abstract static class Race {
        final SNodeRuntime runtime;
        final V v;

        Race() {
            this(true);
        }

        Race(boolean upperActive) {
            runtime = POOL.take();
            v = runtime.bind(V.class);
            if (upperActive) {
                runtime.generic().activate(UPPER, 0);
            }
        }

        int append(int value) {
            try {
                return (int) v.appendV(0, value);
            } catch (RuntimeException | Error e) {
                return Unexpected.report("append", e);
            }
        }

        int deactivate(SNode snode) {
            try {
                return runtime.generic().deactivate(snode, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                return Unexpected.report("deactivate", e);
            }
        }

        void observe(IIIIII_Result r, SNode active) {
            try {
                r.r3 = (int) runtime.generic().length(LIST, 0);
                r.r4 = RuntimePool.cellsInUse(runtime.generic(), LIST);
                r.r5 = runtime.generic().isActive(active, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }

    /** The append against the deactivation of C itself. */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: C and its list are gone with the element.")
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (C inactive: nothing to do), or between the chunk and the bit: the element stays.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation between the bit and the index: the append found the list retired and reopened it"
                    + " through the runtime; the element stays.")
    @State
    public static class SameCell extends Race {
        @Actor
        public void append(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            r.r2 = deactivate(CELL);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, CELL);
        }
    }

    /** The append against the deactivation of U, the cell above C's container. */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: U and everything below it are gone with the element.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, or during the append (which then found its list retired): a new U, C"
                    + " and list hold the element.")
    @State
    public static class UpperCell extends Race {
        @Actor
        public void append(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            r.r2 = deactivate(UPPER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, UPPER);
        }
    }

    /**
     * A one-element bulk append ({@code Bulk.append}: {@code NodeTree.locateOrActivateListBlock},
     * then a run of indices) against the deactivation of C: the same outcomes as {@link SameCell}
     * (r1 0: the call returned normally).
     */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: C and its list are gone with the element.")
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (C inactive: nothing to do), or between the chunk and the bit: the element stays.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation between the bit and the index: the append found the list retired and reopened it"
                    + " through the runtime; the element stays.")
    @State
    public static class SameCellBulk extends Race {
        @Actor
        public void append(IIIIII_Result r) {
            try {
                r.r1 = (int) Bulk.append(runtime, "v", new int[] {0}, new int[] {7}) - 1;
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("bulk append", e);
            }
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            r.r2 = deactivate(CELL);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, CELL);
        }
    }

    /**
     * Two appends to the list of C with U inactive ({@code GeneratedCalls.activateListCellBlock}:
     * U's new block, with C's bit set and the list's first chunk, published with one
     * compare-and-exchange): one block, one chunk, indices 0 and 1.
     */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 1, 1, 0", expect = ACCEPTABLE, desc = "The first actor took index 0.")
    @Outcome(id = "1, 0, 2, 1, 1, 0", expect = ACCEPTABLE, desc = "The second actor took index 0.")
    @State
    public static class NewBlockTwoAppends extends Race {
        public NewBlockTwoAppends() {
            super(false);
        }

        @Actor
        public void first(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void second(IIIIII_Result r) {
            r.r2 = append(8);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, CELL);
        }
    }

    /**
     * Appends to the lists of C (i=0) and of C' (i=1), both in U, with U inactive: one publishes
     * U's block with its own cell active; the other loses the exchange and activates its cell in
     * the winner's block ({@code activateListCell}), or finds the block there already. r3 is C's
     * length plus ten times C''s, r5 whether C' is active; both lists hold one element in one chunk each.
     */
    @JCStressTest
    @Outcome(id = "0, 0, 11, 2, 1, 0", expect = ACCEPTABLE, desc = "Both lists hold their element, one block.")
    @State
    public static class NewBlockTwoCells extends Race {
        public NewBlockTwoCells() {
            super(false);
        }

        @Actor
        public void first(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void second(IIIIII_Result r) {
            try {
                r.r2 = (int) v.appendV(1, 8);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("append", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            try {
                r.r3 = (int) (runtime.generic().length(LIST, 0) + 10 * runtime.generic().length(LIST, 1));
                r.r4 = RuntimePool.cellsInUse(runtime.generic(), LIST);
                r.r5 = runtime.generic().isActive(CELL, 1) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }

    /**
     * The append to the list of C with U inactive against the deactivation of U: U's block appears
     * with C active and the list's chunk, or the deactivation comes first (nothing to do) or after.
     */
    @JCStressTest
    @Outcome(id = "0, 0, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (U inactive: nothing to do): the append makes U's block.")
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: U and everything below it are gone with the element.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation between the block's publication and the index: the append found its list"
                    + " retired and made a new U through the runtime; the element stays.")
    @State
    public static class NewBlockAgainstUpperDeactivation extends Race {
        public NewBlockAgainstUpperDeactivation() {
            super(false);
        }

        @Actor
        public void append(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            r.r2 = deactivate(UPPER);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, UPPER);
        }
    }

    /** Two appends to the list of inactive C: one chunk, indices 0 and 1. */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 1, 1, 0", expect = ACCEPTABLE, desc = "The first actor took index 0.")
    @Outcome(id = "1, 0, 2, 1, 1, 0", expect = ACCEPTABLE, desc = "The second actor took index 0.")
    @State
    public static class TwoAppends extends Race {
        @Actor
        public void first(IIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void second(IIIIII_Result r) {
            r.r2 = append(8);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, CELL);
        }
    }
}
