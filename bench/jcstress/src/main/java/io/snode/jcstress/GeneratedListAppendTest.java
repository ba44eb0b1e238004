package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIIII_Result;

/**
 * Generated appends that need memory, publishing it themselves: a new block
 * ({@code GeneratedCalls.activateListBlock}, which publishes the block with its list's first
 * chunk built in, from the upper cell the append's walk stands in) and a new chunk
 * ({@code NodeTree.appendToNewChunk}, under the list's header lock), racing each other or the
 * deactivation of the cell holding the list (the block: its release retires the header lock) or
 * of the upper cell (its release retires the word the new block is compare-and-set into). Layout
 * {@code pointer(i,2).pointer(i,2).dynamic(l,8,4).place(i32 v)}, appending to list 0 through a
 * bound interface; the upper cell U (i=0) is active before every race.
 *
 * <p>Results: r1 the first append's index (-9 threw), r2 the second append's index or the
 * deactivation's result (1: something was active), r3 whether every index the appends returned
 * holds its value afterwards, or, where a deactivation raced, list 0's length afterwards, r4
 * upper cells in use, r5 blocks (lower cells) in use, r6 chunks in use, r7 cells still in use
 * after deactivating everything and collecting (0).
 */
public final class GeneratedListAppendTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,2).pointer(i,2).dynamic(l,8,4).place(i32 v)");
    static final SNode UPPER = LAYOUT.snode(1);
    static final SNode LOWER = LAYOUT.snode(2);
    static final SNode LIST = LAYOUT.snode(3);
    private static final CompiledPool POOL = new CompiledPool(LAYOUT);

    private GeneratedListAppendTest() {
    }

    /** The generated append and read of v, bound to an interface. */
    public interface V {
        long appendV(int i, int value);

        int v(int i, int l);
    }

    /** A runtime with U active (and {@code elements} elements 100, 101, ... in list 0), and its bound interface. */
    public abstract static class Race {
        final SNodeRuntime runtime;
        final V v;

        Race(int elements) {
            runtime = POOL.take();
            v = runtime.bind(V.class);
            runtime.generic().activate(UPPER, 0);
            for (int n = 0; n < elements; n++) {
                v.appendV(0, 100 + n);
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

        /** r3: whether index r1 holds 1 and index r2 holds 2. */
        void observeTwoAppends(IIIIIII_Result r) {
            try {
                r.r3 = r.r1 >= 0 && r.r2 >= 0 && v.v(0, r.r1) == 1 && v.v(0, r.r2) == 2 ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            observeCells(r);
        }

        /** r3: list 0's length. */
        void observeLength(IIIIIII_Result r) {
            try {
                r.r3 = (int) runtime.generic().length(LIST, 0);
                if (r.r3 == 1 && v.v(0, 0) != 7) {
                    r.r3 = -1; // the one element left is not the append's
                }
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            observeCells(r);
        }

        private void observeCells(IIIIIII_Result r) {
            try {
                r.r4 = RuntimePool.cellsInUse(runtime.generic(), UPPER);
                r.r5 = RuntimePool.cellsInUse(runtime.generic(), LOWER);
                r.r6 = RuntimePool.cellsInUse(runtime.generic(), LIST);
            } catch (RuntimeException | Error e) {
                r.r4 = Unexpected.report("check", e);
            }
            r.r7 = POOL.reset(runtime);
        }
    }

    /** Two appends to list 0, whose block is new: one block is published, with one chunk; both elements stay. */
    @JCStressTest
    @Outcome(id = "0, 1, 1, 1, 1, 1, 0", expect = ACCEPTABLE, desc = "The append of 1 took index 0.")
    @Outcome(id = "1, 0, 1, 1, 1, 1, 0", expect = ACCEPTABLE, desc = "The append of 2 took index 0.")
    @State
    public static class TwoAppendsOneNewBlock extends Race {
        public TwoAppendsOneNewBlock() {
            super(0);
        }

        @Actor
        public void first(IIIIIII_Result r) {
            r.r1 = append(1);
        }

        @Actor
        public void second(IIIIIII_Result r) {
            r.r2 = append(2);
        }

        @Arbiter
        public void check(IIIIIII_Result r) {
            observeTwoAppends(r);
        }
    }

    /** Two appends to list 0, whose chunk 0 is full: one chunk 1 is published; both elements stay. */
    @JCStressTest
    @Outcome(id = "4, 5, 1, 1, 1, 2, 0", expect = ACCEPTABLE, desc = "The append of 1 took index 4.")
    @Outcome(id = "5, 4, 1, 1, 1, 2, 0", expect = ACCEPTABLE, desc = "The append of 2 took index 4.")
    @State
    public static class TwoAppendsOneNewChunk extends Race {
        public TwoAppendsOneNewChunk() {
            super(4);
        }

        @Actor
        public void first(IIIIIII_Result r) {
            r.r1 = append(1);
        }

        @Actor
        public void second(IIIIIII_Result r) {
            r.r2 = append(2);
        }

        @Arbiter
        public void check(IIIIIII_Result r) {
            observeTwoAppends(r);
        }
    }

    /**
     * An append of 7 to list 0, whose chunk 0 is full (it needs chunk 1), against the
     * deactivation of list 0's block: the append is either in the old list (and gone with it) or
     * element 0 of a new block, made after the deactivation (a retired header lock sends it to
     * the root). Nothing leaks.
     */
    @JCStressTest
    @Outcome(id = "4, 1, 0, 1, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append (or its chunk) first, then the deactivation: the list is gone with the element.")
    @Outcome(id = "0, 1, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the append: a new block holding the element.")
    @State
    public static class NewChunkAgainstItsBlocksDeactivation extends Race {
        public NewChunkAgainstItsBlocksDeactivation() {
            super(4);
        }

        @Actor
        public void append(IIIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void deactivate(IIIIIII_Result r) {
            r.r2 = deactivate(LOWER);
        }

        @Arbiter
        public void check(IIIIIII_Result r) {
            observeLength(r);
        }
    }

    /**
     * An append of 7 to list 0, whose block is new, against the deactivation of U: the block the
     * append publishes from U is either gone with U, or, where U's release retired the word
     * first, the append goes to the root and makes a new U and block. Nothing leaks.
     */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: everything below U is gone.")
    @Outcome(id = "0, 1, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the append: a new upper cell and block holding the element.")
    @State
    public static class NewBlockAgainstTheUpperCellsDeactivation extends Race {
        public NewBlockAgainstTheUpperCellsDeactivation() {
            super(0);
        }

        @Actor
        public void append(IIIIIII_Result r) {
            r.r1 = append(7);
        }

        @Actor
        public void deactivate(IIIIIII_Result r) {
            r.r2 = deactivate(UPPER);
        }

        @Arbiter
        public void check(IIIIIII_Result r) {
            observeLength(r);
        }
    }
}
