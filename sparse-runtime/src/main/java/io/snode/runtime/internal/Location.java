package io.snode.runtime.internal;

import java.lang.foreign.MemorySegment;

/** A mutable (segment, byte offset) pair that a path walk moves from cell to cell. */
public final class Location {
    public MemorySegment segment;
    public long offset;
    /** The index of the element an append placed here; unused by other walks. */
    public long element;

    public Location set(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }
}
