package io.snode.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * An immutable, validated tree of SNodes: the data layout that the runtime compiles.
 *
 * <pre>{@code
 * Layout layout = Layout.build(root -> {
 *     var block = root.pointer(Axes.IJK, 16).pointer(Axes.IJK, 16);
 *     block.dense(Axes.IJK, 8).place(Field.f32("phi"), Field.f32("vx"));
 *     block.dynamic(Axis.L, 1 << 20, 64).place(Field.i32("particle"));
 * });
 * }</pre>
 *
 * <p>Every {@link LayoutRule} that follows from the declaration is checked when the layout is
 * built; the rules on bytes (how large a container, cell or list chunk may be) are checked by the
 * runtime's memory plan when the layout is compiled, before any memory is asked for (see
 * {@link LayoutRule}). A layout also has a text form that reads like the builder
 * ({@link #toString()}, {@link #parse}); parsing the text of a layout always gives an equal
 * layout. Two layouts are equal when their text forms are.
 */
public final class Layout {
    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final SNode root;
    private final List<SNode> snodes;
    private final Map<String, PlacedField> fields;
    private final String text;

    private Layout(SNode root, List<SNode> snodes, Map<String, PlacedField> fields) {
        this.root = root;
        this.snodes = List.copyOf(snodes);
        this.fields = Collections.unmodifiableMap(fields);
        StringBuilder builder = new StringBuilder();
        SNode.appendItems(builder, root.fields(), root.children());
        this.text = builder.toString();
    }

    /**
     * Builds a layout: {@code declaration} receives the implicit root and declares the tree.
     *
     * @throws LayoutException when the declared tree breaks a {@link LayoutRule}
     */
    public static Layout build(Consumer<NodeBuilder> declaration) {
        Objects.requireNonNull(declaration, "declaration");
        NodeBuilder.BuildSession session = new NodeBuilder.BuildSession();
        NodeBuilder root = NodeBuilder.root(session);
        try {
            declaration.accept(root);
        } finally {
            root.markBuilt();
        }
        return validate(root);
    }

    /**
     * Parses the text form, for example
     * {@code pointer(ijk,16){ place(f32 coarse); dense(ijk,8).place(f32 phi) }}.
     *
     * @throws LayoutParseException when the text is not in the grammar
     * @throws LayoutException when it parses but breaks a {@link LayoutRule}
     */
    public static Layout parse(String text) {
        Objects.requireNonNull(text, "text");
        NodeBuilder.BuildSession session = new NodeBuilder.BuildSession();
        NodeBuilder root = NodeBuilder.root(session);
        try {
            new LayoutParser(text).parseInto(root);
        } finally {
            root.markBuilt();
        }
        return validate(root);
    }

    /** The implicit root; fields placed on it are 0-D. */
    public SNode root() {
        return root;
    }

    /** Every node, root first, in pre-order; a node's position is its {@link SNode#id()}. */
    public List<SNode> snodes() {
        return snodes;
    }

    public SNode snode(int id) {
        if (id < 0 || id >= snodes.size()) {
            throw new IndexOutOfBoundsException("id=" + id + " is not a node of this layout; ids are 0.."
                    + (snodes.size() - 1));
        }
        return snodes.get(id);
    }

    /** Every placed field, in pre-order of their nodes, then placement order. */
    public List<PlacedField> fields() {
        return List.copyOf(fields.values());
    }

    /**
     * The field called {@code name}.
     *
     * @throws NullPointerException     when {@code name} is null (the message is {@code name})
     * @throws IllegalArgumentException when the layout has no such field
     */
    public PlacedField field(String name) {
        PlacedField field = fields.get(Objects.requireNonNull(name, "name"));
        if (field == null) {
            throw new IllegalArgumentException("field=" + name + " is not in the layout; its fields are "
                    + String.join(", ", fields.keySet()));
        }
        return field;
    }

    /** One line per node (with its index shape) and per field, indented by depth. */
    public String treeString() {
        StringBuilder builder = new StringBuilder();
        root.appendTree(builder, "");
        return builder.toString();
    }

    /** The canonical text form, which {@link #parse} reads back to an equal layout. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Layout that && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    // ---- validation: builder tree -> SNodes, checking every rule ----

    private static Layout validate(NodeBuilder rootBuilder) {
        List<SNode> snodes = new ArrayList<>();
        Map<String, PlacedField> fields = new LinkedHashMap<>();
        SNode root = new SNode(0, rootBuilder, null, "root", new Axis[0], new int[0]);
        snodes.add(root);
        placeFields(rootBuilder, root, fields);

        // Iterative pre-order walk: builder and parent SNode pairs.
        Deque<Object[]> stack = new ArrayDeque<>();
        pushChildren(stack, rootBuilder, root);
        while (!stack.isEmpty()) {
            Object[] entry = stack.pop();
            NodeBuilder node = (NodeBuilder) entry[0];
            SNode parent = (SNode) entry[1];
            String path = node.path();
            checkNode(node, parent, path);
            SNode snode = indexed(snodes.size(), node, parent, path);
            snodes.add(snode);
            parent.addChild(snode);
            placeFields(node, snode, fields);
            pushChildren(stack, node, snode);
        }
        checkFieldsBelow(snodes);
        return new Layout(root, snodes, fields);
    }

    private static void pushChildren(Deque<Object[]> stack, NodeBuilder node, SNode snode) {
        for (int n = node.children.size() - 1; n >= 0; n--) {
            stack.push(new Object[] {node.children.get(n), snode});
        }
    }

    private static void checkNode(NodeBuilder node, SNode parent, String path) {
        List<Axis> axes = node.axes.list();
        if (axes.isEmpty()) {
            throw new LayoutException(LayoutRule.AXES_EMPTY, path, "axes is empty");
        }
        Set<Axis> seen = EnumSet.noneOf(Axis.class);
        for (Axis axis : axes) {
            if (!seen.add(axis)) {
                throw new LayoutException(LayoutRule.AXES_DUPLICATE, path,
                        "axes=" + node.axes + " repeats " + axis.letter());
            }
        }
        for (int n = 1; n < axes.size(); n++) {
            if (axes.get(n).ordinal() < axes.get(n - 1).ordinal()) {
                throw new LayoutException(LayoutRule.AXES_ORDER, path, "axes=" + node.axes);
            }
        }
        if (parent.kind() == NodeKind.DYNAMIC) {
            throw new LayoutException(LayoutRule.DYNAMIC_TERMINAL, parent.path(),
                    "found child node " + node.description());
        }
        if (node.kind == NodeKind.DYNAMIC) {
            if (axes.size() != 1) {
                throw new LayoutException(LayoutRule.DYNAMIC_ONE_AXIS, path, "axes=" + node.axes);
            }
            int capacity = node.sizes[0];
            if (capacity <= 0) {
                throw new LayoutException(LayoutRule.SIZE_POSITIVE, path, "capacity=" + capacity);
            }
            if (node.chunkSize <= 0 || node.chunkSize > capacity) {
                throw new LayoutException(LayoutRule.DYNAMIC_CHUNK, path,
                        "chunk=" + node.chunkSize + ", capacity=" + capacity);
            }
            for (SNode above = parent; above != null; above = above.parent()) {
                if (above.axes().list().contains(axes.get(0))) {
                    throw new LayoutException(LayoutRule.DYNAMIC_AXIS_REUSED, path,
                            "axis " + axes.get(0).letter() + " is consumed by " + above.path());
                }
            }
        } else {
            if (!(node.uniformSize && node.sizes.length == 1) && node.sizes.length != axes.size()) {
                throw new LayoutException(LayoutRule.SIZE_COUNT, path,
                        node.sizes.length + " sizes for " + axes.size() + " axes (" + node.axes + ")");
            }
            for (int size : node.sizes) {
                if (size <= 0) {
                    throw new LayoutException(LayoutRule.SIZE_POSITIVE, path, "size=" + size);
                }
            }
            int[] sizes = node.sizesPerAxis();
            try {
                SNode.cellCount(sizes);
            } catch (ArithmeticException e) {
                throw new LayoutException(LayoutRule.SIZE_OVERFLOW, path, "sizes " + sizesText(sizes)
                        + " multiply to more than " + Long.MAX_VALUE + " cells");
            }
        }
    }

    private static String sizesText(int[] sizes) {
        StringBuilder text = new StringBuilder("[");
        for (int n = 0; n < sizes.length; n++) {
            text.append(n == 0 ? "" : ",").append(sizes[n]);
        }
        return text.append(']').toString();
    }

    /** Creates the SNode with its index space, checking that every extent fits an int. */
    private static SNode indexed(int id, NodeBuilder node, SNode parent, String path) {
        long[] extents = new long[Axis.MAX_AXES]; // 0: axis not used on the path
        List<Axis> parentAxes = parent.indexAxes();
        int[] parentShape = parent.indexShape();
        for (int n = 0; n < parentShape.length; n++) {
            extents[parentAxes.get(n).ordinal()] = parentShape[n];
        }
        int[] sizes = node.sizesPerAxis();
        for (int n = 0; n < sizes.length; n++) {
            Axis axis = node.axes.get(n);
            long previous = extents[axis.ordinal()] == 0 ? 1 : extents[axis.ordinal()];
            long extent = Math.multiplyExact(previous, sizes[n]); // both below 2^31: cannot overflow
            if (extent > Integer.MAX_VALUE) {
                throw new LayoutException(LayoutRule.EXTENT_TOO_LARGE, path,
                        "axis " + axis.letter() + " reaches extent " + extent);
            }
            extents[axis.ordinal()] = extent;
        }
        int used = 0;
        for (long extent : extents) {
            used += extent == 0 ? 0 : 1;
        }
        Axis[] indexAxes = new Axis[used];
        int[] indexShape = new int[used];
        int position = 0;
        for (Axis axis : Axis.values()) {
            if (extents[axis.ordinal()] != 0) {
                indexAxes[position] = axis;
                indexShape[position++] = (int) extents[axis.ordinal()];
            }
        }
        return new SNode(id, node, parent, path, indexAxes, indexShape);
    }

    private static void placeFields(NodeBuilder node, SNode snode, Map<String, PlacedField> fields) {
        for (Field field : node.fields) {
            if (!FIELD_NAME.matcher(field.name()).matches()) {
                throw new LayoutException(LayoutRule.FIELD_NAME_MALFORMED, snode.path(),
                        "name=\"" + field.name() + "\"");
            }
            PlacedField earlier = fields.get(field.name());
            if (earlier != null) {
                throw new LayoutException(LayoutRule.FIELD_NAME_DUPLICATE, snode.path(),
                        "name=" + field.name() + " is also placed at " + earlier.snode().path());
            }
            PlacedField placed = new PlacedField(field, snode, snode.fields().size());
            snode.addField(placed);
            fields.put(field.name(), placed);
        }
    }

    private static void checkFieldsBelow(List<SNode> snodes) {
        boolean[] hasField = new boolean[snodes.size()];
        // Pre-order ids: children have larger ids than their parents, so a reverse walk
        // sees every child before its parent.
        for (int id = snodes.size() - 1; id >= 0; id--) {
            SNode node = snodes.get(id);
            hasField[id] |= !node.fields().isEmpty();
            if (!hasField[id]) {
                String detail = node.kind() == NodeKind.ROOT ? "the layout declares no field" : "";
                throw new LayoutException(LayoutRule.NO_FIELD_BELOW, node.path(), detail);
            }
            if (node.parent() != null) {
                hasField[node.parent().id()] = true;
            }
        }
    }
}
