package io.snode.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The axes one node consumes, in the order they were written. This class only records the
 * list; the layout checks it when it is built (at least one axis, in order i, j, k, ..., no
 * duplicates), so that the error can name the offending node.
 */
public final class Axes {
    public static final Axes I = of(Axis.I);
    public static final Axes J = of(Axis.J);
    public static final Axes K = of(Axis.K);
    public static final Axes L = of(Axis.L);
    public static final Axes IJ = of(Axis.I, Axis.J);
    public static final Axes IJK = of(Axis.I, Axis.J, Axis.K);
    public static final Axes IJKL = of(Axis.I, Axis.J, Axis.K, Axis.L);

    private final List<Axis> axes;

    private Axes(List<Axis> axes) {
        this.axes = List.copyOf(axes);
    }

    public static Axes of(Axis... axes) {
        Objects.requireNonNull(axes, "axes");
        for (Axis axis : axes) {
            Objects.requireNonNull(axis, "axes contains null");
        }
        return new Axes(Arrays.asList(axes));
    }

    /**
     * Axes from their letters, for example {@code "ijk"}.
     *
     * @throws IllegalArgumentException when a letter is not one of {@code i..p}
     */
    public static Axes parse(String letters) {
        Objects.requireNonNull(letters, "letters");
        List<Axis> list = new ArrayList<>(letters.length());
        for (int n = 0; n < letters.length(); n++) {
            list.add(Axis.of(letters.charAt(n)));
        }
        return new Axes(list);
    }

    public List<Axis> list() {
        return axes;
    }

    public int size() {
        return axes.size();
    }

    /**
     * The axis at {@code index}, in the order written.
     *
     * @throws IndexOutOfBoundsException when {@code index} is not in {@code [0, size())}; the
     *                                   message names it and the range
     */
    public Axis get(int index) {
        if (index < 0 || index >= axes.size()) {
            throw new IndexOutOfBoundsException("index=" + index + " is not in [0, " + axes.size() + ") (axes "
                    + this + ")");
        }
        return axes.get(index);
    }

    /** The letters, for example {@code ijk}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(axes.size());
        for (Axis axis : axes) {
            text.append(axis.letter());
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Axes that && axes.equals(that.axes);
    }

    @Override
    public int hashCode() {
        return axes.hashCode();
    }
}
