package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import java.util.function.IntSupplier;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * A managed node's container inside a bitmasked cell B (a list's header, a pointer's words):
 * an append or a write below B racing B's deactivation. B is inline and used again in place, so
 * its deactivation leaves those containers retired and zeroes only the rest of the cell; the
 * first activation that meets them once B is active again reopens them. Either order is allowed,
 * and a third outcome of the same race: the call sets B's bit again between the deactivation's
 * clearing of it and its release of what lies below, which then takes the call's element or
 * value with it (B active and empty). Not allowed: a chunk or cell left in use under an inactive
 * B (nothing would ever release it), or an index the list never had. Before the deactivation
 * left the containers retired it zeroed them with the rest of the cell, and both happened (the
 * outcomes 0, 1, 0, 1, 0, 1 and 1, 1, 0, 0, 0, 0 of {@link ListAppend}). B (i=0) is active and
 * empty before each race.
 *
 * <p>Results: r1 the append's index or the write (0 returned normally, -9 threw), r2 the
 * deactivation's result (1: B was active), r3 the list's length or v(0) afterwards, r4 the
 * list's chunks or the lower pointer's cells in use (for the hash node: whether its entry is
 * active), r5 B active afterwards (1), r6 cells and tables still in use after deactivating
 * everything and collecting (0).
 */
public final class BitmaskedChildrenTest {
    private BitmaskedChildrenTest() {
    }

    /**
     * A runtime of {@code pool} whose {@code cell} (i=0) is active and empty, and the two sides
     * of a race on it: a write or an append below it, and the deactivation of {@code deactivated}
     * (i=0: the cell itself, or a cell above it).
     */
    abstract static class Race {
        final RuntimePool pool;
        final SNode cell;
        final SNode deactivated;
        final SparseRuntime runtime;

        Race(RuntimePool pool, SNode cell) {
            this(pool, cell, cell);
        }

        Race(RuntimePool pool, SNode cell, SNode deactivated) {
            this.pool = pool;
            this.cell = cell;
            this.deactivated = deactivated;
            this.runtime = pool.take();
            runtime.activate(cell, 0);
        }

        /** The write of v(0) = 1; r1. */
        void write(IIIIII_Result r) {
            try {
                runtime.setInt("v", 1, 0);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("write", e);
            }
        }

        /** The append of 7 to the list v(0); r1 its index. */
        void append(IIIIII_Result r) {
            try {
                r.r1 = (int) runtime.appendInt("v", 7, 0);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("append", e);
            }
        }

        /** The deactivation of {@code deactivated}; r2. */
        void deactivate(IIIIII_Result r) {
            try {
                r.r2 = runtime.deactivate(deactivated, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("deactivate", e);
            }
        }

        /** r3 {@code value}, r4 {@code below}, r5 {@code deactivated} active, r6 the reset. */
        void observe(IIIIII_Result r, IntSupplier value, IntSupplier below) {
            try {
                r.r3 = value.getAsInt();
                r.r4 = below.getAsInt();
                r.r5 = runtime.isActive(deactivated, 0) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r6 = pool.reset(runtime);
        }
    }

    /** {@code bitmasked(i,2).dynamic(j,64,4).place(i32 v)}: the append must publish the list's first chunk. */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: B and its list are gone with the element.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the append: B active again, its list holding the element.")
    @Outcome(id = "0, 1, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The deactivation cleared B's bit, the append set it again and published its chunk, then the"
                    + " deactivation released what lay below B: the element is lost (an append racing the"
                    + " deactivation of its list's cell, the caller's race, see NodeTree), B stays active with an"
                    + " empty list, and nothing leaks.")
    @State
    public static class ListAppend extends Race {
        static final RuntimePool POOL = new RuntimePool("bitmasked(i,2).dynamic(j,64,4).place(i32 v)");
        static final SNode LIST = POOL.layout().snode(2);

        public ListAppend() {
            super(POOL, POOL.layout().snode(1));
        }

        @Actor
        public void append(IIIIII_Result r) {
            super.append(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            super.deactivate(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, () -> (int) runtime.length(LIST, 0), () -> RuntimePool.cellsInUse(runtime, LIST));
        }
    }

    /** {@code bitmasked(i,2).pointer(i,2).place(i32 v)}: the write of v(0) must publish a cell of the lower pointer in B. */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The write first, then the deactivation: B and the cell below it are gone with the value.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the write: B active again, the cell below it holding the value.")
    @Outcome(id = "0, 1, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The deactivation cleared B's bit, the write set it again and published its cell, then the"
                    + " deactivation released what lay below B: the value is lost (the caller's race, see NodeTree),"
                    + " B stays active and empty, and nothing leaks.")
    @State
    public static class PointerWrite extends Race {
        static final RuntimePool POOL = new RuntimePool("bitmasked(i,2).pointer(i,2).place(i32 v)");
        static final SNode LOWER = POOL.layout().snode(2);

        public PointerWrite() {
            super(POOL, POOL.layout().snode(1));
        }

        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            super.deactivate(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, () -> runtime.getInt("v", 0), () -> RuntimePool.cellsInUse(runtime, LOWER));
        }
    }

    /** {@code bitmasked(i,2).hash(i,4).place(i32 v)}: the write of v(0) must insert an entry into B's hash node. */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The write first, then the deactivation: B and the entry below it are gone with the value.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the write: B active again, the entry below it holding the value.")
    @Outcome(id = "0, 1, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The deactivation cleared B's bit, the write set it again and inserted its entry, then the"
                    + " deactivation released what lay below B: the value is lost (the caller's race, see NodeTree),"
                    + " B stays active and empty, and nothing leaks.")
    @State
    public static class HashWrite extends Race {
        static final RuntimePool POOL = new RuntimePool("bitmasked(i,2).hash(i,4).place(i32 v)");
        static final SNode HASHED = POOL.layout().snode(2);

        public HashWrite() {
            super(POOL, POOL.layout().snode(1));
        }

        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            super.deactivate(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, () -> runtime.getInt("v", 0), () -> runtime.isActive(HASHED, 0) ? 1 : 0);
        }
    }

