package io.snode.runtime;

import io.snode.api.Axis;
import io.snode.api.Layout;
import io.snode.api.LayoutException;
import io.snode.api.LayoutRule;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.internal.Foreign;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The memory plan of a layout: a {@link SNodePlan} per SNode and, per SNode, the
 * {@link PathStep}s that take the coordinates of that SNode's index space down from the root
 * cell to its cell. Immutable; the one source of every constant later stages use.
 */
public final class Plan {
    private final Layout layout;
    private final SNodePlan[] nodes;
    private final List<List<PathStep>> paths;

    private Plan(Layout layout) {
        this.layout = layout;
        List<SNode> snodes = layout.snodes();
        this.nodes = new SNodePlan[snodes.size()];
        // Cells contain their children's containers: compute bottom-up (reverse pre-order).
        for (int id = snodes.size() - 1; id >= 0; id--) {
            nodes[id] = planCell(snodes.get(id));
        }
        List<List<PathStep>> steps = new ArrayList<>(snodes.size());
        for (SNode node : snodes) {
            steps.add(List.copyOf(pathTo(node)));
        }
        this.paths = List.copyOf(steps);
    }

    /**
     * Plans {@code layout}'s memory. Allocates nothing.
     *
     * @throws LayoutException when a size does not fit a {@code long} ({@link LayoutRule#SIZE_OVERFLOW})
     *         or a container, cell or list chunk is larger than the largest chunk of the memory pool
     *         ({@link LayoutRule#CONTAINER_TOO_LARGE}, {@link LayoutRule#DYNAMIC_CHUNK_TOO_LARGE})
     */
    public static Plan of(Layout layout) {
        return new Plan(Objects.requireNonNull(layout, "layout"));
    }

    public Layout layout() {
        return layout;
    }

    public SNodePlan node(int id) {
        if (id < 0 || id >= nodes.length) {
            throw new IndexOutOfBoundsException("snode id=" + id + " is outside 0.." + (nodes.length - 1)
                    + " of layout " + layout);
        }
        return nodes[id];
    }

    public SNodePlan node(SNode snode) {
        Objects.requireNonNull(snode, "snode");
        if (snode.id() >= nodes.length || nodes[snode.id()].snode() != snode) {
            throw Foreign.snode(snode, "this plan's");
        }
        SNodePlan plan = nodes[snode.id()];
        return plan;
    }

    public List<SNodePlan> nodes() {
        return List.of(nodes);
    }

    /**
     * The steps from the root's children down to {@code snode}, each taking that level's cell
     * index from coordinates in {@code snode}'s index space. Empty for the root.
     */
    public List<PathStep> path(SNode snode) {
        return paths.get(node(snode).id());
    }

    /** The steps to the node that holds {@code field}. */
    public List<PathStep> path(PlacedField field) {
        return path(Objects.requireNonNull(field, "field").snode());
    }

    /** The plan of every SNode, root first, as printed by {@code snode inspect}. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (SNodePlan node : nodes) {
            text.append(node);
            for (PathStep step : paths.get(node.id())) {
                text.append("  path ").append(step).append(System.lineSeparator());
            }
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return "Plan[" + layout + "]";
    }

    /**
     * Plans the cell of {@code snode}, whose children are planned already, and checks the size
     * rules on it. Sizes are computed exactly; because every child passed the container rule
     * first, only this node's own product of cells and cell bytes can overflow.
     */
    private SNodePlan planCell(SNode snode) {
        SNodePlan plan;
        try {
            long offset = 0;
            int alignment = 1;
            long[] fieldOffsets = new long[snode.fields().size()];
            for (PlacedField field : snode.fields()) {
                int size = field.type().byteSize();
                offset = align(offset, size);
                fieldOffsets[field.slot()] = offset;
                offset = Math.addExact(offset, size);
                alignment = Math.max(alignment, size);
            }
            long[] childOffsets = new long[snode.children().size()];
            for (int n = 0; n < childOffsets.length; n++) {
                SNodePlan child = nodes[snode.children().get(n).id()];
                int childAlignment = containerAlignment(child);
                offset = align(offset, childAlignment);
                childOffsets[n] = offset;
                offset = Math.addExact(offset, child.containerBytes());
                alignment = Math.max(alignment, childAlignment);
            }
            long cellBytes = Math.max(align(offset, alignment), alignment);
            plan = new SNodePlan(snode, cellBytes, alignment, fieldOffsets, childOffsets);
        } catch (ArithmeticException e) {
            throw new LayoutException(LayoutRule.SIZE_OVERFLOW, snode.path(),
                    "its cells or its container take more than " + Long.MAX_VALUE + " bytes");
        }
        checkSizes(plan);
        return plan;
    }

