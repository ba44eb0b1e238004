package io.snode.bench.workload;

import io.snode.api.Layout;

/** The reference layouts of {@code WORKLOADS.md}. */
public final class Layouts {
    /** L1, Taichi-style: pointer, pointer, dense 8^3 leaf blocks. */
    public static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    /** L2, VDB-like: pointer, pointer, bitmasked 8^3 leaf blocks (per-voxel activity). */
    public static final String L2 = "pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)";
    /** W6's particle lists: one dynamic list per 8^3 block. */
    public static final String PARTICLES = "pointer(ijk,16).pointer(ijk,16).dynamic(l,1048576,64).place(i32 particle)";

    private Layouts() {
    }

    public static Layout l1() {
        return Layout.parse(L1);
    }

    public static Layout l2() {
        return Layout.parse(L2);
    }
}
