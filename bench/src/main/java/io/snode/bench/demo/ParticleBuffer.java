package io.snode.bench.demo;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * One of the two particle buffers of {@link ParticleInCell}: per-block dynamic lists whose
 * elements hold a particle's position (x, y, z, in cells) and velocity (u, v, w, in cells per
 * step). The demo reads one buffer and appends the moved particles to the other, so a particle
 * changes list when it crosses into another block.
 */
abstract sealed class ParticleBuffer {
    private final SNode snode;
    private final MethodHandle length;
    /** The fields x, y, z, u, v, w of an element, in that order. */
    private final PlacedField[] fields;

    ParticleBuffer(Layout layout, String prefix, MethodHandle length) {
        this.fields = Arrays.stream(new String[] {"x", "y", "z", "u", "v", "w"})
                .map(name -> layout.field(prefix + name)).toArray(PlacedField[]::new);
        this.snode = fields[0].snode();
        this.length = length;
    }

    /**
     * Copies the particles of {@code list} (a block of this buffer's dynamic node, handed to a
     * block kernel) into {@code into}, chunk by chunk: contiguous memory read in a plain loop,
     * instead of a lookup of each element's chunk per field and particle.
     */
    final void load(LeafBlock list, Particles into) {
        int count = Math.toIntExact(list.cellCount());
        into.ensure(count);
        long stride = list.cellBytes();
        long x = list.fieldOffset(fields[0]);
        long y = list.fieldOffset(fields[1]);
        long z = list.fieldOffset(fields[2]);
        long u = list.fieldOffset(fields[3]);
        long v = list.fieldOffset(fields[4]);
        long w = list.fieldOffset(fields[5]);
        int p = 0;
        for (int c = 0; c < list.chunkCount(); c++) {
            MemorySegment chunk = list.chunk(c);
            long cells = list.chunkCells(c);
            for (long e = 0; e < cells; e++, p++) {
                long at = e * stride;
                into.x[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + x);
                into.y[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + y);
                into.z[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + z);
                into.u[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + u);
                into.v[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + v);
                into.w[p] = chunk.get(ValueLayout.JAVA_FLOAT, at + w);
            }
        }
        into.count = count;
    }

    /** One list's particles as arrays: per-thread scratch that {@link #load} fills. */
    static final class Particles {
        float[] x = new float[0];
        float[] y = x;
        float[] z = x;
        float[] u = x;
        float[] v = x;
        float[] w = x;
        int count;

        void ensure(int capacity) {
            if (x.length < capacity) {
                int size = Math.max(capacity, 2 * x.length);
                x = new float[size];
                y = new float[size];
                z = new float[size];
                u = new float[size];
                v = new float[size];
                w = new float[size];
            }
        }
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
        A(Layout layout, MethodHandle length) {
            super(layout, "a", length);
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
        B(Layout layout, MethodHandle length) {
            super(layout, "b", length);
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
