package io.snode.api;

import java.util.List;

/**
 * A field as placed in a built layout: its name and type, the node that holds it, and its
 * coordinates. A field's axes are those of its node's index space, in axis order; its shape is
 * the extent on each of them. Fields placed on the root have no axes (0-D scalars).
 */
public final class PlacedField {
    private final Field field;
    private final SNode snode;
    private final int slot;

    PlacedField(Field field, SNode snode, int slot) {
        this.field = field;
        this.snode = snode;
        this.slot = slot;
    }

    public String name() {
        return field.name();
    }

    public FieldType type() {
        return field.type();
    }

    public Field field() {
        return field;
    }

    /** The node the field is placed on. */
    public SNode snode() {
        return snode;
    }

    /** Position among the fields of its node, which is its order inside a cell (AoS). */
    public int slot() {
        return slot;
    }

    /** Number of coordinates a value of this field takes. */
    public int dimensionality() {
        return snode.indexAxes().size();
    }

    /** The axes of its coordinates, in order. */
    public List<Axis> axes() {
        return snode.indexAxes();
    }

    /** The declared extent on each axis, in the order of {@link #axes()}. */
    public int[] shape() {
        return snode.indexShape();
    }

    /** The nodes from the root down to the one holding this field. */
    public List<SNode> path() {
        return snode.ancestry();
    }

    @Override
    public String toString() {
        return field + " at " + snode.path();
    }
}
