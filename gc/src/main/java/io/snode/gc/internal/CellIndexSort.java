package io.snode.gc.internal;

import java.util.Arrays;

/**
 * Sorts cell indices ascending with a least-significant-digit radix sort (11-bit digits, only as
 * many passes as the largest possible index needs: two up to 4 Mi cells, three beyond), in
 * {@code O(n)} time. Its two arrays grow on demand and are kept for the next sort, so a
 * collector that sorts at every collection does not allocate (and first-touch) fresh heap
 * memory each time. Not thread-safe: one instance per sort in progress.
 */
public final class CellIndexSort {

    private static final int DIGIT_BITS = 11;
    private static final int RADIX = 1 << DIGIT_BITS;
    private static final int MASK = RADIX - 1;

    private int[] values = new int[0];
    private int[] scratch = new int[0];
    private final int[] count = new int[RADIX + 1];

    /** An array of at least {@code n} ints to put the indices in; valid until the next call. */
    public int[] buffer(int n) {
        if (values.length < n) {
            values = new int[n];
            scratch = new int[n];
        }
        return values;
    }

    /** Whether {@code cells[0, n)} is ascending already (then there is nothing to sort). */
    public static boolean isAscending(int[] cells, int n) {
        for (int i = 1; i < n; i++) {
            if (cells[i] < cells[i - 1]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sorts {@code buffer(n)[0, n)} in place.
     *
     * @param bound every value is in {@code [0, bound)}; a value outside leaves the result a
     *              permutation of the input, in an unspecified order
     */
    public void sort(int n, long bound) {
        if (n < 2) {
            return;
        }
        int[] cells = buffer(n);
        long max = Math.max(1, Math.min(Integer.MAX_VALUE, bound - 1));
        int bits = 64 - Long.numberOfLeadingZeros(max);
        int[] src = cells;
        int[] dst = scratch;
        int passes = 0;
        for (int shift = 0; shift < bits; shift += DIGIT_BITS) {
            Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[((src[i] >>> shift) & MASK) + 1]++;
            }
            for (int d = 0; d < RADIX; d++) {
                count[d + 1] += count[d];
            }
            for (int i = 0; i < n; i++) {
                int v = src[i];
                dst[count[(v >>> shift) & MASK]++] = v;
            }
            int[] t = src;
            src = dst;
            dst = t;
            passes++;
        }
        if ((passes & 1) == 1) {
            System.arraycopy(src, 0, cells, 0, n);
        }
    }

    /** Sorts {@code cells} in place (a convenience for tests). */
    public static void sort(int[] cells, long bound) {
        CellIndexSort s = new CellIndexSort();
        int[] buffer = s.buffer(cells.length);
        System.arraycopy(cells, 0, buffer, 0, cells.length);
        s.sort(cells.length, bound);
        System.arraycopy(buffer, 0, cells, 0, cells.length);
    }
}
