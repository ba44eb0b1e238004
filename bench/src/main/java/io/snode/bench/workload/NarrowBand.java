package io.snode.bench.workload;

/**
 * The reference data set of {@code WORKLOADS.md}: the voxels of a spherical shell of radius 400
 * and half-width 2 around (1024, 1024, 1024), with their signed distances, in lexicographic
 * (i, j, k) order. A voxel is packed into an int relative to the band's bounding box, whose
 * corner is {@link #ORIGIN} on every axis: {@code (i - ORIGIN) << 20 | (j - ORIGIN) << 10 |
 * (k - ORIGIN)} (every offset is below 805, so 10 bits each).
 */
public final class NarrowBand {
    public static final int CENTRE = 1024;
    public static final int RADIUS = 400;
    public static final int INNER = 398;
    public static final int OUTER = 402;
    /** The low corner of the band's bounding box on every axis. */
    public static final int ORIGIN = CENTRE - OUTER;

    private final int[] voxels;
    private final float[] values;

    private NarrowBand(int[] voxels, float[] values) {
        this.voxels = voxels;
        this.values = values;
    }

    /** The sorted list: every band voxel in (i, j, k) order. */
    public static NarrowBand sorted() {
        int inner2 = INNER * INNER;
        int outer2 = OUTER * OUTER;
        int count = 0;
        for (int pass = 0; pass < 2; pass++) {
            int[] voxels = pass == 0 ? null : new int[count];
            float[] values = pass == 0 ? null : new float[count];
            int n = 0;
            for (int di = -OUTER + 1; di < OUTER; di++) {
                for (int dj = -OUTER + 1; dj < OUTER; dj++) {
                    int r2 = di * di + dj * dj;
                    if (r2 >= outer2) {
                        continue;
                    }
                    int outerK = isqrt(outer2 - 1 - r2);         // largest |dk| inside the outer bound
                    int innerK = r2 >= inner2 ? 0 : isqrtCeil(inner2 - r2); // smallest |dk| outside the inner one
                    for (int dk = -outerK; dk <= outerK; dk++) {
                        if (dk > -innerK && dk < innerK) {
                            dk = innerK - 1;
                            continue;
                        }
                        if (pass == 1) {
                            int d2 = r2 + dk * dk;
                            voxels[n] = pack(CENTRE + di, CENTRE + dj, CENTRE + dk);
                            values[n] = (float) (Math.sqrt(d2) - RADIUS);
                        }
                        n++;
                    }
                }
            }
            if (pass == 0) {
                count = n;
            } else {
                return new NarrowBand(voxels, values);
            }
        }
        throw new AssertionError();
    }

    /** The shuffled list: Fisher-Yates with splitmix64 seeded with 42, as WORKLOADS.md says. */
    public NarrowBand shuffled() {
        int[] v = voxels.clone();
        float[] f = values.clone();
        SplitMix64 random = new SplitMix64(42);
        for (int index = v.length - 1; index >= 1; index--) {
            int other = (int) Long.remainderUnsigned(random.next(), index + 1L);
            int tv = v[index];
            v[index] = v[other];
            v[other] = tv;
            float tf = f[index];
            f[index] = f[other];
            f[other] = tf;
        }
        return new NarrowBand(v, f);
    }

    public int size() {
        return voxels.length;
    }

    public int i(int n) {
        return ORIGIN + (voxels[n] >>> 20);
    }

    public int j(int n) {
        return ORIGIN + ((voxels[n] >>> 10) & 0x3FF);
    }

    public int k(int n) {
        return ORIGIN + (voxels[n] & 0x3FF);
    }

    public float value(int n) {
        return values[n];
    }

    /** The checksum of WORKLOADS.md: the sum of all values in double, in list order. */
    public double valueSum() {
        double sum = 0;
        for (float value : values) {
            sum += value;
        }
        return sum;
    }

    /** A double with 12 decimals, rounded from its exact binary value as C's printf does. */
    public static String decimal12(double value) {
        return new java.math.BigDecimal(value).setScale(12, java.math.RoundingMode.HALF_EVEN).toPlainString();
    }

    /** The packed form of a voxel inside the band's bounding box; it orders as (i, j, k). */
    public static int pack(int i, int j, int k) {
        return (i - ORIGIN) << 20 | (j - ORIGIN) << 10 | (k - ORIGIN);
    }

    /** floor(sqrt(x)) for x >= 0, exact. */
    static int isqrt(int x) {
        int r = (int) Math.sqrt(x);
        while ((long) r * r > x) {
            r--;
        }
        while ((long) (r + 1) * (r + 1) <= x) {
            r++;
        }
        return r;
    }

    /** ceil(sqrt(x)) for x >= 0, exact. */
    static int isqrtCeil(int x) {
        int r = isqrt(x);
        return (long) r * r == x ? r : r + 1;
    }
}
