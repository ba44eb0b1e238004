package io.snode.codegen.kernel;

import java.util.Arrays;
import java.util.Objects;

/**
 * A kernel threw: the launch stopped and this reaches the caller, with the coordinates of the
 * cell where it happened and the kernel's exception as the cause. A launch is not atomic:
 * what the kernel and other tasks of the launch wrote before the stop stays.
 */
public final class KernelException extends RuntimeException {
    private final String snodePath;
    private final int[] coordinates;

    /** @throws NullPointerException when an argument is null (the message is the parameter's name) */
    public KernelException(String snodePath, int[] coordinates, Throwable cause) {
        Objects.requireNonNull(snodePath, "snodePath");
        Objects.requireNonNull(coordinates, "coordinates");
        Objects.requireNonNull(cause, "cause");
        super("kernel failed at " + snodePath + " " + Arrays.toString(coordinates) + ": " + cause, cause);
        this.snodePath = snodePath;
        this.coordinates = coordinates.clone();
    }

    /**
     * The SNode whose cells the launch visited. A launch nested in a kernel (per cell or per
     * block) that fails passes its own {@code KernelException} through, so there it names the
     * nested launch's SNode and cell, and the cause is the nested kernel's exception.
     */
    public String snodePath() {
        return snodePath;
    }

    /**
     * The coordinates of the cell whose kernel call threw; for the block forms
     * ({@code forEachBlock}, {@code reduceBlocks}), the block's {@link LeafBlock#origin origin}.
     */
    public int[] coordinates() {
        return coordinates.clone();
    }
}
