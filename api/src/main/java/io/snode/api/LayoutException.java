package io.snode.api;

import java.util.Objects;

/**
 * A layout that breaks one of the {@link LayoutRule}s. Thrown by {@link Layout#build} and by
 * {@link Layout#parse} for text that parses but declares an invalid layout, and by the runtime's
 * memory plan (when a layout is compiled, before any memory is asked for) for a layout whose
 * containers, cells or list chunks are too large. The message starts
 * with the path of the offending node from the root, then states the rule and what was found.
 */
public final class LayoutException extends IllegalArgumentException {
    private final LayoutRule rule;
    private final String path;

    public LayoutException(LayoutRule rule, String path, String detail) {
        super(path + ": " + Objects.requireNonNull(rule, "rule").statement()
                + (Objects.requireNonNull(detail, "detail").isEmpty() ? "" : "; " + detail));
        this.rule = rule;
        this.path = path;
    }

    public LayoutRule rule() {
        return rule;
    }

    /** The path of the offending node, for example {@code root/pointer(ijk,16)/dense(ijk,8)}. */
    public String path() {
        return path;
    }
}
