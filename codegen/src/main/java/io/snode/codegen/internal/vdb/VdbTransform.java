package io.snode.codegen.internal.vdb;

import java.io.IOException;

/**
 * A grid's transform ({@code math::Transform::read/write} and the maps of {@code math/Maps.h}):
 * a map type-name string and the map. Written: {@code UniformScaleMap} when the translation is 0
 * (what OpenVDB's {@code createLinearTransform(voxelSize)} writes), else
 * {@code UniformScaleTranslateMap}; each scale map stores five vec3d (scale, voxel size, 1/scale,
 * 1/scale^2, 0.5/scale) after the translation. Read: those two, {@code ScaleMap} and
 * {@code ScaleTranslateMap} with equal positive scales, {@code TranslationMap}, and
 * {@code AffineMap} when its matrix is a uniform positive scale plus a translation.
 *
 * @param voxelSize the scale
 * @param translation world position of voxel (0,0,0)
 */
record VdbTransform(double voxelSize, double[] translation) {
    static final String UNIFORM_SCALE = "UniformScaleMap";
    static final String UNIFORM_SCALE_TRANSLATE = "UniformScaleTranslateMap";

    void write(VdbOutput out) throws IOException {
        boolean translated = translation[0] != 0 || translation[1] != 0 || translation[2] != 0;
        out.putString(translated ? UNIFORM_SCALE_TRANSLATE : UNIFORM_SCALE);
        if (translated) {
            putVec(out, translation[0], translation[1], translation[2]);
        }
        double s = voxelSize;
        double inv = 1.0 / s;
        putVec(out, s, s, s);
        putVec(out, s, s, s);
        putVec(out, inv, inv, inv);
        putVec(out, inv * inv, inv * inv, inv * inv);
        putVec(out, inv / 2, inv / 2, inv / 2);
    }

    private static void putVec(VdbOutput out, double x, double y, double z) throws IOException {
        out.putDouble(x);
        out.putDouble(y);
        out.putDouble(z);
    }

    static VdbTransform read(VdbInput in) throws IOException {
        String type = in.readString("transform map type");
        double[] t = {0, 0, 0};
        double[] scale;
        switch (type) {
            case "UniformScaleMap", "ScaleMap" -> {
                scale = readVec(in);
                in.skip(4 * 24);
            }
            case "UniformScaleTranslateMap", "ScaleTranslateMap" -> {
                t = readVec(in);
                scale = readVec(in);
                in.skip(4 * 24);
            }
            case "TranslationMap" -> {
                t = readVec(in);
                scale = new double[] {1, 1, 1};
            }
            case "AffineMap" -> {
                double[] m = new double[16];
                for (int i = 0; i < 16; i++) {
                    m[i] = in.readDouble();
                }
                boolean linear = m[1] == 0 && m[2] == 0 && m[3] == 0 && m[4] == 0 && m[6] == 0 && m[7] == 0
                        && m[8] == 0 && m[9] == 0 && m[11] == 0 && m[15] == 1;
                if (!linear) {
                    throw in.fail("transform AffineMap with rotation, shear or projection is not supported"
                            + " (supported: uniform scale and translation)");
                }
                scale = new double[] {m[0], m[5], m[10]};
                t = new double[] {m[12], m[13], m[14]};
            }
            default -> throw in.fail("transform map '" + type + "' is not supported (supported: UniformScaleMap,"
                    + " UniformScaleTranslateMap, ScaleMap, ScaleTranslateMap, TranslationMap, AffineMap with"
                    + " uniform scale)");
        }
        if (scale[0] != scale[1] || scale[0] != scale[2] || !(scale[0] > 0) || Double.isInfinite(scale[0])) {
            throw in.fail("transform " + type + " has scale (" + scale[0] + ", " + scale[1] + ", " + scale[2]
                    + "); only a uniform, positive, finite scale is supported");
        }
        return new VdbTransform(scale[0], t);
    }

    private static double[] readVec(VdbInput in) throws IOException {
        return new double[] {in.readDouble(), in.readDouble(), in.readDouble()};
    }
}
