package io.snode.codegen.internal.vdb;

/**
 * What {@link VdbWriter} can write. The reader also reads blosc (OpenVDB's default), which the
 * writer does not produce.
 */
public enum VdbCompression {
    /** Every node's values stored raw, no active-mask compression (OpenVDB's COMPRESS_NONE). */
    NONE(VdbFormat.COMPRESS_NONE),
    /**
     * Active-mask compression (only active values plus at most two inactive values and a selection
     * mask are stored) and each node's value block deflated with the JDK's zlib
     * (OpenVDB's COMPRESS_ZIP | COMPRESS_ACTIVE_MASK).
     */
    ZIP(VdbFormat.COMPRESS_ZIP | VdbFormat.COMPRESS_ACTIVE_MASK);

    private final int flags;

    VdbCompression(int flags) {
        this.flags = flags;
    }

    /** The per-grid compression flags written before the grid's metadata. */
    public int flags() {
        return flags;
    }
}
