package io.snode.bench.demo;

/**
 * The demo's typed view of its layout ({@link ParticleInCell#LAYOUT}), bound to the generated
 * accessors by {@code SNodeRuntime.bind} or {@code accessor}. Grid coordinates are cells
 * (0..255 per axis); particle coordinates are the block (0..31 per axis) and the index in that
 * block's list. Fields {@code a*} and {@code b*} are the two particle buffers: each step reads
 * one and appends the moved particles to the other.
 */
public interface PicFields {
    // ---- grid cells: dense(ijk,8)

    float rho(int i, int j, int k);

    void rho(int i, int j, int k, float value);

    float vx(int i, int j, int k);

    void vx(int i, int j, int k, float value);

    float vy(int i, int j, int k);

    void vy(int i, int j, int k, float value);

    float vz(int i, int j, int k);

    void vz(int i, int j, int k, float value);

    long m(int i, int j, int k);

    long mx(int i, int j, int k);

    long my(int i, int j, int k);

    long mz(int i, int j, int k);

    long addM(int i, int j, int k, long delta);

    long addMx(int i, int j, int k, long delta);

    long addMy(int i, int j, int k, long delta);

    long addMz(int i, int j, int k, long delta);

    // ---- cells touched this step: bitmasked(ijk,8)

    void hits(int i, int j, int k, int value);

    // ---- particle buffer a: dynamic(l, ...)

    float ax(int i, int j, int k, int l);

    float ay(int i, int j, int k, int l);

    float az(int i, int j, int k, int l);

    float au(int i, int j, int k, int l);

    float av(int i, int j, int k, int l);

    float aw(int i, int j, int k, int l);

    long appendAx(int i, int j, int k, float value);

    void ay(int i, int j, int k, int l, float value);

    void az(int i, int j, int k, int l, float value);

    void au(int i, int j, int k, int l, float value);

    void av(int i, int j, int k, int l, float value);

    void aw(int i, int j, int k, int l, float value);

    // ---- particle buffer b: dynamic(l, ...)

    float bx(int i, int j, int k, int l);

    float by(int i, int j, int k, int l);

    float bz(int i, int j, int k, int l);

    float bu(int i, int j, int k, int l);

    float bv(int i, int j, int k, int l);

    float bw(int i, int j, int k, int l);

    long appendBx(int i, int j, int k, float value);

    void by(int i, int j, int k, int l, float value);

    void bz(int i, int j, int k, int l, float value);

    void bu(int i, int j, int k, int l, float value);

    void bv(int i, int j, int k, int l, float value);

    void bw(int i, int j, int k, int l, float value);
}
