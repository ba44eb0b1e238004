package io.snode.runtime.internal;

import java.lang.foreign.MemorySegment;

/**
 * The changes one activation made, so that a failure deeper in the path (the memory cap, an
 * injected allocator failure) can take them back in reverse order and leave the structure as
 * it was. Records are plain fields in small arrays: a path is at most a few levels deep.
 */
final class Undo {
    private static final int POINTER = 0;
    private static final int BIT = 1;
    private static final int LENGTH = 2;
    private static final int REFERENCE = 3;

    private int count;
    private int[] kinds = new int[4];
    private MemorySegment[] segments = new MemorySegment[4];
    private long[] offsets = new long[4];
    private long[] values = new long[4];
    private long[] olds = new long[4];
    private CellManager[] managers = new CellManager[4];

    /** Whether this activation changed anything (published, set, lengthened or referenced). */
    boolean changedAnything() {
        return count > 0;
    }

    /** This activation published {@code cell} in the pointer word at (segment, offset). */
    void pointer(MemorySegment segment, long offset, CellManager manager, long cell) {
        add(POINTER, segment, offset, cell, 0, manager);
    }

    /** This activation set {@code bit} in the mask word at (segment, offset). */
    void bit(MemorySegment segment, long offset, long bit) {
        add(BIT, segment, offset, bit, 0, null);
    }

    /** This activation raised a dynamic list's length from {@code old} to {@code value}. */
    void length(MemorySegment segment, long offset, long old, long value) {
        add(LENGTH, segment, offset, value, old, null);
    }

    /** This activation stored a reference to {@code cell} of {@code manager} in an empty slot. */
    void reference(MemorySegment segment, long offset, CellManager manager, long cell) {
        add(REFERENCE, segment, offset, cell, 0, manager);
    }

    private void add(int kind, MemorySegment segment, long offset, long value, long old, CellManager manager) {
        if (count == kinds.length) {
            int size = count * 2;
            kinds = java.util.Arrays.copyOf(kinds, size);
            segments = java.util.Arrays.copyOf(segments, size);
            offsets = java.util.Arrays.copyOf(offsets, size);
            values = java.util.Arrays.copyOf(values, size);
            olds = java.util.Arrays.copyOf(olds, size);
            managers = java.util.Arrays.copyOf(managers, size);
        }
        kinds[count] = kind;
        segments[count] = segment;
        offsets[count] = offset;
        values[count] = value;
        olds[count] = old;
        managers[count] = manager;
        count++;
    }

    /**
     * Takes every recorded change back, newest first. A pointer is unpublished only while it
     * still holds the cell this activation put there (another thread may already have
     * deactivated it); the cell goes back to its manager with {@code unallocate}.
     */
    void rollBack() {
        for (int n = count - 1; n >= 0; n--) {
            MemorySegment segment = segments[n];
            long offset = offsets[n];
            switch (kinds[n]) {
                case POINTER -> {
                    long word = io.snode.runtime.PointerWord.encode(values[n]);
                    if (Atomics.compareAndSet(segment, offset, word, io.snode.runtime.PointerWord.BUSY)) {
                        managers[n].unallocate(values[n]);
                        Atomics.setRelease(segment, offset, io.snode.runtime.PointerWord.NULL);
                    }
                }
                case BIT -> Atomics.getAndBitwiseAnd(segment, offset, ~values[n]);
                case REFERENCE -> {
                    long word = io.snode.runtime.PointerWord.encode(values[n]);
                    if (Atomics.compareAndSet(segment, offset, word, io.snode.runtime.PointerWord.NULL)) {
                        managers[n].unallocate(values[n]);
                    }
                }
                case LENGTH -> Atomics.compareAndSet(segment, offset, values[n], olds[n]);
                default -> throw new AssertionError(kinds[n]);
            }
        }
        count = 0;
    }
}
