package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.ListAppend;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * A bulk append ({@link ListAppend}, what {@code Bulk.append} and {@code Bulk.appendAll} run)
 * against a single append followed by a read, on one list: layout
 * {@code pointer(i,4).dynamic(l,8,4).place(i32 v)}, list 0 holding one element (1) before the
 * race, so its chunk 0 exists and chunk 1 does not. The bulk append of 10..15 takes indices a
 * run at a time (to the end of chunk 0 with one compare-and-set, then, once chunk 1 exists, made
 * by it or by the single append, the rest in one run); the single append (99) lands before,
 * between or after the runs, never inside one.
 *
 * <p>Results: r1 the elements the bulk append appended (6), r2 the single append's index, r3
 * whether the element at the length that actor read next, minus 1, was one of the values or a
 * zero not stored yet (1), r4 whether the list ended as element 1, then 10..15 in order with 99 once among them (1),
 * r5 the reset (0).
 */
@JCStressTest
@Outcome(id = "6, 1, 1, 1, 0", expect = ACCEPTABLE, desc = "The single append came first.")
@Outcome(id = "6, 4, 1, 1, 0", expect = ACCEPTABLE, desc = "Between the runs (chunk 1 made by either append).")
@Outcome(id = "6, 7, 1, 1, 0", expect = ACCEPTABLE, desc = "The single append came last.")
@Outcome(expect = FORBIDDEN, desc = "A run split, an element lost or doubled, or a value that was never stored.")
@State
public class ListAppendTest {
    static final RuntimePool POOL = new RuntimePool("pointer(i,4).dynamic(l,8,4).place(i32 v)");
    static final SNode LIST = POOL.layout().snode(2);

    final SparseRuntime runtime = POOL.take();
    final ListAppend bulk = new ListAppend(runtime.internalTree(), POOL.layout().field("v"));
    final MemorySegment values = MemorySegment.ofArray(new int[] {10, 11, 12, 13, 14, 15});

    public ListAppendTest() {
        runtime.appendInt("v", 1, 0);
    }

    @Actor
    public void appendRun(IIIII_Result r) {
        try {
            r.r1 = (int) bulk.append(new int[] {0}, values, 0, 6);
        } catch (RuntimeException | Error e) {
            r.r1 = Unexpected.report("bulk append", e);
        }
    }

    /** The single append, then a read of the element at the length seen then, minus 1. */
    @Actor
    public void appendOneThenRead(IIIII_Result r) {
        try {
            r.r2 = (int) runtime.appendInt("v", 99, 0);
            int length = (int) runtime.length(LIST, 0);
            int last = runtime.getInt("v", 0, length - 1);
            r.r3 = last == 0 || last == 1 || last == 99 || (last >= 10 && last <= 15) ? 1 : 0;
        } catch (RuntimeException | Error e) {
            r.r2 = Unexpected.report("append", e);
        }
    }

    @Arbiter
    public void check(IIIII_Result r) {
        try {
            boolean whole = runtime.length(LIST, 0) == 8 && runtime.getInt("v", 0, 0) == 1;
            int next = 10;
            int singles = 0;
            for (int n = 1; n < 8 && whole; n++) {
                int value = runtime.getInt("v", 0, n);
                if (value == 99) {
                    singles++;
                } else if (value == next) {
                    next++;
                } else {
                    whole = false;
                }
            }
            r.r4 = whole && singles == 1 && next == 16 ? 1 : 0;
        } catch (RuntimeException | Error e) {
            r.r4 = Unexpected.report("check", e);
        }
        r.r5 = POOL.reset(runtime);
    }
}
