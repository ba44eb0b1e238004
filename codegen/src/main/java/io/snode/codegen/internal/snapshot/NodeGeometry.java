package io.snode.codegen.internal.snapshot;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import java.util.List;

/**
 * What a snapshot needs to know of one SNode, computed once from the plan: its index axes, how a
 * record's base maps to its parent's coordinates, how a cell index of a container becomes
 * coordinates, the bytes of a cell that hold fields, and the size of a record.
 */
final class NodeGeometry {
    final SNode snode;
    final SNodePlan plan;
    final NodeKind kind;
    final int arity;
    /** The SNode's size on each of its index axes (1 where it does not consume the axis). */
    final int[] sizes;
    /** The parent's extent on each of the SNode's index axes: the bound of a base coordinate. */
    final int[] baseBounds;
    final int[] shape;
    /** For each of the parent's index axes: its position among the SNode's. */
    final int[] parentPositions;
    /** Offset of this SNode's container inside a cell of its parent. */
    final long containerOffset;
    final long cellBytes;
    final long cellCount;
    final int maskWords;
    /** Per own axis: its position among the index axes, its stride in the cell index, its size. */
    private final int[] ownPositions;
    private final long[] ownStrides;
    private final int[] ownSizes;
    /** A dynamic node's list axis position, else -1. */
    final int listPosition;

    private final long fieldBytes;

    NodeGeometry(Plan plans, SNode snode) {
        this.snode = snode;
        this.plan = plans.node(snode);
        this.kind = snode.kind();
        List<Axis> axes = snode.indexAxes();
        this.arity = axes.size();
        this.shape = snode.indexShape();
        this.sizes = new int[arity];
        this.baseBounds = new int[arity];
        SNode parent = snode.parent();
        for (int n = 0; n < arity; n++) {
            sizes[n] = snode.size(axes.get(n));
            baseBounds[n] = parent == null ? 1 : parent.extent(axes.get(n));
        }
        if (parent == null) {
            parentPositions = new int[0];
            containerOffset = 0;
        } else {
            List<Axis> parentAxes = parent.indexAxes();
            parentPositions = new int[parentAxes.size()];
            for (int m = 0; m < parentPositions.length; m++) {
                parentPositions[m] = axes.indexOf(parentAxes.get(m));
            }
            containerOffset = plans.node(parent).childContainerOffset(parent.children().indexOf(snode));
        }
        this.cellBytes = plan.cellBytes();
        this.cellCount = plan.cellCount();
        this.maskWords = kind == NodeKind.BITMASKED || kind == NodeKind.POINTER
                ? (int) BitmaskWords.words(cellCount) : 0;
        List<Axis> own = snode.axes().list();
        this.ownPositions = new int[own.size()];
        this.ownStrides = new long[own.size()];
        this.ownSizes = snode.sizes();
        for (int j = 0; j < own.size(); j++) {
            ownPositions[j] = axes.indexOf(own.get(j));
            ownStrides[j] = plan.stride(j);
        }
        this.listPosition = kind == NodeKind.DYNAMIC ? axes.indexOf(own.get(0)) : -1;
        this.fieldBytes = fieldBytes(plan, snode);
    }

    private static long fieldBytes(SNodePlan plan, SNode snode) {
        if (snode.fields().isEmpty()) {
            return 0;
        }
        if (snode.children().isEmpty()) {
            return plan.cellBytes(); // the whole cell: one copy per block
        }
        long end = 0;
        for (PlacedField field : snode.fields()) {
            end = Math.max(end, plan.fieldOffset(field.slot()) + field.type().byteSize());
        }
        return end;
    }

    /** Bytes of a cell that a snapshot keeps: the whole cell without children, else the fields before the child containers. */
    long fieldBytes() {
        return fieldBytes;
    }

    /** Whether a cell's kept bytes are the whole cell, so that a block's cells are one piece. */
    boolean wholeCells() {
        return fieldBytes == cellBytes;
    }

    /** Bytes of a record's fixed part: the base, the mask, and the encoding byte of a bitmasked node. */
    long recordHeadBytes() {
        return 4L * arity + 8L * maskWords + (kind == NodeKind.BITMASKED ? 1 : 0);
    }

    /** The parent cell's coordinates from a record's base at {@code base[at ...]}. */
    int[] parentCoordinates(int[] base, int at) {
        int[] parent = new int[parentPositions.length];
        for (int m = 0; m < parent.length; m++) {
            parent[m] = base[at + parentPositions[m]];
        }
        return parent;
    }

    /** The coordinates of cell {@code index} of the container whose parent cell is {@code base}. */
    void cellCoordinates(int[] base, long index, int[] to) {
        for (int n = 0; n < arity; n++) {
            to[n] = base[n] * sizes[n];
        }
        for (int j = 0; j < ownPositions.length; j++) {
            to[ownPositions[j]] += (int) ((index / ownStrides[j]) % ownSizes[j]);
        }
    }

    /** The base of the container that holds the cell at {@code coordinates} (the inverse of {@link #cellCoordinates}). */
    int[] containerBase(int[] coordinates) {
        int[] base = new int[arity];
        for (int n = 0; n < arity; n++) {
            base[n] = coordinates[n] / sizes[n];
        }
        return base;
    }

    /** The index in its container of the cell at {@code coordinates} (the inverse of {@link #cellCoordinates}). */
    long cellIndex(int[] coordinates) {
        long index = 0;
        for (int j = 0; j < ownPositions.length; j++) {
            index += (coordinates[ownPositions[j]] % ownSizes[j]) * ownStrides[j];
        }
        return index;
    }

    /** Bytes of a dense record: its base and every cell's kept bytes. */
    long denseRecordBytes() {
        return recordHeadBytes() + cellCount * fieldBytes;
    }

    @Override
    public String toString() {
        return snode.path();
    }
}
