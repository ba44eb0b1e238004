package io.snode.codegen.internal.vdb;

import static io.snode.codegen.internal.vdb.VdbFormat.COMPRESS_ACTIVE_MASK;
import static io.snode.codegen.internal.vdb.VdbFormat.MASK_AND_NO_INACTIVE_VALS;
import static io.snode.codegen.internal.vdb.VdbFormat.MASK_AND_ONE_INACTIVE_VAL;
import static io.snode.codegen.internal.vdb.VdbFormat.MASK_AND_TWO_INACTIVE_VALS;
import static io.snode.codegen.internal.vdb.VdbFormat.NO_MASK_AND_ALL_VALS;
import static io.snode.codegen.internal.vdb.VdbFormat.NO_MASK_AND_MINUS_BG;
import static io.snode.codegen.internal.vdb.VdbFormat.NO_MASK_AND_ONE_INACTIVE_VAL;
import static io.snode.codegen.internal.vdb.VdbFormat.NO_MASK_OR_INACTIVE_VALS;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A node's values with OpenVDB's active-mask compression ({@code io::writeCompressedValues} /
 * {@code io::readCompressedValues}): a mode byte (0..6, {@link VdbFormat}), up to two inactive
 * values, a selection mask that picks between them, and a data block ({@link DataBlocks}) holding
 * the active values only, or all values for {@code NO_MASK_AND_ALL_VALS} and when the grid's flags
 * lack {@code COMPRESS_ACTIVE_MASK}. Inactive positions the mode cannot describe make it
 * {@code NO_MASK_AND_ALL_VALS}; positions of child nodes are skipped when choosing the mode.
 * Values travel as doubles (floats through {@link VdbValueType#widen} and {@link VdbValueType#narrow},
 * every bit kept). One instance per reader or writer (scratch).
 */
final class NodeValues {
    private final VdbValueType type;
    private final DataBlocks blocks;
    private final long[] selection = new long[VdbFormat.UPPER_WORDS];
    private final byte[] bytes;
    private final ByteBuffer view;

    NodeValues(VdbValueType type, DataBlocks blocks) {
        this.type = type;
        this.blocks = blocks;
        this.bytes = new byte[VdbFormat.UPPER_SIZE * type.bytes()];
        this.view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes the {@code n} values {@code src[0, n)} of a node whose value mask is
     * {@code mask[maskOff, maskOff + n/64)} and whose child mask is {@code child[...]} (null for a
     * leaf).
     */
    void write(VdbOutput out, int flags, double background, double[] src, int n, long[] mask, int maskOff,
            long[] child, int childOff) throws IOException {
        int words = n >>> 6;
        int mode = NO_MASK_AND_ALL_VALS;
        double v0 = background;
        double v1 = background;
        if ((flags & COMPRESS_ACTIVE_MASK) != 0) {
            double[] unique = new double[2];
            int count = 0;
            for (int w = 0; w < words && count < 3; w++) {
                long off = ~mask[maskOff + w] & (child == null ? -1L : ~child[childOff + w]);
                while (off != 0 && count < 3) {
                    double v = src[64 * w + Long.numberOfTrailingZeros(off)];
                    off &= off - 1;
                    if (!(count > 0 && v == unique[0]) && !(count > 1 && v == unique[1])) {
                        if (count < 2) {
                            unique[count] = v;
                        }
                        count++;
                    }
                }
            }
            double minusBg = -background;
            mode = NO_MASK_OR_INACTIVE_VALS;
            if (count == 1) {
                v0 = unique[0];
                if (v0 != background) {
                    mode = v0 == minusBg ? NO_MASK_AND_MINUS_BG : NO_MASK_AND_ONE_INACTIVE_VAL;
                }
            } else if (count == 2) {
                v0 = unique[0];
                v1 = unique[1];
                if (v0 != background && v1 != background) {
                    mode = MASK_AND_TWO_INACTIVE_VALS;
                } else if (v1 == background) {
                    mode = v0 == minusBg ? MASK_AND_NO_INACTIVE_VALS : MASK_AND_ONE_INACTIVE_VAL;
                } else {
                    mode = v1 == minusBg ? MASK_AND_NO_INACTIVE_VALS : MASK_AND_ONE_INACTIVE_VAL;
                    v1 = v0;
                    v0 = unique[1];
                }
            } else if (count > 2) {
                mode = NO_MASK_AND_ALL_VALS;
            }
        }
        out.putByte(mode);
        if (mode == NO_MASK_AND_ONE_INACTIVE_VAL || mode == MASK_AND_ONE_INACTIVE_VAL
                || mode == MASK_AND_TWO_INACTIVE_VALS) {
            out.putValue(type, v0);
            if (mode == MASK_AND_TWO_INACTIVE_VALS) {
                out.putValue(type, v1);
            }
        }
        int stored;
        if (mode == NO_MASK_AND_ALL_VALS) {
            for (int i = 0; i < n; i++) {
                put(i, src[i]);
            }
            stored = n;
        } else {
            boolean select = mode >= MASK_AND_NO_INACTIVE_VALS;
            stored = 0;
            for (int w = 0; w < words; w++) {
                long on = mask[maskOff + w];
                long sel = 0;
                for (int b = 0, i = 64 * w; b < 64; b++, i++) {
                    if ((on & (1L << b)) != 0) {
                        put(stored++, src[i]);
                    } else if (select && src[i] == v1) {
                        sel |= 1L << b;
                    }
                }
                selection[w] = sel;
            }
            if (select) {
                out.putLongs(selection, 0, words);
            }
        }
        blocks.write(out, bytes, stored * type.bytes(), flags);
    }

    private void put(int i, double v) {
        if (type == VdbValueType.FLOAT) {
            view.putFloat(4 * i, VdbValueType.narrow(v));
        } else {
            view.putDouble(8 * i, v);
        }
    }

    /**
     * Reads the {@code n} values of a node whose value mask is {@code mask[maskOff, ...)} into
     * {@code dst[0, n)}, restoring inactive values from the mode's inactive values.
     */
    void read(VdbInput in, int flags, double background, double[] dst, int n, long[] mask, int maskOff)
            throws IOException {
        long at = in.position();
        int mode = in.readByte();
        if (mode < NO_MASK_OR_INACTIVE_VALS || mode > NO_MASK_AND_ALL_VALS) {
            throw in.fail("mask-compression mode " + mode + " at offset " + at
                    + " (allowed: 0 to 6): damaged file");
        }
        int words = n >>> 6;
        double v0 = mode == NO_MASK_OR_INACTIVE_VALS ? background : -background;
        double v1 = background;
        if (mode == NO_MASK_AND_ONE_INACTIVE_VAL || mode == MASK_AND_ONE_INACTIVE_VAL
                || mode == MASK_AND_TWO_INACTIVE_VALS) {
            v0 = in.readValue(type);
            if (mode == MASK_AND_TWO_INACTIVE_VALS) {
                v1 = in.readValue(type);
            }
        }
        boolean select = mode == MASK_AND_NO_INACTIVE_VALS || mode == MASK_AND_ONE_INACTIVE_VAL
                || mode == MASK_AND_TWO_INACTIVE_VALS;
        if (select) {
            in.readLongs(selection, 0, words);
        }
        int stored = n;
        if ((flags & COMPRESS_ACTIVE_MASK) != 0 && mode != NO_MASK_AND_ALL_VALS) {
            stored = 0;
            for (int w = 0; w < words; w++) {
                stored += Long.bitCount(mask[maskOff + w]);
            }
        }
        blocks.read(in, bytes, stored * type.bytes(), flags);
        if (stored == n) {
            for (int i = 0; i < n; i++) {
                dst[i] = get(i);
            }
            return;
        }
        int t = 0;
        for (int w = 0; w < words; w++) {
            long on = mask[maskOff + w];
            long sel = select ? selection[w] : 0;
            for (int b = 0, i = 64 * w; b < 64; b++, i++) {
                long bit = 1L << b;
                dst[i] = (on & bit) != 0 ? get(t++) : (sel & bit) != 0 ? v1 : v0;
            }
        }
    }

    private double get(int i) {
        return type == VdbValueType.FLOAT ? VdbValueType.widen(view.getFloat(4 * i)) : view.getDouble(8 * i);
    }
}
