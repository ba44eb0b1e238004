package io.snode.codegen.samples;

import io.snode.codegen.interop.CellArrays;

/**
 * The reference data set of {@code WORKLOADS.md}: the voxels of a spherical shell of radius 400
 * (or, for quick runs, 100) and half-width 2 around (1024, 1024, 1024), with their signed
 * distances, in lexicographic (i, j, k) order. A voxel is packed into an int relative to the
 * full band's bounding box, whose corner is {@link #ORIGIN} on every axis: {@code (i - ORIGIN)
 * << 20 | (j - ORIGIN) << 10 | (k - ORIGIN)} (every offset is below 805, so 10 bits each; the
 * quick band lies inside the full band's box).
 */
public final class NarrowBand {
    public static final int CENTRE = 1024;
    public static final int RADIUS = 400;
    /** The radius of the quick band ({@code --quick} runs and tests). */
    public static final int QUICK_RADIUS = 100;
    /** The band's half-width: a voxel is in it iff {@code (R-2)^2 <= d2 < (R+2)^2}. */
    public static final int HALF_WIDTH = 2;
    public static final int INNER = RADIUS - HALF_WIDTH;
    public static final int OUTER = RADIUS + HALF_WIDTH;
    /** The low corner of the band's bounding box on every axis. */
    public static final int ORIGIN = CENTRE - OUTER;

    private final int radius;
    private final int[] voxels;
    private final float[] values;

    private NarrowBand(int radius, int[] voxels, float[] values) {
        this.radius = radius;
        this.voxels = voxels;
        this.values = values;
    }

    /** The sorted list of the reference band (radius 400): every band voxel in (i, j, k) order. */
    public static NarrowBand sorted() {
        return sorted(RADIUS);
    }

    /**
     * The sorted list of the band of {@code radius} (400 for the reference, 100 for the quick
     * band), with the same centre and half-width.
     */
    public static NarrowBand sorted(int radius) {
        if (radius <= HALF_WIDTH || radius > RADIUS) {
            throw new IllegalArgumentException("radius=" + radius + " (allowed: " + (HALF_WIDTH + 1) + " to " + RADIUS + ")");
        }
        int inner = radius - HALF_WIDTH;
        int outer = radius + HALF_WIDTH;
        int inner2 = inner * inner;
        int outer2 = outer * outer;
        int count = 0;
        for (int pass = 0; pass < 2; pass++) {
            int[] voxels = pass == 0 ? null : new int[count];
            float[] values = pass == 0 ? null : new float[count];
            int n = 0;
            for (int di = -outer + 1; di < outer; di++) {
                for (int dj = -outer + 1; dj < outer; dj++) {
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
                            values[n] = (float) (Math.sqrt(d2) - radius);
                        }
                        n++;
                    }
                }
            }
            if (pass == 0) {
                count = n;
            } else {
                return new NarrowBand(radius, voxels, values);
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
        return new NarrowBand(radius, v, f);
    }

    /** The band's radius: 400 for the reference band, 100 for the quick one. */
    public int radius() {
        return radius;
    }

    /** The lowest coordinate of the band's bounding box on every axis ({@code 1024 - (R + 2)}). */
    public int boxLow() {
        return CENTRE - radius - HALF_WIDTH;
    }

    /** The bounding box's edge: {@code 2 (R + 2) + 1} voxels (805 for the reference band). */
    public int boxSize() {
        return 2 * (radius + HALF_WIDTH) + 1;
    }

    /**
     * The value a structure holding this band returns at (i, j, k): the signed distance inside
     * the band, the ambient 0.0f outside it.
     */
    public float valueAt(int i, int j, int k) {
        long di = i - CENTRE;
        long dj = j - CENTRE;
        long dk = k - CENTRE;
        long d2 = di * di + dj * dj + dk * dk;
        long inner = radius - HALF_WIDTH;
        long outer = radius + HALF_WIDTH;
        return d2 >= inner * inner && d2 < outer * outer ? (float) (Math.sqrt(d2) - radius) : 0.0f;
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

    /**
     * The list as parallel arrays (coordinates i, j, k and values, in list order), as
     * {@code Bulk.writeCells} takes them.
     */
    public CellArrays cells() {
        int[][] coordinates = new int[3][voxels.length];
        for (int n = 0; n < voxels.length; n++) {
            coordinates[0][n] = i(n);
            coordinates[1][n] = j(n);
            coordinates[2][n] = k(n);
        }
        return CellArrays.ofFloats(coordinates, values.clone());
    }

    /** The checksum of WORKLOADS.md: the sum of all values in double, in list order. */
    public double valueSum() {
        double sum = 0;
        for (float value : values) {
            sum += value;
        }
        return sum;
    }

    /**
     * A finite double with 12 decimals, rounded from its exact binary value as C's printf does,
     * except that a negative value that rounds to zero prints without its sign
     * ({@code 0.000000000000}, where printf writes {@code -0.000000000000}).
     *
     * @throws NumberFormatException for NaN and the infinities
     */
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
