package io.snode.codegen.internal.structfor;

import java.lang.invoke.MethodHandle;

/**
 * The generated first phase of a target's snapshot ({@link io.snode.codegen.internal.WalkerEmitter}):
 * {@code walk} from the root, {@code (int[] byCell, long[] present, int capacity) int}, and, where
 * the emitter made one, {@code walkBelow} one active cell of the root's child container,
 * {@code (MemorySegment segment, long cell, int[] at, int[] byCell, long[] present, int capacity)
 * int}, which the parallel walk calls per cell ({@link WalkSplit}); null where it made none.
 */
public record GeneratedWalk(MethodHandle walk, MethodHandle below) {
    public GeneratedWalk {
        java.util.Objects.requireNonNull(walk, "walk");
    }
}
