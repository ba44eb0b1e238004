package io.snode.runtime.internal.node;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The node unit of every SNode of one runtime, chosen once from the plan (the only place that
 * picks by kind), and the release of what lies inside one cell, which every unit's deactivation
 * needs for the nodes below it.
 */
public final class NodeUnits {
    private final Plan plan;
    private final NodeUnit[] byId;
    /** Per SNode id: whether a pointer or dynamic node lies anywhere below it. */
    private final boolean[] managedBelow;
    /**
     * Per bitmasked SNode id with a managed node below: the byte ranges of one of its cells that
     * hold no managed node's container ({@code [start, end)} pairs from the cell's start, in
     * order), what {@link #zeroCell} zeroes; null for the others, whose whole cell is zeroed.
     */
    private final long[][] unmanagedRanges;
    private final TableSource tableSource;

    /**
     * Reserves a hash node's table as an activation does ({@code NodeTree.reserveTable}: the
     * allocation probe sees the request, the memory cap may refuse it).
     */
    @FunctionalInterface
    public interface TableSource {
        long reserve(SNode owner, HashTables tables, int capacity);
    }

    /**
     * @param cells       per SNode id: the allocator of a pointer's child cells or of a dynamic's
     *                    element chunks; null for other kinds
     * @param directories per SNode id: the allocator of a dynamic's directory blocks, else null
     * @param tables      per SNode id: a hash node's tables, else null
     * @param tableSource where a hash node's deactivation takes the smaller table it shrinks to
     */
    public NodeUnits(Plan plan, CheckedCells[] cells, CheckedCells[] directories, HashTables[] tables,
                     TableSource tableSource) {
        this.plan = plan;
        this.tableSource = tableSource;
        List<SNodePlan> nodes = plan.nodes();
        this.byId = new NodeUnit[nodes.size()];
        this.managedBelow = new boolean[nodes.size()];
        for (SNodePlan node : nodes) {
            byId[node.id()] = switch (node.kind()) {
                case ROOT -> null;
                case DENSE -> new DenseUnit(node, this);
                case BITMASKED -> new BitmaskedUnit(node, this);
                case POINTER -> new PointerUnit(node, this, cells[node.id()]);
                case HASH -> new HashUnit(node, this, cells[node.id()], tables[node.id()]);
                case DYNAMIC -> new DynamicUnit(node, this, cells[node.id()], directories[node.id()]);
            };
        }
        for (int id = nodes.size() - 1; id >= 0; id--) {
            for (SNode child : nodes.get(id).snode().children()) {
                managedBelow[id] |= plan.node(child).hasNodeManager() || managedBelow[child.id()];
            }
        }
        this.unmanagedRanges = new long[nodes.size()][];
        for (SNodePlan node : nodes) {
            if (managedBelow[node.id()] && node.kind() == NodeKind.BITMASKED) { // the only kind zeroCell serves
                unmanagedRanges[node.id()] = unmanagedRanges(node);
            }
        }
    }

