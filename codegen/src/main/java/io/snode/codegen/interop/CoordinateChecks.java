package io.snode.codegen.interop;

/**
 * The check of a bulk call's coordinate arrays before its first store: every coordinate of an
 * axis inside {@code [0, extent)}. It reads each array once in a loop without branches (an OR of
 * the sign bits of {@code x} and {@code extent - 1 - x}, which C2 turns into vector code) and
 * looks for the first coordinate outside only when there is one, so that a call of millions of
 * cells spends on the check a fraction of what its stores take.
 */
final class CoordinateChecks {
    private CoordinateChecks() {
    }

    /**
     * The index of the first of {@code axis[0, length)} outside {@code [0, extent)}, or -1 when
     * all lie inside; {@code extent} is at least 1.
     */
    static int firstOutside(int[] axis, int length, int extent) {
        int last = extent - 1;
        int signs = 0;
        for (int n = 0; n < length; n++) {
            int x = axis[n];
            // x < 0 sets the sign bit of x; x > last sets that of last - x (which cannot overflow then).
            signs |= x | (last - x);
        }
        if (signs >= 0) {
            return -1;
        }
        for (int n = 0; n < length; n++) {
            if (axis[n] < 0 || axis[n] > last) {
                return n;
            }
        }
        throw new AssertionError("a sign bit without a coordinate outside [0, " + extent + ")");
    }
}