    /**
     * The container rule: every piece of memory whose size the index space fixes is at most the
     * largest chunk of the memory pool. The pieces are the root cell (one allocation), a dense or
     * bitmasked container (inside its parent's cell), a pointer node's container (its words,
     * inside its parent's cell) and one of its cells (one node-manager cell), a hash node's
     * cell (its container is a 16-byte header whatever the index space; its tables grow with
     * the active cells, at most {@link HashHeader#MAX_CAPACITY} entries), and a dynamic
     * node's chunk (one node-manager cell). With these bounded, no request this layout makes
     * to the pool is larger than {@link LayoutRule#MAX_CONTAINER_BYTES}.
     */
    private static void checkSizes(SNodePlan plan) {
        long max = LayoutRule.MAX_CONTAINER_BYTES;
        String path = plan.snode().path();
        boolean containerInCell = plan.kind() != NodeKind.ROOT && plan.kind() != NodeKind.DYNAMIC;
        if (containerInCell && plan.containerBytes() > max) {
            throw new LayoutException(LayoutRule.CONTAINER_TOO_LARGE, path,
                    "container=" + plan.containerBytes() + " bytes: " + plan.containerContents());
        }
        if (plan.cellIsAllocated() && plan.cellBytes() > max) {
            throw new LayoutException(LayoutRule.CONTAINER_TOO_LARGE, path, "cell=" + plan.cellBytes() + " bytes ("
                    + (plan.kind() == NodeKind.ROOT ? "the root cell" : "one cell") + " holds the containers of its children)");
        }
        if (plan.chunkBytes() > max) {
            throw new LayoutException(LayoutRule.DYNAMIC_CHUNK_TOO_LARGE, path, "chunk="
                    + plan.chunkSize() + " elements of " + plan.cellBytes() + " bytes = " + plan.chunkBytes()
                    + " bytes; declare a smaller chunk, dynamic(axis,capacity,chunk)");
        }
        if (plan.kind() == NodeKind.DYNAMIC) {
            checkDirectory(plan);
        }
    }

    /**
     * Every chunk of a full list has a reference slot: inline, or in the two-level directory.
     * A capacity below 2^31 always fits (at most 2^16 x 2^15 directory slots, blocks of at most
     * 512 KiB), so a miss here is a bug in the fan-out arithmetic.
     */
    private static void checkDirectory(SNodePlan plan) {
        long slots = DynamicHeader.INLINE_CHUNKS + (long) plan.directoryTopFanout() * plan.directoryLeafFanout();
        long blockBytes = (long) Math.max(plan.directoryTopFanout(), plan.directoryLeafFanout()) * Long.BYTES;
        if (slots < plan.maxChunks() || blockBytes > LayoutRule.MAX_CONTAINER_BYTES) {
            throw new AssertionError(plan.snode().path() + ": directory of " + plan.directoryTopFanout() + " x "
                    + plan.directoryLeafFanout() + " cannot address " + plan.maxChunks() + " chunks");
        }
    }

    /** A dense container is its cells; every other one starts with 64-bit words (mask, pointer words, list header). */
    private static int containerAlignment(SNodePlan child) {
        return child.kind() == NodeKind.DENSE ? child.cellAlignment() : 8;
    }

    private static long align(long offset, int alignment) {
        return Math.addExact(offset, alignment - 1) & -alignment;
    }

    private List<PathStep> pathTo(SNode target) {
        List<Axis> coordinates = target.indexAxes();
        List<SNode> chain = target.ancestry();
        List<PathStep> steps = new ArrayList<>();
        for (int level = 1; level < chain.size(); level++) {
            SNode node = chain.get(level);
            SNodePlan plan = nodes[node.id()];
            List<Axis> axes = node.axes().list();
            AxisSplit[] splits = new AxisSplit[axes.size()];
            for (int n = 0; n < axes.size(); n++) {
                Axis axis = axes.get(n);
                long divisor = 1;
                for (int below = level + 1; below < chain.size(); below++) {
                    // At most the axis's extent, below 2^31 (LayoutRule.EXTENT_TOO_LARGE).
                    divisor = Math.multiplyExact(divisor, chain.get(below).size(axis));
                }
                splits[n] = new AxisSplit(axis, coordinates.indexOf(axis), divisor, node.size(axis), plan.stride(n));
            }
            int childIndex = node.parent().children().indexOf(node);
            long containerOffset = nodes[node.parent().id()].childContainerOffset(childIndex);
            steps.add(new PathStep(plan, containerOffset, List.of(splits)));
        }
        return steps;
    }
}
