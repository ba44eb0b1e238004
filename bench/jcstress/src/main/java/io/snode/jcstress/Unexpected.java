package io.snode.jcstress;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Exceptions no outcome allows. Actors and arbiters catch them and record a code instead (an
 * exception escaping an actor would end the test run), so that the forbidden outcome is counted;
 * the first few are printed to the forked VM's stderr, which jcstress shows with the test's
 * results.
 */
final class Unexpected {
    /** Result code (-9) of an actor or read that threw something no outcome allows. */
    static final int CODE = -9;
    private static final int PRINTED_PER_VM = 5;
    private static final AtomicInteger printed = new AtomicInteger();

    private Unexpected() {
    }

    static int report(String where, Throwable failure) {
        if (printed.getAndIncrement() < PRINTED_PER_VM) {
            System.err.println("[snode-jcstress] unexpected in " + where + ": " + failure);
            StackTraceElement[] trace = failure.getStackTrace();
            for (int n = 0; n < Math.min(8, trace.length); n++) {
                System.err.println("    at " + trace[n]);
            }
        }
        return CODE;
    }
}
