package io.snode.runtime;

/**
 * The pointer word: one per cell of a pointer SNode's container, holding both the child
 * reference and the cell's lock (so a cell costs 8 bytes and neighbouring cells share no
 * separate lock words).
 *
 * <pre>
 *  63                                                             0
 * +---------------------------------------------------------------+
 * |                     word (64-bit, signed)                     |
 * +---------------------------------------------------------------+
 *   0          inactive: no child; reads land on the ambient cell
 *   -1 (BUSY)  locked by a thread that deactivates the cell
 *   -2 (RETIRED) inactive for good: the cell holding this word was released; an activation
 *              that finds it starts again from the root (collection zeroes the word)
 *   n > 0      active: the child is cell n - 1 of this SNode's node manager
 * </pre>
 *
 * A word is never turned into a raw address: {@link #cellIndex} gives an index that the node
 * manager resolves through its checked chunk table, so a corrupted word gives an exception.
 *
 * <p>Apart from {@link #encode}, the helpers do not check their arguments (the cell index of a
 * word that is not active means nothing): they run on every access of a pointer SNode.
 */
public final class PointerWord {
    /** Bytes of one pointer word. */
    public static final int BYTES = 8;
    /** An inactive cell. */
    public static final long NULL = 0L;
    /** A cell whose lock is held. */
    public static final long BUSY = -1L;
    /** A word in a released cell: no activation may publish here any more. */
    public static final long RETIRED = -2L;

    private PointerWord() {
    }

    /** Byte offset, from the start of a pointer container, of cell {@code index}'s word. */
    public static long wordOffset(long index) {
        return index * BYTES;
    }

    /** The word that refers to cell {@code cellIndex} of the node manager. */
    public static long encode(long cellIndex) {
        if (cellIndex < 0 || cellIndex == Long.MAX_VALUE) {
            throw new IllegalArgumentException("cellIndex=" + cellIndex + " must be between 0 and 2^63 - 2");
        }
        return cellIndex + 1;
    }

    /** The node manager cell index in an active word. */
    public static long cellIndex(long word) {
        return word - 1;
    }

    /**
     * 1 for an active word, else 0 ({@link #isActive} for every long), without a branch: the sign
     * bit of {@code -word & ~word} is set exactly when the word is positive (its negation is
     * negative and it is not; {@code Long.MIN_VALUE} is its own negation, and the complement
     * clears its sign).
     */
    public static long activeBit(long word) {
        return (-word & ~word) >>> 63;
    }

    /** Whether the word refers to a child cell. */
    public static boolean isActive(long word) {
        return word > 0;
    }
}
