package io.snode.codegen.internal;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CellManager;
import io.snode.runtime.internal.Structure;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The snapshot a struct-for launch iterates: every active cell of the target's parent (a
 * <em>block</em>: one container of the target), with the parent cell's coordinates and, taken at
 * the same moment, which cells of the container are active (a copy of the bitmask or of the
 * pointer words' activity; a dynamic list's length). Cells activated after the snapshot are not
 * in it, which is what a launch promises.
 */
public final class ActiveBlocks {
    /**
     * One container of the target.
     *
     * @param segment   memory of the parent cell
     * @param container byte offset of the target's container in {@code segment}
     * @param base      the parent cell's coordinates, in the target's index axes (0 on axes the
     *                  target adds)
     * @param mask      active cells for bitmasked and pointer targets (bit n: cell n), else null
     * @param length    a dynamic target's length, else its cell count
     */
    public record Block(MemorySegment segment, long container, int[] base, long[] mask, long length) {
        /** Number of cells of this block the launch visits. */
        public long activeCells() {
            if (mask == null) {
                return length;
            }
            long count = 0;
            for (long word : mask) {
                count += Long.bitCount(word);
            }
            return count;
        }
    }

    private final Structure structure;
    private final SNode target;
    private final List<SNode> chain;
    private final Axis[] targetAxes;
    private final List<Block> blocks = new ArrayList<>();

    private ActiveBlocks(Structure structure, SNode target) {
        this.structure = structure;
        this.target = target;
        this.chain = target.ancestry();
        this.targetAxes = target.indexAxes().toArray(new Axis[0]);
    }

    /** The blocks of {@code target} active now, in tree order. */
    public static List<Block> of(Structure structure, SNode target) {
        if (target.kind() == NodeKind.ROOT) {
            throw new IllegalArgumentException("snode=root has one cell and no coordinates; read its fields directly");
        }
        ActiveBlocks walk = new ActiveBlocks(structure, target);
        walk.visit(0, structure.root(), 0, new int[Axis.MAX_AXES]);
        return walk.blocks;
    }

    /** At the cell of chain[level] with coordinates {@code at} (by axis ordinal). */
    private void visit(int level, MemorySegment segment, long cell, int[] at) {
        SNode node = chain.get(level);
        SNode child = chain.get(level + 1);
        SNodePlan childPlan = structure.plan().node(child);
        long container = cell + structure.plan().node(node).childContainerOffset(node.children().indexOf(child));
        if (child == target) {
            blocks.add(snapshot(childPlan, segment, container, at));
            return;
        }
        int[] sizes = child.sizes();
        List<Axis> axes = child.axes().list();
        switch (child.kind()) {
            case DENSE -> {
                for (long index = 0; index < childPlan.cellCount(); index++) {
                    visit(level + 1, segment, container + index * childPlan.cellBytes(), descend(at, axes, sizes, childPlan, index));
                }
            }
            case BITMASKED -> {
                for (long word = 0; word * 64 < childPlan.cellCount(); word++) {
                    long bits = Atomics.getAcquire(segment, container + word * Long.BYTES);
                    while (bits != 0) {
                        long index = word * 64 + Long.numberOfTrailingZeros(bits);
                        bits &= bits - 1;
                        visit(level + 1, segment, container + childPlan.cellsOffset() + index * childPlan.cellBytes(),
                                descend(at, axes, sizes, childPlan, index));
                    }
                }
            }
            case POINTER -> {
                CellManager cells = structure.cells(child);
                for (long index = 0; index < childPlan.cellCount(); index++) {
                    long word = Atomics.getAcquire(segment, container + index * PointerWord.BYTES);
                    if (PointerWord.isActive(word)) {
                        long childCell = PointerWord.cellIndex(word);
                        visit(level + 1, cells.segment(childCell), cells.offset(childCell),
                                descend(at, axes, sizes, childPlan, index));
                    }
                }
            }
            case DYNAMIC, ROOT -> throw new AssertionError("a dynamic node is terminal; the root is not a child");
        }
    }

    /** The coordinates of cell {@code index} of a child container whose parent cell is at {@code at}. */
    private static int[] descend(int[] at, List<Axis> axes, int[] sizes, SNodePlan plan, long index) {
        int[] child = at.clone();
        for (int n = 0; n < axes.size(); n++) {
            int local = (int) ((index / plan.stride(n)) % sizes[n]);
            int ordinal = axes.get(n).ordinal();
            child[ordinal] = child[ordinal] * sizes[n] + local;
        }
        return child;
    }

    private Block snapshot(SNodePlan plan, MemorySegment segment, long container, int[] at) {
        int[] base = new int[targetAxes.length];
        for (int n = 0; n < base.length; n++) {
            base[n] = at[targetAxes[n].ordinal()];
        }
        return switch (plan.kind()) {
            case DENSE -> new Block(segment, container, base, null, plan.cellCount());
            case BITMASKED -> {
                long[] mask = new long[(int) ((plan.cellCount() + 63) / 64)];
                for (int word = 0; word < mask.length; word++) {
                    mask[word] = Atomics.getAcquire(segment, container + (long) word * Long.BYTES);
                }
                yield new Block(segment, container, base, mask, plan.cellCount());
            }
            case POINTER -> {
                long[] mask = new long[(int) ((plan.cellCount() + 63) / 64)];
                for (long index = 0; index < plan.cellCount(); index++) {
                    if (PointerWord.isActive(Atomics.getAcquire(segment, container + index * PointerWord.BYTES))) {
                        mask[(int) (index >>> 6)] |= 1L << index;
                    }
                }
                yield new Block(segment, container, base, mask, plan.cellCount());
            }
            case DYNAMIC -> new Block(segment, container, base, null,
                    Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET));
            case ROOT -> throw new AssertionError();
        };
    }
}
