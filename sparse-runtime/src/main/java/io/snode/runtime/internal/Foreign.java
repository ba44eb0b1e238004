package io.snode.runtime.internal;

import io.snode.api.PlacedField;
import io.snode.api.SNode;

/**
 * The refusal of an SNode or field that belongs to another {@code Layout} object than the one a
 * runtime (or plan) was made from. Layouts compare by content, but SNodes and fields by
 * identity, so an equal layout's SNode (one parsed again, or the layout a snapshot's runtime
 * compiled) is refused too: the message says so and names the way to the runtime's own.
 */
public final class Foreign {
    private Foreign() {
    }

    /** "snode=PATH is not from WHOSE layout (...)" with the hint. */
    public static IllegalArgumentException snode(SNode snode, String whose) {
        return new IllegalArgumentException("snode=" + snode.path() + " is not from " + whose + " layout (an SNode of"
                + " another Layout object; where the two layouts are equal, take the SNode from " + whose
                + " own: layout().snode(" + snode.id() + "))");
    }

    /** "field=NAME is not from WHOSE layout (...)" with the hint. */
    public static IllegalArgumentException field(PlacedField field, String whose) {
        return new IllegalArgumentException("field=" + field.name() + " is not from " + whose + " layout (a field of"
                + " another Layout object; where the two layouts are equal, take the field from " + whose
                + " own: layout().field(\"" + field.name() + "\"))");
    }
}
