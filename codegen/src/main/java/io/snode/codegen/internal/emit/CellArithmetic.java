package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IAND;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IDIV;
import static org.objectweb.asm.Opcodes.IREM;
import static org.objectweb.asm.Opcodes.ISHL;
import static org.objectweb.asm.Opcodes.IUSHR;
import static org.objectweb.asm.Opcodes.LAND;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LSUB;
import static org.objectweb.asm.Opcodes.LUSHR;

import org.objectweb.asm.Label;

/**
 * The two pieces of index arithmetic that generated code repeats at every level, written once:
 * the axis split {@code (v / divisor) % size} (a shift and a mask for powers of two, see
 * {@link io.snode.runtime.AxisSplit}) and the bitmask words of a bitmasked container, one
 * {@code long} word per 64 cells, bit {@code index & 63} of word {@code index >>> 6}:
 *
 * <pre>
 *   container: | word 0: cells 0..63 | word 1: cells 64..127 | ... | cells ...
 *   byte offset of the word of cell i = (i >>> 6) << 3
 * </pre>
 */
public final class CellArithmetic {
    /** log2 of the cells one mask word covers. */
    public static final int CELLS_PER_WORD_SHIFT = 6;
    /** log2 of a mask word's bytes. */
    public static final int WORD_BYTES_SHIFT = 3;

    private CellArithmetic() {
    }

    /**
     * The non-negative int on the stack {@code v} becomes {@code (v / divisor) % size}; the
     * remainder is left out with {@code wholeAxis} (v is below {@code divisor * size}), and so is
     * the division for a divisor of 1.
     */
    public static void intSplit(MethodEmitter mv, long divisor, int size, boolean wholeAxis) {
        if (divisor > 1) {
            if (Long.bitCount(divisor) == 1) {
                mv.pushInt(Long.numberOfTrailingZeros(divisor));
                mv.visitInsn(IUSHR);
            } else {
                mv.pushInt((int) divisor);
                mv.visitInsn(IDIV);
            }
        }
        if (!wholeAxis) {
            if (Integer.bitCount(size) == 1) {
                mv.pushInt(size - 1);
                mv.visitInsn(IAND);
            } else {
                mv.pushInt(size);
                mv.visitInsn(IREM);
            }
        }
    }

    /** As {@link #intSplit} for a non-negative long on the stack. */
    public static void longSplit(MethodEmitter mv, long divisor, int size, boolean wholeAxis) {
        mv.divide(divisor);
        if (!wholeAxis) {
            mv.remainder(size);
        }
    }

    /** The long cell index on the stack becomes the byte offset of its mask word in the container. */
    public static void maskWordOffsetOfCell(MethodEmitter mv) {
        mv.pushInt(CELLS_PER_WORD_SHIFT);
        mv.visitInsn(LUSHR);
        mv.pushInt(WORD_BYTES_SHIFT);
        mv.visitInsn(LSHL);
    }

    /** The int word index on the stack becomes the long byte offset of that word (mask or pointer word). */
    public static void wordOffset(MethodEmitter mv) {
        mv.visitInsn(I2L);
        mv.pushInt(WORD_BYTES_SHIFT);
        mv.visitInsn(LSHL);
    }

    /** {@code if (bits == 0) goto none}, for the long local {@code bits}. */
    public static void ifNoBits(MethodEmitter mv, int bits, Label none) {
        mv.visitVarInsn(LLOAD, bits);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, none);
    }

    /** Pushes the int index of the lowest set bit of the long local {@code bits}: {@code tz(bits)}. */
    public static void lowestBit(MethodEmitter mv, int bits) {
        mv.visitVarInsn(LLOAD, bits);
        mv.invoke(RuntimeMethods.TRAILING_ZEROS);
    }

    /** {@code bits &= bits - 1}: clears the lowest set bit of the long local {@code bits}. */
    public static void clearLowestBit(MethodEmitter mv, int bits) {
        mv.visitVarInsn(LLOAD, bits);
        mv.visitVarInsn(LLOAD, bits);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitInsn(LAND);
        mv.visitVarInsn(LSTORE, bits);
    }

    /** The int mask-word index on the stack becomes the index of the first cell it covers. */
    public static void firstCellOfWord(MethodEmitter mv) {
        mv.pushInt(CELLS_PER_WORD_SHIFT);
        mv.visitInsn(ISHL);
    }
}
