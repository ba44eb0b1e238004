package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Zeroing that commits no page it need not: a range of node memory is zeroed a base page at a
 * time (the pieces of its first and last pages included), and a piece that already reads zero
 * is left as it is. In a region an untouched page reads zero (the kernel maps the shared zero
 * page for the read, which commits nothing), so zeroing a freed cell writes, and keeps
 * committed, only the pages that were written: a 128 KiB dense block with one voxel set costs
 * one page again, not 32. A piece with a byte other than zero costs a read up to that byte
 * before the write, which a write of that line would have loaded anyway.
 */
public final class WrittenPages {
    /** A base page of zeros to compare pieces with. */
    private static final MemorySegment ZERO_PAGE = MemorySegment.ofArray(new byte[Math.toIntExact(NativeRegions.PAGE)]);

    private WrittenPages() {
    }

    /** How a piece is zeroed: bytes {@code [offset, offset + length)} of {@code segment}. */
    @FunctionalInterface
    public interface Zeroer {
        void zero(MemorySegment segment, long offset, long length);
    }

    /** Zeroes the pieces of {@code [offset, offset + length)} of {@code segment} that hold a byte other than zero. */
    public static void zero(MemorySegment segment, long offset, long length, Zeroer zeroer) {
        long page = ZERO_PAGE.byteSize();
        long end = offset + length;
        long at = offset;
        while (at < end) {
            long pageEnd = Math.min(end, ((segment.address() + at) & -page) + page - segment.address());
            if (MemorySegment.mismatch(segment, at, pageEnd, ZERO_PAGE, 0, pageEnd - at) >= 0) {
                zeroer.zero(segment, at, pageEnd - at);
            }
            at = pageEnd;
        }
    }

    /** {@link #zero(MemorySegment, long, long, Zeroer)} with {@link MemorySegment#fill}. */
    public static void zero(MemorySegment segment, long offset, long length) {
        zero(segment, offset, length, (s, o, l) -> s.asSlice(o, l).fill((byte) 0));
    }
}
