package io.snode.runtime;

import io.snode.api.Axis;
import java.util.Objects;

/**
 * How one level of a path takes its local index on one axis from a coordinate of the path's
 * last node: {@code local = (coordinate / divisor) % size}, where {@code divisor} is the product
 * of that axis's sizes on the levels below this one (Taichi's packed model: no padding). When
 * divisor and size are powers of two this is {@code (coordinate >>> shift) & mask}.
 *
 * @param axis        the axis
 * @param coordinate  position of the axis among the coordinates of the path's last node
 * @param divisor     product of the axis's sizes below this level
 * @param size        this level's size on the axis
 * @param stride      weight of the local index in the row-major cell index of the level
 */
public record AxisSplit(Axis axis, int coordinate, long divisor, int size, long stride) {

    public AxisSplit {
        Objects.requireNonNull(axis, "axis");
    }

    /** {@code log2(divisor)} when the divisor is a power of two, else -1. */
    public int shift() {
        return Long.bitCount(divisor) == 1 ? Long.numberOfTrailingZeros(divisor) : -1;
    }

    /** {@code size - 1} when the size is a power of two, else -1. */
    public int mask() {
        return Integer.bitCount(size) == 1 ? size - 1 : -1;
    }

    /** Whether the split compiles to a shift and a mask (no division). */
    public boolean isPowerOfTwo() {
        return shift() >= 0 && mask() >= 0;
    }

    /**
     * This level's index on the axis for {@code coordinate}, the value of the coordinate. Like
     * {@link #split}, it does not check its argument (a negative one gives a meaningless index).
     */
    public int local(int coordinateValue) {
        return (int) split(coordinateValue, divisor, -1, size);
    }

    /**
     * The axis split, written once for every caller: the digit {@code (value / divisor) % size}
     * of a non-negative {@code value}, as {@code (value >>> shift) & (size - 1)} when
     * {@code shift >= 0} (then {@code divisor == 1 << shift} and {@code size} is a power of two).
     * A coordinate gives its local index on a level this way ({@link #local}), and a cell index
     * of a container gives the local coordinate on one of the node's axes with the axis's
     * stride as the divisor. It does not check its arguments: the generic path calls it for every
     * level of every access.
     */
    public static long split(long value, long divisor, int shift, int size) {
        return shift >= 0 ? (value >>> shift) & (size - 1) : (value / divisor) % size;
    }

    @Override
    public String toString() {
        String how = isPowerOfTwo()
                ? "(c >>> " + shift() + ") & " + mask()
                : "(c / " + divisor + ") % " + size;
        return axis.letter() + ": " + how + ", stride " + stride;
    }
}
