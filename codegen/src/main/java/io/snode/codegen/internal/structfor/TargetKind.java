package io.snode.codegen.internal.structfor;

import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.codegen.internal.MaskCopy;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.node.PointerUnit;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * What struct-for does per kind of target, chosen once per snapshot or reduction ({@link #of}).
 * What a snapshot records of one block (one container of the target) besides its place: nothing
 * for a dense block (every cell is active), a copy of the bitmask and its bit count, the
 * activity of the pointer words and their count (scanned as {@link PointerUnit#forEachActive}
 * scans them), or a dynamic list's length; each read with acquire semantics (an acquire load, or
 * plain loads then an acquire fence), so the cells the block's kernels read afterwards are at
 * least as new as the activity recorded. And how a reduction finds the values of a block's cells
 * ({@link #values}, {@link BlockValues}).
 */
enum TargetKind {
    DENSE(NodeKind.DENSE) {
        @Override
        void record(ActiveBlocks blocks, int b, MemorySegment segment, long container) {
        }

        @Override
        void recordAll(ActiveBlocks blocks) {
        }
    },
    BITMASKED(NodeKind.BITMASKED) {
        @Override
        int maskWords(SNodePlan plan) {
            return wordsFor(plan);
        }

        @Override
        boolean copiedWhileEmitted() {
            return true;
        }

        @Override
        void record(ActiveBlocks blocks, int b, MemorySegment segment, long container) {
            int words = blocks.maskWords;
            blocks.counts[b] = MaskCopy.copy(segment, container, blocks.masks, b * words, words);
            VarHandle.acquireFence();
        }

        @Override
        void recordAll(ActiveBlocks blocks) {
            throw new AssertionError("bitmasks are copied while the blocks are emitted");
        }
    },
    POINTER(NodeKind.POINTER) {
        @Override
        int maskWords(SNodePlan plan) {
            return wordsFor(plan);
        }

        /** Mask and count of block {@code b} of a pointer target: which of its words are active. */
        @Override
        void record(ActiveBlocks blocks, int b, MemorySegment segment, long container) {
            long[] masks = blocks.masks;
            int words = blocks.maskWords;
            long cellCount = blocks.plan.cellCount();
            int count = 0;
            for (int w = 0; w < words; w++) {
                long first = (long) w * BitmaskWords.BITS;
                long mask = PointerUnit.activeMask(segment, container + PointerWord.wordOffset(first),
                        (int) Math.min(BitmaskWords.BITS, cellCount - first));
                masks[b * words + w] = mask;
                count += Long.bitCount(mask);
            }
            VarHandle.acquireFence();
            blocks.counts[b] = count;
        }

        @Override
        BlockValues values(NodeTree structure, SNodePlan plan, PlacedField field) {
            return new BlockValues.Pointers(structure.cells(field.snode()), plan, field);
        }
    },
    /** A block is one active cell of the hash node, with its own coordinates as the base: nothing to record. */
    HASH(NodeKind.HASH) {
        @Override
        boolean blocksAreCells() {
            return true;
        }

        @Override
        void record(ActiveBlocks blocks, int b, MemorySegment segment, long container) {
        }
    },
    DYNAMIC(NodeKind.DYNAMIC) {
        @Override
        boolean hasLengths() {
            return true;
        }

        @Override
        void record(ActiveBlocks blocks, int b, MemorySegment segment, long container) {
            blocks.lengths[b] = Atomics.getAcquire(segment, container + DynamicHeader.LENGTH_OFFSET);
        }

        @Override
        BlockValues values(NodeTree structure, SNodePlan plan, PlacedField field) {
            return new BlockValues.Lists(structure.cells(field.snode()), structure.directories(field.snode()), plan,
                    field);
        }
    };

    private static final Map<NodeKind, TargetKind> BY_KIND = new EnumMap<>(NodeKind.class);

    static {
        for (TargetKind target : values()) {
            BY_KIND.put(target.kind, target);
        }
    }

    /** The kind of node whose blocks this constant records: each constant names its own, so no switch maps them. */
    private final NodeKind kind;

    TargetKind(NodeKind kind) {
        this.kind = kind;
    }

    /** The activity of a target of {@code kind}; the root has no blocks. */
    static TargetKind of(NodeKind kind) {
        TargetKind target = BY_KIND.get(kind);
        if (target == null) {
            throw new IllegalArgumentException("snode=root has one cell and no coordinates");
        }
        return target;
    }

    /** Mask words per block: one bit per cell for bitmasked and pointer targets, else 0. */
    int maskWords(SNodePlan plan) {
        return 0;
    }

    /**
     * Whether each block is one cell whose base coordinates are its own (a hash target: its
     * containers span index spaces too large to be blocks), instead of one container.
     */
    boolean blocksAreCells() {
        return false;
    }

    /** Whether a block has a length of its own (a dynamic list's) instead of its cell count. */
    boolean hasLengths() {
        return false;
    }

    /** Whether the direct walk copies the activity while it emits the blocks (one pass over their memory). */
    boolean copiedWhileEmitted() {
        return false;
    }

    /** Records the activity of block {@code b}, whose container is at {@code container} of {@code segment}. */
    abstract void record(ActiveBlocks blocks, int b, MemorySegment segment, long container);

    /**
     * How a reduction over {@code field} (placed on a target of this kind, planned as {@code plan})
     * reads a block: by default the cells lie in the block (dense, bitmasked, and a hash target's
     * one-cell blocks).
     */
    BlockValues values(NodeTree structure, SNodePlan plan, PlacedField field) {
        return new BlockValues.Leaf(plan, field);
    }

    /** Records the activity of every block emitted so far, in one pass. */
    void recordAll(ActiveBlocks blocks) {
        for (int b = 0; b < blocks.size; b++) {
            record(blocks, b, blocks.segments[b], blocks.containers[b]);
        }
    }

    private static int wordsFor(SNodePlan plan) {
        return (int) BitmaskWords.words(plan.cellCount());
    }
}
