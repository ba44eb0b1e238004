package io.snode.bench.codegen;

import io.snode.api.Layout;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a person would write by hand for a read of L1 with every constant baked in, using the
 * same runtime statics as the generated code: the baseline the generated {@code get_phi} is
 * measured against. Bound to one structure in {@link #bind}.
 */
public final class HandWrittenL1 {
    private static MemorySegment root;
    private static CheckedCells outerCells;
    private static CheckedCells innerCells;
    private static MemorySegment outerAmbient;
    private static MemorySegment innerAmbient;

    private HandWrittenL1() {
    }

    /** Points the hand-written method at {@code structure} (a runtime of layout L1). */
    public static void bind(NodeTree structure) {
        Layout layout = structure.plan().layout();
        root = structure.root();
        outerCells = (CheckedCells) structure.cells(layout.snode(1));
        innerCells = (CheckedCells) structure.cells(layout.snode(2));
        outerAmbient = structure.ambient(layout.snode(1));
        innerAmbient = structure.ambient(layout.snode(2));
    }

    public static float get(int i, int j, int k) {
        if ((i | j | k) >>> 11 != 0) {
            throw new IndexOutOfBoundsException();
        }
        long outer = ((long) (i >>> 7) << 8) + ((j >>> 7) << 4) + (k >>> 7);
        long word = GeneratedCalls.pointerWord(root, outer << 3);
        MemorySegment segment = GeneratedCalls.childOrAmbient(outerCells, word, outerAmbient);
        long offset = GeneratedCalls.childOrAmbientOffset(outerCells, word);
        long inner = ((long) ((i >>> 3) & 15) << 8) + (((j >>> 3) & 15) << 4) + ((k >>> 3) & 15);
        word = GeneratedCalls.pointerWord(segment, offset + (inner << 3));
        segment = GeneratedCalls.childOrAmbient(innerCells, word, innerAmbient);
        offset = GeneratedCalls.childOrAmbientOffset(innerCells, word);
        long leaf = ((i & 7) << 6) + ((j & 7) << 3) + (k & 7);
        return segment.get(ValueLayout.JAVA_FLOAT, offset + (leaf << 2));
    }
}
