package io.snode.runtime;

import java.util.Objects;

/**
 * The activity mask at the start of a bitmasked SNode's container: one bit per cell, packed in
 * 64-bit words, followed by the cells themselves (at {@link SNodePlan#cellsOffset()}).
 *
 * <pre>
 *  0        8               8 * (words - 1)   8 * words
 * +--------+--------+-----+--------+--------+--------+-----
 * | word 0 | word 1 | ... | word w | cell 0 | cell 1 | ...
 * +--------+--------+-----+--------+--------+--------+-----
 *   word w, bit b (0 = least significant): cell 64 * w + b is active
 *   bits at or past the cell count are always clear
 * </pre>
 *
 * A bit is set with an atomic OR and cleared with an atomic AND, so cells that share a word do
 * not share a lock.
 *
 * <p>The helpers do not check their arguments (an index past the cell count or negative gives
 * a meaningless offset or bit; {@link #set} and {@link #isSet} refuse only a null array): they
 * run for every cell the generated code and the scans visit.
 */
public final class BitmaskWords {
    /** Cells per mask word. */
    public static final int BITS = Long.SIZE;
    private static final int LOG_BITS = 6;

    private BitmaskWords() {
    }

    /** Byte offset, from the start of the container, of the word that holds cell {@code index}'s bit. */
    public static long wordOffset(long index) {
        return (index >>> LOG_BITS) * Long.BYTES;
    }

    /** Byte offset, from the start of the container, of mask word number {@code word}. */
    public static long offsetOfWord(long word) {
        return word * Long.BYTES;
    }

    /** The bit of cell {@code index} inside its word. */
    public static long bit(long index) {
        return 1L << (index & (BITS - 1));
    }

    /** Mask words of a container of {@code cellCount} cells: cellCount / 64 rounded up, for any count up to 2^63 - 1. */
    public static long words(long cellCount) {
        return (cellCount >>> LOG_BITS) + ((cellCount & (BITS - 1)) == 0 ? 0 : 1);
    }

    /**
     * Sets cell {@code index}'s bit in a copy of a mask held in {@code words[at ...]} (a
     * snapshot's mask, a bitmap of cells), with the layout of the container's words.
     */
    public static void set(long[] words, int at, long index) {
        Objects.requireNonNull(words, "words");
        words[at + (int) (index >>> LOG_BITS)] |= bit(index);
    }

    /** Whether cell {@code index}'s bit is set in a copy of a mask held in {@code words[at ...]}. */
    public static boolean isSet(long[] words, int at, long index) {
        Objects.requireNonNull(words, "words");
        return (words[at + (int) (index >>> LOG_BITS)] & bit(index)) != 0;
    }

    /** The cell index of the lowest set bit of {@code bits}, a non-zero value of word {@code word}. */
    public static long lowestIndex(long word, long bits) {
        return (word << LOG_BITS) + Long.numberOfTrailingZeros(bits);
    }
}