    /**
     * {@code pointer(i,2).bitmasked(i,2).pointer(i,2).place(i32 v)}: the write of v(0) must set
     * the bit of B (inactive before the race, its lower pointer's words never used) and publish a
     * lower cell in it, racing the deactivation of the upper pointer cell U that holds B. U's
     * release retires the lower words of every B cell, active or not, so a write that walked
     * into U before and sets B's bit after the release passed it finds them retired. r4: lower
     * cells in use, r5: U active afterwards. (Before, the release visited only the active B cells,
     * and the write could leave its lower cell in use in the released U: 0, 1, 0, 1, 0, 1.)
     */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The write first, then the deactivation: U and everything below it are gone with the value.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first, then the write: a new U, B and lower cell holding the value.")
    @State
    public static class ReleasedAbove extends Race {
        static final RuntimePool POOL = new RuntimePool("pointer(i,2).bitmasked(i,2).pointer(i,2).place(i32 v)");
        static final SNode LOWER = POOL.layout().snode(3);

        public ReleasedAbove() {
            super(POOL, POOL.layout().snode(1));
        }

        @Actor
        public void write(IIIIII_Result r) {
            super.write(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            super.deactivate(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, () -> runtime.getInt("v", 0), () -> RuntimePool.cellsInUse(runtime, LOWER));
        }
    }

    /**
     * {@code bitmasked(i,2).bitmasked(i,2).dynamic(j,64,4).place(i32 v)}: the list of the inner
     * cell C (i=0, active, its list empty) of the outer cell B, an append racing B's deactivation.
     * The deactivation releases C with the rest of B's cell (C's bit cleared, its list retired)
     * and then zeroes B's cell but for what the release looks after: the list headers and, since
     * this test, C's mask words. An append that walked in before may meet the retired list, replan,
     * set B's and C's bits again and reopen the list before that zeroing. Before, the zeroing then
     * cleared C's bit under the reopened list: its element and chunk stayed in use under an
     * inactive C (0, 1, 0, 1, 1, 0), and came back when C was activated again. r3 the list's
     * length, r4 its chunks in use, r5 B active afterwards.
     */
    @JCStressTest
    @Outcome(id = "0, 1, 0, 0, 0, 0", expect = ACCEPTABLE,
            desc = "The append first, then the deactivation: B, C and the list are gone with the element.")
    @Outcome(id = "0, 1, 1, 1, 1, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (or the append replanned after it): B and C active again, the list"
                    + " holding the element.")
    @Outcome(id = "0, 1, 0, 0, 1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "The append set B's bit again and published its chunk before the deactivation released C:"
                    + " the element is lost (the caller's race, see NodeTree), B stays active, nothing leaks.")
    @State
    public static class NestedListAppend extends Race {
        static final RuntimePool POOL = new RuntimePool("bitmasked(i,2).bitmasked(i,2).dynamic(j,64,4).place(i32 v)");
        static final SNode OUTER = POOL.layout().snode(1);
        static final SNode LIST = POOL.layout().snode(3);

        public NestedListAppend() {
            super(POOL, POOL.layout().snode(2), OUTER);
        }

        @Actor
        public void append(IIIIII_Result r) {
            super.append(r);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            super.deactivate(r);
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            observe(r, () -> (int) runtime.length(LIST, 0), () -> RuntimePool.cellsInUse(runtime, LIST));
        }
    }
}
