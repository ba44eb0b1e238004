package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.snode.gc.internal.TaskRunner;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * How a parallel launch shares its ranges ({@link TaskRunner}, what {@code LaunchSplit}, the split
 * walk and the collector run): two parts, claimed by the calling thread and by a helper on a pool
 * of one thread that may start before, during or after the caller's claims. Every part runs
 * exactly once, whoever runs it, and the caller sees both parts' plain writes when
 * {@code forRange} returns, as a launch combines its ranges' accumulators; a helper that starts
 * after the last claim runs nothing.
 *
 * <p>Results: r1, r2 what the caller read of part 0's and part 1's writes after the call (1: the
 * part's value), r3 the parts the helper ran, r4 the parts run in all (arbiter; 2 when each ran
 * once).
 */
@JCStressTest
@Outcome(id = "1, 1, 0, 2", expect = ACCEPTABLE, desc = "The caller claimed both parts (the helper came late).")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "One part each.")
@Outcome(id = "1, 1, 2, 2", expect = ACCEPTABLE, desc = "The helper claimed both parts; the caller waited for them.")
@Outcome(expect = FORBIDDEN, desc = "A part run twice or never, or a write the call's return did not order before the read.")
@State
public class LaunchClaimsTest {
    static final TaskRunner RUNNER = TaskRunner.forkJoin(new ForkJoinPool(1));

    /** Written by whichever thread runs the part, read by the caller after the call. */
    final int[] written = new int[2];
    /** Runs of each part, counted by the thread that runs it (each part by one thread). */
    final int[] runs = new int[2];
    int helperParts;

    @Actor
    public void caller(IIII_Result r) {
        RUNNER.forRange(2, 1, (from, to) -> {
            for (int p = (int) from; p < to; p++) {
                written[p] = 1;
                runs[p]++;
                if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
                    helperParts++;
                }
            }
        });
        r.r1 = written[0];
        r.r2 = written[1];
    }

    @Arbiter
    public void after(IIII_Result r) {
        r.r3 = helperParts;
        r.r4 = runs[0] == 1 && runs[1] == 1 ? 2 : -1;
    }
}