    /** The complement, within one cell of {@code node}, of the containers of the managed nodes below it. */
    private long[] unmanagedRanges(SNodePlan node) {
        List<long[]> managed = new ArrayList<>();
        managedContainers(node, 0, managed);
        managed.sort((a, b) -> Long.compare(a[0], b[0]));
        List<Long> ranges = new ArrayList<>();
        long at = 0;
        for (long[] container : managed) {
            if (container[0] > at) {
                ranges.add(at);
                ranges.add(container[0]);
            }
            at = Math.max(at, container[1]);
        }
        if (at < node.cellBytes()) {
            ranges.add(at);
            ranges.add(node.cellBytes());
        }
        return ranges.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Adds to {@code out} the byte ranges of the managed nodes' containers (pointer words, list
     * and hash headers) inside the cell of {@code node} that starts at byte {@code cell}, through
     * the dense and bitmasked levels in between, as {@link #releaseBelow} visits them, and the
     * mask words of those bitmasked levels in between (what {@link #zeroCell} leaves as well).
     */
    private void managedContainers(SNodePlan node, long cell, List<long[]> out) {
        List<SNode> children = node.snode().children();
        for (int n = 0; n < children.size(); n++) {
            SNodePlan child = plan.node(children.get(n));
            long container = cell + node.childContainerOffset(n);
            if (child.hasNodeManager()) {
                out.add(new long[] {container, container + child.containerBytes()});
            } else if (managedBelow[child.id()]) {
                if (child.kind() == NodeKind.BITMASKED) {
                    // Its mask words: the release clears each bit it releases below; see zeroCell.
                    out.add(new long[] {container, container + child.cellsOffset()});
                }
                for (long index = 0; index < child.cellCount(); index++) {
                    managedContainers(child, container + child.cellsOffset() + index * child.cellBytes(), out);
                }
            }
        }
    }

    /** A table for a hash node's shrink (see {@link TableSource}). */
    long reserveTable(SNode owner, HashTables tables, int capacity) {
        return tableSource.reserve(owner, tables, capacity);
    }

    /**
     * Zeroes the cell of {@code node} at (segment, cell), a bitmasked cell being deactivated,
     * after {@link #releaseBelow} released what lies below: every byte but the containers of
     * the managed nodes below, which the release left empty and refusing (pointer words
     * {@code RETIRED}, list and hash headers with their locks {@code LOCK_RETIRED}) for
     * activations and appends that walked in before the cell's bit was cleared. Zeroing those
     * too would open them to such a late call, which could then publish a chunk or a cell under
     * the inactive cell, where nothing would release it. A later activation of the cell reopens
     * them as it meets them (the node units' {@code publish}, after
     * {@link ActivationRun#reachable}).
     *
     * <p>The mask words of a bitmasked level between the cell and those containers are left too:
     * the release cleared each of their bits with the deactivation of its cell, which releases
     * (and retires) what lies below that cell first. Zeroing them again here would clear a bit
     * behind a call that set this cell's bit again after the release, set the inner bit and
     * reopened a list or pointer word below it: the list would hold its element and chunk under
     * an inactive inner cell, and show them again when that cell is next activated (jcstress
     * {@code BitmaskedChildrenTest.NestedListAppend}; until the fifth session of 12-05 it did). A bit that a call
     * which walked in before the release sets after the release passed its cell stays set: that
     * cell is active, empty and its containers retired, as one the call had activated.
     */
    void zeroCell(SNodePlan node, MemorySegment segment, long cell) {
        long[] ranges = unmanagedRanges[node.id()];
        if (ranges == null) {
            segment.asSlice(cell, node.cellBytes()).fill((byte) 0);
            return;
        }
        for (int r = 0; r < ranges.length; r += 2) {
            segment.asSlice(cell + ranges[r], ranges[r + 1] - ranges[r]).fill((byte) 0);
        }
    }

    /** The unit of {@code snode}; the root, which is no path step, has none. */
    public NodeUnit unit(SNode snode) {
        NodeUnit unit = byId[snode.id()];
        if (unit == null) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is the root; it has no container");
        }
        return unit;
    }

    /** Whether a managed node (pointer, hash, dynamic) lies below {@code node}. */
    boolean hasManagedBelow(SNodePlan node) {
        return managedBelow[node.id()];
    }

    /** Recycles every pointer child and dynamic list inside the cell of {@code node} at (segment, cell). */
    void releaseBelow(SNodePlan node, MemorySegment segment, long cell) {
        if (!managedBelow[node.id()]) {
            return;
        }
        List<SNode> children = node.snode().children();
        for (int n = 0; n < children.size(); n++) {
            NodeUnit child = byId[children.get(n).id()];
            if (!child.node.hasNodeManager() && !managedBelow[child.node.id()]) {
                continue; // nothing managed below; a bitmasked child is zeroed with the enclosing cell
            }
            child.release(segment, cell + node.childContainerOffset(n), true);
        }
    }

    Plan plan() {
        return plan;
    }
}
