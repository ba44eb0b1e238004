package io.snode.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Declares one node of a layout inside {@link Layout#build}: its child nodes and the fields
 * placed on it. Each node method adds a new child and returns the child's builder, so chains
 * read top-down; {@link #place} returns this builder. A node may have several children and
 * fields at the same time. Rules are checked when the layout is built, except the depth
 * limit, which is checked at once. A builder is dead once its layout has been built.
 */
public final class NodeBuilder {
    /**
     * The largest chunk size, in elements, of a dynamic node declared without one: its chunk size
     * is {@code min(capacity, DEFAULT_DYNAMIC_CHUNK)}.
     */
    public static final int DEFAULT_DYNAMIC_CHUNK = 1024;

    private final BuildSession session;
    final NodeBuilder parent;
    final NodeKind kind;
    final Axes axes;
    final int[] sizes;
    final boolean uniformSize;
    final int chunkSize;
    final int depth;
    final List<NodeBuilder> children = new ArrayList<>();
    final List<Field> fields = new ArrayList<>();

    /** The state shared by all builders of one layout under construction. */
    static final class BuildSession {
        boolean built;
    }

    static NodeBuilder root(BuildSession session) {
        return new NodeBuilder(session, null, NodeKind.ROOT, Axes.of(), new int[0], false, 0);
    }

    private NodeBuilder(BuildSession session, NodeBuilder parent, NodeKind kind, Axes axes,
                        int[] sizes, boolean uniformSize, int chunkSize) {
        this.session = session;
        this.parent = parent;
        this.kind = kind;
        this.axes = axes;
        this.sizes = sizes;
        this.uniformSize = uniformSize;
        this.chunkSize = chunkSize;
        this.depth = parent == null ? 0 : parent.depth + 1;
    }

    /** A dense child with the same size on every axis. */
    public NodeBuilder dense(Axes axes, int size) {
        return child(NodeKind.DENSE, axes, new int[] {size}, true, 0);
    }

    /** A dense child with one size per axis, in the order of {@code axes}. */
    public NodeBuilder dense(Axes axes, int... sizes) {
        return child(NodeKind.DENSE, axes, Objects.requireNonNull(sizes, "sizes").clone(), false, 0);
    }

    /** A bitmasked child with the same size on every axis. */
    public NodeBuilder bitmasked(Axes axes, int size) {
        return child(NodeKind.BITMASKED, axes, new int[] {size}, true, 0);
    }

    /** A bitmasked child with one size per axis, in the order of {@code axes}. */
    public NodeBuilder bitmasked(Axes axes, int... sizes) {
        return child(NodeKind.BITMASKED, axes, Objects.requireNonNull(sizes, "sizes").clone(), false, 0);
    }

    /** A pointer child with the same size on every axis. */
    public NodeBuilder pointer(Axes axes, int size) {
        return child(NodeKind.POINTER, axes, new int[] {size}, true, 0);
    }

    /** A pointer child with one size per axis, in the order of {@code axes}. */
    public NodeBuilder pointer(Axes axes, int... sizes) {
        return child(NodeKind.POINTER, axes, Objects.requireNonNull(sizes, "sizes").clone(), false, 0);
    }

    /**
     * A hash child with the same size on every axis: the rules of {@link #pointer(Axes, int)},
     * but its memory grows with its active cells, not with its index space (see
     * {@link NodeKind#HASH}), so {@code hash(Axes.IJK, 65536)} costs only what is activated.
     */
    public NodeBuilder hash(Axes axes, int size) {
        return child(NodeKind.HASH, axes, new int[] {size}, true, 0);
    }

    /** A hash child with one size per axis, in the order of {@code axes}. */
    public NodeBuilder hash(Axes axes, int... sizes) {
        return child(NodeKind.HASH, axes, Objects.requireNonNull(sizes, "sizes").clone(), false, 0);
    }

    /**
     * A dynamic child of {@code capacity} elements with the default chunk size,
     * {@code min(capacity, }{@link #DEFAULT_DYNAMIC_CHUNK}{@code )} elements: a list takes memory
     * in steps of at most 1024 elements as it grows. (Taichi's default chunk is the capacity,
     * so that its first append asks for the whole list: {@code dynamic(l, 2147483647)} would ask
     * for 8 GiB for one {@code f32}.) The text form {@code dynamic(l,capacity)} means the same,
     * and a layout prints its chunk size: {@code dynamic(l,2147483647,1024)}.
     */
    public NodeBuilder dynamic(Axis axis, int capacity) {
        return dynamic(Axes.of(axis), capacity, defaultChunkSize(capacity));
    }

    /**
     * A dynamic child of {@code capacity} elements, allocated {@code chunkSize} at a time. One
     * chunk takes {@code chunkSize} times the cell bytes, at most
     * {@link LayoutRule#MAX_CONTAINER_BYTES} ({@link LayoutRule#DYNAMIC_CHUNK_TOO_LARGE}).
     */
    public NodeBuilder dynamic(Axis axis, int capacity, int chunkSize) {
        return dynamic(Axes.of(axis), capacity, chunkSize);
    }

    /**
     * A dynamic child given its axes as a set; the layout rejects any number of axes other than
     * one ({@link LayoutRule#DYNAMIC_ONE_AXIS}). This form exists for generated and parsed
     * layouts; application code normally uses {@link #dynamic(Axis, int, int)}.
     */
    public NodeBuilder dynamic(Axes axes, int capacity, int chunkSize) {
        return child(NodeKind.DYNAMIC, axes, new int[] {capacity}, true, chunkSize);
    }

    /** The chunk size of a dynamic node declared with {@code capacity} and no chunk size. */
    static int defaultChunkSize(int capacity) {
        // A non-positive capacity stays as it is, so that the layout reports the capacity.
        return Math.min(capacity, DEFAULT_DYNAMIC_CHUNK);
    }

    /** Places fields on this node; several fields on one node are stored together (AoS). */
    public NodeBuilder place(Field... fields) {
        checkOpen();
        Objects.requireNonNull(fields, "fields");
        for (Field field : fields) {
            this.fields.add(Objects.requireNonNull(field, "fields contains null"));
        }
        return this;
    }

    /** This node's position among its parent's children (set as it is added; the path's {@code #n}). */
    private int indexInParent;

    private NodeBuilder child(NodeKind kind, Axes axes, int[] sizes, boolean uniform, int chunk) {
        checkOpen();
        Objects.requireNonNull(axes, "axes");
        NodeBuilder child = new NodeBuilder(session, this, kind, axes, sizes, uniform, chunk);
        child.indexInParent = children.size();
        children.add(child);
        if (child.depth > LayoutRule.MAX_DEPTH) {
            String path = child.path();
            children.removeLast(); // a caller that catches this and builds on gets this rule again, not another
            throw new LayoutException(LayoutRule.TOO_DEEP, path, "depth=" + child.depth);
        }
        return child;
    }

    private void checkOpen() {
        if (session.built) {
            throw new IllegalStateException("this layout has been built; a NodeBuilder is valid only"
                    + " inside the Layout.build(...) call that created it");
        }
    }

    /** The node as written in the text form, for example {@code dense(ij,[3,6])}. */
    String description() {
        if (kind == NodeKind.ROOT) {
            return "root";
        }
        String sizeText;
        if (kind == NodeKind.DYNAMIC) {
            // A capacity the rules refuse shows without the chunk size derived from it.
            sizeText = sizes[0] <= 0 && chunkSize == defaultChunkSize(sizes[0]) ? Integer.toString(sizes[0])
                    : sizes[0] + "," + chunkSize;
        } else if (uniformSize && sizes.length == 1) {
            sizeText = Integer.toString(sizes[0]);
        } else {
            StringBuilder list = new StringBuilder("[");
            for (int n = 0; n < sizes.length; n++) {
                list.append(n == 0 ? "" : ",").append(sizes[n]);
            }
            sizeText = list.append(']').toString();
        }
        return kind.text() + "(" + axes + "," + sizeText + ")";
    }

    /**
     * The path from the root, for example {@code root/pointer(ijk,16)/dense(ijk,8)}. A node
     * whose parent has several children carries its position among them ({@code #1}).
     */
    String path() {
        if (parent == null) {
            return "root";
        }
        String segment = description();
        if (parent.children.size() > 1) {
            segment += "#" + indexInParent;
        }
        return parent.path() + "/" + segment;
    }

    /** Sizes per axis, expanding a uniform size to every axis. */
    int[] sizesPerAxis() {
        if (uniformSize && sizes.length == 1 && kind != NodeKind.DYNAMIC) {
            int[] expanded = new int[axes.size()];
            Arrays.fill(expanded, sizes[0]);
            return expanded;
        }
        return sizes.clone();
    }

    void markBuilt() {
        session.built = true;
    }
}
