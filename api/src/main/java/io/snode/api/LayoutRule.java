package io.snode.api;

/**
 * The rules a layout must satisfy (Taichi's layout checks, made explicit). Every
 * {@link LayoutException} names one of these and the node that broke it.
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
    NO_FIELD_BELOW("every node has a field placed on it or below it");

    /** Deepest chain of nodes below the root that a layout may declare. */
    public static final int MAX_DEPTH = 256;

    private final String statement;

    LayoutRule(String statement) {
        this.statement = statement;
    }

    /** The rule as a sentence, used in error messages. */
    public String statement() {
        return statement;
    }
}
