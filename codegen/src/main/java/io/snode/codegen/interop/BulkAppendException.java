package io.snode.codegen.interop;

import java.util.Arrays;

/**
 * A bulk append ({@link Bulk#append}, {@link Bulk#appendAll}) stopped at an element that the
 * runtime refused (its list is full, the memory cap, an allocator fault: the {@linkplain
 * #getCause() cause}, for a fault of the default allocator the {@link OutOfMemoryError} that
 * {@code Arena.allocate} throws). The elements it appended before stay appended (other threads may already
 * read them); {@link #appended()} lists them, and the refused element and every one after it in
 * the call's order were not appended.
 */
public final class BulkAppendException extends RuntimeException {
    private final int[] appended;
    private final int refused;

    BulkAppendException(String message, int[] appended, int refused, Throwable cause) {
        super(message, cause);
        this.appended = appended;
        this.refused = refused;
    }

    /** Indices into the call's arrays of the elements appended, ascending. */
    public int[] appended() {
        return appended.clone();
    }

    /** Whether element {@code n} of the call's arrays was appended. */
    public boolean isAppended(int n) {
        return Arrays.binarySearch(appended, n) >= 0;
    }

    /** Index into the call's arrays of the element refused. */
    public int refused() {
        return refused;
    }
}
