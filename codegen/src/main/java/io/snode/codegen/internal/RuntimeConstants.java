package io.snode.codegen.internal;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.internal.emit.PathWalk;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;

/**
 * What the constants of the layout, accessor and walk classes are, one line each with the
 * numbers they follow from ({@link io.snode.codegen.internal.emit.ClassEmitter#constantNotes}): the
 * runtime objects they load from their class data, and the one number the class file holds, a
 * region's zero cell. The plan gives every other number in the generated code (cell and
 * container bytes, strides, shifts); these lines give what the plan cannot, because it depends
 * on the runtime the layout was compiled into (its memory cap, whether native access is on).
 */
final class RuntimeConstants {
    private RuntimeConstants() {
    }

    static String structure(String runtimeName) {
        return "the node tree of " + runtimeName + ": activation, deactivation, collection, and the change"
                + " count that launches compare";
    }

    static String root(SNodePlan root) {
        return "the root container, " + root.containerBytes() + " B (snode 0 of the plan), allocated when the"
                + " layout was compiled";
    }

    static String snode(SNode snode) {
        return "snode " + snode.id() + " of the plan, " + snode.path() + ", as calls into the runtime and messages name it";
    }

    /** The node manager of {@code node}'s child cells (pointer, hash) or list chunks (dynamic). */
    static String cells(SNodePlan node) {
        return "the node manager of " + managed(node) + ": it gives the memory of "
                + (node.kind() == NodeKind.DYNAMIC ? "a chunk reference" : "a cell index (an active word minus 1)")
                + " and refuses one it never handed out";
    }

    static String region(SNodePlan node, CheckedCells cells) {
        return "the region of address space holding the cells of CELLS_" + node.id() + ": " + cells.region().byteSize()
                + " B reserved, cell c at c * " + cells.cellStride() + " B, pages committed when first written";
    }

    static String zeroCell(SNodePlan node, CheckedCells cells) {
        return "the offset in REGION_" + node.id() + " of its zero cell, " + cells.manager().maxCells() + " cells * "
                + cells.cellStride() + " B (the cells of the whole chunks the region holds with one cell to spare):"
                + " one cell past every cell the region hands out, never written, so it reads zero; reads of an"
                + " inactive cell of " + node.snode().path() + " land there";
    }

    static String ambient(SNodePlan node) {
        return "a cell of zeros that reads of an inactive cell of " + node.snode().path() + " land on";
    }

    static String directories(SNodePlan node) {
        return "the directory blocks of " + node.snode().path() + "'s lists: chunk references past the inline"
                + " ones, " + node.directoryTopFanout() + " x " + node.directoryLeafFanout() + " (the plan's directory)";
    }

    static String tables(SNodePlan node) {
        return "the hash tables of " + node.snode().path() + "'s cells: where each key's child lies";
    }

    /** What a cell of {@code node}'s node manager is: a child container or a list chunk, with its bytes. */
    private static String managed(SNodePlan node) {
        long bytes = PathWalk.managedCellBytes(node);
        return node.kind() == NodeKind.DYNAMIC
                ? "the chunks of " + node.snode().path() + "'s lists (" + bytes + " B each, the plan's chunk)"
                : "the children of " + node.snode().path() + "'s cells (" + bytes + " B each, the plan's cell:"
                        + " the container below an active cell)";
    }
}
