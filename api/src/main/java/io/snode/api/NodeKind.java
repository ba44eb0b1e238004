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
    DYNAMIC("dynamic"),
    /**
     * Like a pointer node, a child cell allocated on activation, but found through a hash table
     * from cell index to child that grows with the active cells: the index space costs nothing
     * until it is used, so a top level may span a huge index space (OpenVDB's root node): up to
     * 2^31 - 1 per axis, within the rule that a node's cell count (the product of its sizes) fits
     * a long, e.g. {@code hash(ij,2147483647)} or {@code hash(ijk,2097151)}.
     */
    HASH("hash");

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
        return this == BITMASKED || this == POINTER || this == DYNAMIC || this == HASH;
    }
}
