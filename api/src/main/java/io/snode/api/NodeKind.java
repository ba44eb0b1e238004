package io.snode.api;

/** The structural node kinds, as in Taichi, plus the implicit root. */
public enum NodeKind {
    /** The implicit root of every layout: one cell; fields placed on it are 0-D scalars. */
    ROOT("root"),
    /** Always-active cells; lookup is arithmetic. */
    DENSE("dense"),
    /** Dense storage plus one activity bit per cell. */
    BITMASKED("bitmasked"),
    /** A lock and a child pointer per cell; children are allocated on activation. */
    POINTER("pointer"),
    /** A 1-D list with a length, appended to; terminal. */
    DYNAMIC("dynamic");

    private final String text;

    NodeKind(String text) {
        this.text = text;
    }

    /** The name in the text form and the builder. */
    public String text() {
        return text;
    }

    /** Whether cells of this kind can be inactive. */
    public boolean isSparse() {
        return this == BITMASKED || this == POINTER || this == DYNAMIC;
    }
}
