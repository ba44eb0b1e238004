package io.snode.codegen.interop;

import java.io.IOException;

/**
 * A {@code .vdb} file that cannot be read or written: a bad magic number, a truncated file, a
 * damaged block, or a feature this codec does not support (a grid type other than FloatGrid and
 * DoubleGrid, half-float storage, a blosc compressor other than LZ4, instanced grids). The message
 * names the file, the grid when one is known, and what is wrong or what is supported.
 */
public class VdbFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public VdbFormatException(String message) {
        super(message);
    }

    public VdbFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
