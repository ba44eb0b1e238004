package io.snode.api;

/**
 * The rules a layout must satisfy (Taichi's layout checks, made explicit). Every
 * {@link LayoutException} names one of these and the node that broke it.
 *
 * <p>{@link Layout#build} and {@link Layout#parse} check every rule that follows from the
 * declaration alone. The rules on bytes ({@link #SIZE_OVERFLOW} for byte sizes and offsets,
 * {@link #CONTAINER_TOO_LARGE}, {@link #DYNAMIC_CHUNK_TOO_LARGE}) depend on how the runtime
 * lays cells out (pointer words, mask words, list headers, alignment); the runtime's memory
 * plan checks them when a layout is compiled, before any memory is asked for, and throws the
 * same {@link LayoutException}.
 */
public enum LayoutRule {
    AXES_EMPTY("a node consumes at least one axis"),
    AXES_DUPLICATE("a node consumes each axis at most once"),
    AXES_ORDER("a node lists its axes in order i, j, k, l, m, n, o, p"),
    SIZE_COUNT("a node gives one size for all its axes or one size per axis"),
    SIZE_POSITIVE("sizes are positive"),
    DYNAMIC_ONE_AXIS("a dynamic node consumes exactly one axis"),
    DYNAMIC_CHUNK("a dynamic node's chunk size is between 1 and its capacity"),
    DYNAMIC_TERMINAL("a dynamic node is terminal: only fields may be placed under it"),
    DYNAMIC_AXIS_REUSED("a dynamic node's axis is not consumed by any of its ancestors"),
    EXTENT_TOO_LARGE("the extent of every axis (the product of its sizes on a path) is at most 2^31 - 1"),
    TOO_DEEP("a layout is at most " + LayoutRule.MAX_DEPTH + " nodes deep"),
    FIELD_NAME_MALFORMED("a field name matches [A-Za-z_][A-Za-z0-9_]*"),
    FIELD_NAME_DUPLICATE("a field name is placed once in the whole layout"),
    NO_FIELD_BELOW("every node has a field placed on it or below it"),
    SIZE_OVERFLOW("every cell count, byte size and offset of a layout fits a signed 64-bit integer"),
    CONTAINER_TOO_LARGE("one container of a dense, bitmasked or pointer node, the root cell and one cell of a"
            + " pointer or hash node each take at most " + LayoutRule.MAX_CONTAINER_BYTES + " bytes (128 MiB), the"
            + " largest chunk the memory pool hands out"),
    DYNAMIC_CHUNK_TOO_LARGE("one chunk of a dynamic node (its chunk size times its cell bytes) takes at most "
            + LayoutRule.MAX_CONTAINER_BYTES + " bytes (128 MiB), the largest chunk the memory pool hands out");

    /** Deepest chain of nodes below the root that a layout may declare. */
    public static final int MAX_DEPTH = 256;

    /**
     * The most bytes one piece of memory that a layout's index space fixes may take: a container
     * of a dense, bitmasked or pointer node (its cells, its mask words and cells, its pointer
     * words), the root cell, one cell of a pointer or hash node, and one chunk of a dynamic node. It is
     * the largest chunk the runtime's memory pool hands out (its {@code ChunkGeometry} refers to
     * this constant), so every such piece is one chunk. Kinds whose memory grows with their
     * active cells rather than with their index space are not bound by it.
     */
    public static final long MAX_CONTAINER_BYTES = 128L << 20;

    private final String statement;

    LayoutRule(String statement) {
        this.statement = statement;
    }

    /** The rule as a sentence, used in error messages. */
    public String statement() {
        return statement;
    }
}
