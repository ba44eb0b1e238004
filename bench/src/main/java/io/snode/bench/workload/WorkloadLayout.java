package io.snode.bench.workload;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.Plan;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A layout checked for the workloads of {@code WORKLOADS.md}, and what they use of it: L1, L2 or
 * any layout text given to {@code ./snode bench --structure}.
 *
 * <p>What a layout must have: an {@code f32} field {@code phi} on axes i, j, k, placed on a
 * dense or bitmasked node (the <em>leaf</em>), with an extent of at least {@value #DOMAIN} on
 * every axis (the workloads' domain; the band's voxels lie between 622 and 1426), and within
 * the runtime's size rules ({@link Plan#of}). What follows from it:
 *
 * <ul>
 *   <li>A bitmasked leaf activates each voxel written ({@link DataSet.Activity#VOXEL}, as L2).
 *   <li>A dense leaf activates a whole block: the cell of the nearest sparse node above it
 *       ({@link DataSet.Activity#BLOCK}, as L1). The reference checksums count 8^3 blocks (W3's
 *       count is 512 per block, WORKLOADS.md), so that cell must hold 8 x 8 x 8 voxels; any
 *       other block is refused, with the block the layout has.
 *   <li>W4 deletes the 8^3 blocks whose lowest i is below 1024: it deactivates the cells of the
 *       nearest sparse node above the leaf whose cells hold 8 x 8 x 8 voxels (L1 and L2: the
 *       inner pointer). A layout without one (a bitmasked leaf of another size under dense
 *       nodes, say) takes no part in W4.
 *   <li>W6 and W6v run on a particle layout of their own ({@link Layouts#PARTICLES}) with L1
 *       only; every other layout takes no part in them.
 * </ul>
 *
 * Every rule a layout breaks gives an {@link IllegalArgumentException} that says what is
 * required and what the layout has.
 */
public final class WorkloadLayout {
    /** The field every workload writes and reads. */
    public static final String FIELD = "phi";
    /** The smallest extent on i, j and k: WORKLOADS.md's domain, 2048^3. */
    public static final int DOMAIN = 2048;

    private static final List<Axis> IJK = List.of(Axis.I, Axis.J, Axis.K);

    private final Layout layout;
    private final SNode leaf;
    private final DataSet.Activity activity;
    private final SNode blocks;
    private final boolean particles;
    private final Map<Workload, String> notApplicable;

    private WorkloadLayout(Layout layout, SNode leaf, DataSet.Activity activity, SNode blocks, boolean particles) {
        this.layout = layout;
        this.leaf = leaf;
        this.activity = activity;
        this.blocks = blocks;
        this.particles = particles;
        Map<Workload, String> skipped = new EnumMap<>(Workload.class);
        if (blocks == null) {
            skipped.put(Workload.W4, "W4 deletes 8^3 blocks, and no sparse node above " + leaf.description()
                    + " has cells of 8 x 8 x 8 voxels");
        }
        if (!particles) {
            String why = "W6's particle lists are a layout of their own, run with L1";
            skipped.put(Workload.W6, why);
            skipped.put(Workload.W6V, why);
        }
        this.notApplicable = Collections.unmodifiableMap(skipped);
    }

    /** L1 or L2, which run W6 ({@code particles}) or not. */
    static WorkloadLayout reference(Layout layout, boolean particles) {
        return check(layout, particles);
    }

    /**
     * Parses a layout text with the api's parser and checks it for the workloads (it takes no
     * part in W6).
     *
     * @throws IllegalArgumentException when the text does not parse (the parser's message, first
     *     line: its column and what it expected), breaks a layout rule, or lacks what the
     *     workloads need
     */
    public static WorkloadLayout parse(String text) {
        Layout layout;
        try {
            layout = Layout.parse(text);
        } catch (IllegalArgumentException e) {
            throw notALayout(text, e);
        }
        WorkloadLayout checked = check(layout, false);
        try {
            Plan.of(layout); // the size rules, before anything is compiled or allocated
        } catch (IllegalArgumentException e) {
            throw notALayout(text, e);
        }
        return checked;
    }

    private static IllegalArgumentException notALayout(String text, IllegalArgumentException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
        return new IllegalArgumentException("layout=" + text.strip() + " is not a layout: " + message, e);
    }

    private static WorkloadLayout check(Layout layout, boolean particles) {
        PlacedField phi = layout.fields().stream().filter(f -> f.name().equals(FIELD)).findFirst()
                .orElseThrow(() -> bad(layout, "it has no field " + FIELD + "; its fields are " + fields(layout)));
        SNode leaf = phi.snode();
        if (phi.type() != FieldType.F32 || !phi.axes().equals(IJK)) {
            throw bad(layout, "its phi is " + phi.type() + " on " + axes(phi.axes()) + " ("
                    + phi.axes().size() + "-D)");
        }
        if (leaf.kind() != NodeKind.DENSE && leaf.kind() != NodeKind.BITMASKED) {
            throw bad(layout, "its phi is placed on " + leaf.description());
        }
        for (Axis axis : IJK) {
            if (leaf.extent(axis) < DOMAIN) {
                throw bad(layout, "its phi reaches " + extents(leaf));
            }
        }
        DataSet.Activity activity;
        SNode blocks;
        if (leaf.kind() == NodeKind.DENSE) {
            activity = DataSet.Activity.BLOCK;
            SNode sparse = leaf.parent();
            while (sparse != null && !sparse.kind().isSparse()) {
                sparse = sparse.parent();
            }
            if (sparse == null) {
                throw bad(layout, "a dense leaf needs a sparse node above it (its cells are the blocks that activate);"
                        + " no node above " + leaf.description() + " is sparse");
            }
            if (!holds8Cubed(sparse, leaf)) {
                throw bad(layout, "a dense leaf activates whole blocks, and the reference checksums count 8^3 blocks:"
                        + " the cells of " + sparse.description() + ", the sparse node above the leaf, must hold 8 x 8 x 8"
                        + " voxels; they hold " + edge(sparse, leaf, Axis.I) + " x " + edge(sparse, leaf, Axis.J)
                        + " x " + edge(sparse, leaf, Axis.K));
            }
            blocks = sparse;
        } else {
            activity = DataSet.Activity.VOXEL;
            blocks = null;
            for (SNode above = leaf.parent(); above != null && blocks == null; above = above.parent()) {
                if (above.kind().isSparse() && holds8Cubed(above, leaf)) {
                    blocks = above;
                }
            }
        }
        return new WorkloadLayout(layout, leaf, activity, blocks, particles);
    }

    private static boolean holds8Cubed(SNode above, SNode leaf) {
        for (Axis axis : IJK) {
            if (edge(above, leaf, axis) != DataSet.BLOCK) {
                return false;
            }
        }
        return true;
    }

    /** How many voxels on {@code axis} one cell of {@code above} holds. */
    private static int edge(SNode above, SNode leaf, Axis axis) {
        return leaf.extent(axis) / above.extent(axis);
    }

    private static IllegalArgumentException bad(Layout layout, String what) {
        return new IllegalArgumentException("layout=" + layout + " cannot run the workloads: they need an f32 field "
                + FIELD + " on i, j, k (3-D), placed on a dense or bitmasked node, reaching at least " + DOMAIN
                + " on each axis (WORKLOADS.md's domain); " + what);
    }

    private static String fields(Layout layout) {
        List<String> all = new ArrayList<>();
        for (PlacedField field : layout.fields()) {
            all.add(field.type() + " " + field.name() + " on " + axes(field.axes()));
        }
        return String.join(", ", all);
    }

    private static String axes(List<Axis> axes) {
        StringBuilder text = new StringBuilder();
        axes.forEach(a -> text.append(a.letter()));
        return text.isEmpty() ? "no axis (0-D)" : text.toString();
    }

    private static String extents(SNode node) {
        StringBuilder text = new StringBuilder("[");
        for (Axis axis : IJK) {
            text.append(text.length() == 1 ? "" : ", ").append(axis.letter()).append('=').append(node.extent(axis));
        }
        return text.append(']').toString();
    }

    public Layout layout() {
        return layout;
    }

    /** The canonical text of the layout ({@link Layout#toString()}). */
    public String text() {
        return layout.toString();
    }

    /** The node {@code phi} is placed on: W3's block form and struct-for run over it. */
    public SNode leaf() {
        return leaf;
    }

    public DataSet.Activity activity() {
        return activity;
    }

    /** W4's node: its cells are the 8^3 blocks it deactivates; empty when the layout takes no part in W4. */
    public Optional<SNode> blocks() {
        return Optional.ofNullable(blocks);
    }

    /** Whether it runs W6 and W6v (L1 only). */
    public boolean particles() {
        return particles;
    }

    /** The workloads this layout takes no part in, each with why. */
    public Map<Workload, String> notApplicable() {
        return notApplicable;
    }

    /** One line on what the workloads use: the activity and W4's blocks. */
    public String describe() {
        if (activity == DataSet.Activity.BLOCK) {
            return "whole 8^3 blocks active, the cells of " + blocks.description() + " (as L1); W4 deactivates them";
        }
        return "activity per voxel (a " + leaf.description() + " leaf, as L2)"
                + (blocks == null ? "" : "; W4 deactivates 8^3 blocks, the cells of " + blocks.description());
    }
}
