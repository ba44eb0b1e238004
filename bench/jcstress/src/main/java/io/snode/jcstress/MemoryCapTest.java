package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * An activation refused by the memory cap racing a writer below the same upper cell (the
 * issue's loss 2: the refused thread published the upper cell, failed below it, and took it
 * back while the writer had already written into it).
 *
 * <p>Layout {@code pointer(i,2){place(i32 a); pointer(i,2).place(i32 b)}}: field a lives in
 * the upper cell U (i=0), field b one pointer level below it. The cap is what a runtime holds
 * once U is active (measured once per VM): U's memory fits, the lower level's first chunk does
 * not. Thread A writes b(0) and must be refused; thread B writes a(0), which needs only U.
 *
 * <p>Results: r1 thread A and r2 thread B (0 returned normally, 1
 * {@link MemoryCapExceededException}, -9 anything else), r3 a(0), r4 b(0), r5 cells still in
 * use after deactivating everything and collecting (0).
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 0, 0", expect = ACCEPTABLE,
        desc = "A refused, B's write kept (whichever of them activated U).")
@Outcome(id = "1, 1, 0, 0, 0", expect = ACCEPTABLE,
        desc = "Both refused: B asked for U while A's reservation held the upper SNode's only chunk; nothing changed.")
@State
public class MemoryCapTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,2){place(i32 a); pointer(i,2).place(i32 b)}");
    static final long CAP = capForOneUpperCell();
    static final RuntimePool POOL = new RuntimePool(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(CAP));
    static final int REFUSED = 1;

    final SparseRuntime runtime = POOL.take();

    /** Bytes a runtime holds with U active; checks that the lower level then does not fit. */
    private static long capForOneUpperCell() {
        long cap;
        try (SparseRuntime probe = SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT)) {
            probe.setInt("a", 1, 0);
            cap = probe.memoryStats().bytesReserved();
        }
        try (SparseRuntime probe = SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
            probe.setInt("a", 1, 0);
            try {
                probe.setInt("b", 1, 0);
            } catch (MemoryCapExceededException expected) {
                return cap;
            }
        }
        throw new AssertionError("cap=" + cap + " holds the upper cell and the lower level too; the test needs"
                + " a cap that refuses the lower level");
    }

    @Actor
    public void writeBelow(IIIII_Result r) {
        r.r1 = write(runtime, "b");
    }

    @Actor
    public void writeUpper(IIIII_Result r) {
        r.r2 = write(runtime, "a");
    }

    @Arbiter
    public void check(IIIII_Result r) {
        try {
            r.r3 = runtime.getInt("a", 0);
            r.r4 = runtime.getInt("b", 0);
        } catch (RuntimeException | Error e) {
            r.r3 = Unexpected.report("check", e);
        }
        r.r5 = POOL.reset(runtime);
    }

    static int write(SparseRuntime runtime, String field) {
        try {
            runtime.setInt(field, 1, 0);
            return 0;
        } catch (MemoryCapExceededException refused) {
            return REFUSED;
        } catch (RuntimeException | Error e) {
            return Unexpected.report("write " + field, e);
        }
    }
}
