package io.snode.bench.demo;

import io.snode.api.SNode;
import java.lang.invoke.MethodHandle;

/**
 * One of the two particle buffers of {@link ParticleInCell}: per-block dynamic lists whose
 * elements hold a particle's position (x, y, z, in cells) and velocity (u, v, w, in cells per
 * step). The demo reads one buffer and appends the moved particles to the other, so a particle
 * changes list when it crosses into another block.
 */
abstract sealed class ParticleBuffer {
    private final SNode snode;
    private final MethodHandle length;

    ParticleBuffer(SNode snode, MethodHandle length) {
        this.snode = snode;
        this.length = length;
    }

    /** The length of block (bi, bj, bk)'s list. */
    final long length(int bi, int bj, int bk) {
        try {
            return (long) length.invokeExact(bi, bj, bk);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new AssertionError("length_ of a dynamic node throws only unchecked exceptions", e);
        }
    }

    /** The buffer's dynamic SNode. */
    final SNode snode() {
        return snode;
    }

    /** The buffer's first field, which names its dynamic SNode for launches and reductions. */
    abstract String field();

    abstract float x(PicFields fields, int bi, int bj, int bk, int l);

    abstract float y(PicFields fields, int bi, int bj, int bk, int l);

    abstract float z(PicFields fields, int bi, int bj, int bk, int l);

    abstract float u(PicFields fields, int bi, int bj, int bk, int l);

    abstract float v(PicFields fields, int bi, int bj, int bk, int l);

    abstract float w(PicFields fields, int bi, int bj, int bk, int l);

    /** Appends a particle to the list of block (bi, bj, bk), activating the block if needed. */
    abstract void append(PicFields fields, int bi, int bj, int bk, float x, float y, float z, float u, float v, float w);

    static final class A extends ParticleBuffer {
        A(SNode snode, MethodHandle length) {
            super(snode, length);
        }

        @Override
        String field() {
            return "ax";
        }

        @Override
        float x(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.ax(bi, bj, bk, l);
        }

        @Override
        float y(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.ay(bi, bj, bk, l);
        }

        @Override
        float z(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.az(bi, bj, bk, l);
        }

        @Override
        float u(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.au(bi, bj, bk, l);
        }

        @Override
        float v(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.av(bi, bj, bk, l);
        }

        @Override
        float w(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.aw(bi, bj, bk, l);
        }

        @Override
        void append(PicFields fields, int bi, int bj, int bk, float x, float y, float z, float u, float v, float w) {
            int l = (int) fields.appendAx(bi, bj, bk, x);
            fields.ay(bi, bj, bk, l, y);
            fields.az(bi, bj, bk, l, z);
            fields.au(bi, bj, bk, l, u);
            fields.av(bi, bj, bk, l, v);
            fields.aw(bi, bj, bk, l, w);
        }
    }

    static final class B extends ParticleBuffer {
        B(SNode snode, MethodHandle length) {
            super(snode, length);
        }

        @Override
        String field() {
            return "bx";
        }

        @Override
        float x(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.bx(bi, bj, bk, l);
        }

        @Override
        float y(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.by(bi, bj, bk, l);
        }

        @Override
        float z(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.bz(bi, bj, bk, l);
        }

        @Override
        float u(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.bu(bi, bj, bk, l);
        }

        @Override
        float v(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.bv(bi, bj, bk, l);
        }

        @Override
        float w(PicFields fields, int bi, int bj, int bk, int l) {
            return fields.bw(bi, bj, bk, l);
        }

        @Override
        void append(PicFields fields, int bi, int bj, int bk, float x, float y, float z, float u, float v, float w) {
            int l = (int) fields.appendBx(bi, bj, bk, x);
            fields.by(bi, bj, bk, l, y);
            fields.bz(bi, bj, bk, l, z);
            fields.bu(bi, bj, bk, l, u);
            fields.bv(bi, bj, bk, l, v);
            fields.bw(bi, bj, bk, l, w);
        }
    }
}
