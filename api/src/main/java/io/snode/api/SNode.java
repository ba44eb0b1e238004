package io.snode.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One structural node of a built {@link Layout}: immutable, with links to its parent and
 * children. Its <em>index space</em> follows Taichi: the axes consumed from the root down to
 * and including this node, in axis order, each with the product of its sizes on that path.
 * In {@code pointer(i,16).dense(i,16)}, the pointer's index space is {@code [16]} and the
 * dense node's is {@code [256]}; element 19 of the dense node lies in pointer cell 1.
 */
public final class SNode {
    private final int id;
    private final NodeKind kind;
    private final SNode parent;
    private final Axes axes;
    private final int[] sizes;
    private final boolean uniformSize;
    private final int chunkSize;
    private final int depth;
    private final String description;
    private final String path;
    private final Axis[] indexAxes;
    private final int[] indexShape;
    private final List<SNode> children = new ArrayList<>();
    private final List<SNode> childrenView = Collections.unmodifiableList(children);
    private final List<PlacedField> fields = new ArrayList<>();
    private final List<PlacedField> fieldsView = Collections.unmodifiableList(fields);

    SNode(int id, NodeBuilder node, SNode parent, String path, Axis[] indexAxes, int[] indexShape) {
        this.id = id;
        this.kind = node.kind;
        this.parent = parent;
        this.axes = node.axes;
        this.sizes = node.sizesPerAxis();
        this.uniformSize = node.uniformSize;
        this.chunkSize = node.chunkSize;
        this.depth = node.depth;
        this.description = node.description();
        this.path = path;
        this.indexAxes = indexAxes;
        this.indexShape = indexShape;
    }

    void addChild(SNode child) {
        children.add(child);
    }

    void addField(PlacedField field) {
        fields.add(field);
    }

    /** Position of this node in a pre-order walk of the layout, the root being 0. */
    public int id() {
        return id;
    }

    public NodeKind kind() {
        return kind;
    }

    /** The parent node, or {@code null} for the root. */
    public SNode parent() {
        return parent;
    }

    public List<SNode> children() {
        return childrenView;
    }

    /** The fields placed on this node, in placement order (their order in a cell). */
    public List<PlacedField> fields() {
        return fieldsView;
    }

    /** The axes this node consumes (empty for the root). */
    public Axes axes() {
        return axes;
    }

    /** This node's size on each axis it consumes, in the order of {@link #axes()}. */
    public int[] sizes() {
        return sizes.clone();
    }

    /** This node's size on {@code axis}, or 1 when it does not consume that axis. */
    public int size(Axis axis) {
        Objects.requireNonNull(axis, "axis");
        int position = axes.list().indexOf(axis);
        return position < 0 ? 1 : sizes[position];
    }

    /** Whether the sizes were declared as one size for all axes. */
    public boolean uniformSize() {
        return uniformSize;
    }

    /**
     * Number of cells in one instance of this node: the product of its sizes (1 for root). The
     * layout rules keep it below 2^63 ({@link LayoutRule#SIZE_OVERFLOW}).
     */
    public long cellCount() {
        return cellCount(sizes);
    }

    /**
     * The product of {@code sizes}, computed exactly.
     *
     * @throws ArithmeticException when the product does not fit a {@code long}
     */
    static long cellCount(int[] sizes) {
        long count = 1;
        for (int size : sizes) {
            count = Math.multiplyExact(count, size);
        }
        return count;
    }

    /** A dynamic node's capacity. */
    public int capacity() {
        requireDynamic();
        return sizes[0];
    }

    /**
     * A dynamic node's chunk size, in elements: as declared, or
     * {@code min(capacity, }{@link NodeBuilder#DEFAULT_DYNAMIC_CHUNK}{@code )} when the
     * declaration gave none.
     */
    public int chunkSize() {
        requireDynamic();
        return chunkSize;
    }

    private void requireDynamic() {
        if (kind != NodeKind.DYNAMIC) {
            throw new IllegalStateException(path + " is " + kind.text() + ", not dynamic");
        }
    }

    /** Levels below the root: 0 for the root, 1 for its children. */
    public int depth() {
        return depth;
    }

    /** The axes of this node's index space, in axis order. */
    public List<Axis> indexAxes() {
        return List.of(indexAxes);
    }

    /** The extent of this node's index space on each of {@link #indexAxes()}. */
    public int[] indexShape() {
        return indexShape.clone();
    }

    /** The extent of this node's index space on {@code axis}; 1 when the axis is not used. */
    public int extent(Axis axis) {
        Objects.requireNonNull(axis, "axis");
        for (int n = 0; n < indexAxes.length; n++) {
            if (indexAxes[n] == axis) {
                return indexShape[n];
            }
        }
        return 1;
    }

    /** The node as written in the text form, for example {@code pointer(ijk,16)}. */
    public String description() {
        return description;
    }

    /** The path from the root, for example {@code root/pointer(ijk,16)/dense(ijk,8)}. */
    public String path() {
        return path;
    }

    /** The nodes from the root down to this one. */
    public List<SNode> ancestry() {
        List<SNode> chain = new ArrayList<>(depth + 1);
        for (SNode node = this; node != null; node = node.parent) {
            chain.add(node);
        }
        Collections.reverse(chain);
        return List.copyOf(chain);
    }

    /** The subtree in the text form's grammar: this node, then its fields and children. */
    void appendText(StringBuilder text) {
        text.append(description);
        if (children.isEmpty() && !fields.isEmpty()) {
            text.append('.');
            appendPlace(text, fields);
        } else if (fields.isEmpty() && children.size() == 1) {
            text.append('.');
            children.get(0).appendText(text);
        } else {
            text.append("{ ");
            appendItems(text, fields, children);
            text.append(" }");
        }
    }

    static void appendItems(StringBuilder text, List<PlacedField> fields, List<SNode> children) {
        String separator = "";
        if (!fields.isEmpty()) {
            appendPlace(text, fields);
            separator = "; ";
        }
        for (SNode child : children) {
            text.append(separator);
            child.appendText(text);
            separator = "; ";
        }
    }

    private static void appendPlace(StringBuilder text, List<PlacedField> fields) {
        text.append("place(");
        for (int n = 0; n < fields.size(); n++) {
            text.append(n == 0 ? "" : ", ").append(fields.get(n).field());
        }
        text.append(')');
    }

    /** One line per node and per field, indented by depth, with index shapes. */
    void appendTree(StringBuilder text, String indent) {
        text.append(indent).append(description);
        if (indexAxes.length > 0) {
            text.append("  shape ").append(shapeText(indexAxes, indexShape));
        }
        text.append(System.lineSeparator());
        for (PlacedField field : fields) {
            text.append(indent).append("  ").append(field.field()).append(System.lineSeparator());
        }
        for (SNode child : children) {
            child.appendTree(text, indent + "  ");
        }
    }

    static String shapeText(Axis[] axes, int[] shape) {
        StringBuilder text = new StringBuilder("[");
        for (int n = 0; n < axes.length; n++) {
            text.append(n == 0 ? "" : ", ").append(axes[n].letter()).append('=').append(shape[n]);
        }
        return text.append(']').toString();
    }

    @Override
    public String toString() {
        return path;
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
