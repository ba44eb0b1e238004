package io.snode.codegen.internal.structfor;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The claims of a parallel launch ({@link Claims}, what {@code LaunchSplit} and the split walk
 * run): two parts, claimed by the calling thread (which then awaits them and reads what they
 * wrote, as a launch combines its ranges' accumulators) and by a helper that may start before,
 * during or after the caller's claims. Every part runs exactly once, whoever runs it, and the
 * caller sees both parts' plain writes after its await; a helper that starts after the last
 * claim runs nothing.
 *
 * <p>Results: r1, r2 what the caller read of part 0's and part 1's writes after its await (1:
 * the part's value), r3 the parts the helper ran, r4 the parts run in all (arbiter).
 */
@JCStressTest
@Outcome(id = "1, 1, 0, 2", expect = ACCEPTABLE, desc = "The caller claimed both parts (the helper came late).")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "One part each.")
@Outcome(id = "1, 1, 2, 2", expect = ACCEPTABLE, desc = "The helper claimed both parts; the caller waited for them.")
@Outcome(expect = FORBIDDEN, desc = "A part run twice or never, or a write the caller's await did not order before its read.")
@State
public class ClaimsTest {
    final Claims claims = new Claims(2);
    /** Written by whichever thread runs the part, read by the caller after its await. */
    final int[] written = new int[2];
    /** Runs of each part, counted by the thread that runs it (each part by one thread). */
    final int[] runs = new int[2];
    int helperParts;

    @Actor
    public void caller(IIII_Result r) {
        claims.claimAll(p -> {
            written[p] = 1;
            runs[p]++;
        });
        claims.await();
        r.r1 = written[0];
        r.r2 = written[1];
    }

    @Actor
    public void helper() {
        claims.claimAll(p -> {
            written[p] = 1;
            runs[p]++;
            helperParts++;
        });
    }

    @Arbiter
    public void after(IIII_Result r) {
        r.r3 = helperParts;
        r.r4 = runs[0] == 1 && runs[1] == 1 ? 2 : -1;
    }
}
