package io.snode.api;

/**
 * One of the eight coordinate axes a layout can index, named by the letters {@code i} to
 * {@code p} as in Taichi. Axis order ({@code i} first) fixes the order of a field's
 * coordinates and of row-major linearisation everywhere in the library.
 */
public enum Axis {
    I, J, K, L, M, N, O, P;

    /** The most axes a layout can use. */
    public static final int MAX_AXES = 8;

    private static final Axis[] VALUES = values();

    /** The lower-case letter that names this axis in the text form. */
    public char letter() {
        return (char) ('i' + ordinal());
    }

    /**
     * The axis named by {@code letter}.
     *
     * @throws IllegalArgumentException when the letter is not one of {@code i..p}
     */
    public static Axis of(char letter) {
        int index = letter - 'i';
        if (index < 0 || index >= MAX_AXES) {
            throw new IllegalArgumentException(
                    "axis='" + letter + "' is not an axis; axes are i, j, k, l, m, n, o, p (at most 8)");
        }
        return VALUES[index];
    }

    /** The axis at position {@code index} (0 for {@code i}). */
    public static Axis at(int index) {
        if (index < 0 || index >= MAX_AXES) {
            throw new IllegalArgumentException("index=" + index + " must be between 0 and 7");
        }
        return VALUES[index];
    }

    @Override
    public String toString() {
        return String.valueOf(letter());
    }
}
