package io.snode.runtime.internal.node;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;
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
     * @param cells       per SNode id: the allocator of a pointer's child cells or of a dynamic's
     *                    element chunks; null for other kinds
     * @param directories per SNode id: the allocator of a dynamic's directory blocks, else null
     * @param tables      per SNode id: a hash node's tables, else null
     */
    public NodeUnits(Plan plan, CheckedCells[] cells, CheckedCells[] directories, HashTables[] tables) {
        this.plan = plan;
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
    }

    /** The unit of {@code snode}; the root, which is no path step, has none. */
    public NodeUnit unit(SNode snode) {
        NodeUnit unit = byId[snode.id()];
        if (unit == null) {
            throw new IllegalArgumentException("snode=" + snode.path() + " is the root; it has no container");
        }
        return unit;
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
