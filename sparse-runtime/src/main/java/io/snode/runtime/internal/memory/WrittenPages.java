package io.snode.runtime.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Zeroing that commits no page it need not: a range of node memory is zeroed a base page at a
 * time (the pieces of its first and last pages included), and a piece that already reads zero
 * is left as it is. In a region an untouched page reads zero (the kernel maps the shared zero
 * page for the read, which commits nothing), so zeroing a freed cell writes, and keeps
 * committed, only the pages that were written: a 128 KiB dense block with one voxel set costs
 * one page again, not 32. A piece with a byte other than zero costs a read up to that byte
 * before the write; where most of a page is zero and its last bytes are not, that is a read of
 * the page before its write. So cells of less than {@link #CHECKED_CELL_BYTES} are zeroed
 * without the check: most pages of a run of them were written (a cell's values or mask word),
 * and the check costs there (W4 on L2, a delete and a bulk rewrite of 2,112-byte cells: 6 %
 * slower with it); a page holding only cells activated and never written is committed then.
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

    /** Cells this large or larger are zeroed page by page, leaving pages that read zero: two base pages. */
    public static final long CHECKED_CELL_BYTES = 2 * NativeRegions.PAGE;

    /**
     * Zeroes {@code [offset, offset + length)} of {@code segment}, a run of cells of
     * {@code cellBytes} each: all of it for cells under {@link #CHECKED_CELL_BYTES}, else the
     * pieces that hold a byte other than zero.
     */
    public static void zeroCells(MemorySegment segment, long offset, long length, long cellBytes, Zeroer zeroer) {
        if (cellBytes < CHECKED_CELL_BYTES) {
            zeroer.zero(segment, offset, length);
        } else {
            zero(segment, offset, length, zeroer);
        }
    }

    /** Zeroes the pieces of {@code [offset, offset + length)} of {@code segment} that hold a byte other than zero. */
    private static void zero(MemorySegment segment, long offset, long length, Zeroer zeroer) {
        long page = ZERO_PAGE.byteSize();
        long end = offset + length;
        long at = offset;
        // Neighbouring pieces to zero are zeroed with one call: [dirty, at).
        long dirty = -1;
        while (at < end) {
            long pageEnd = Math.min(end, ((segment.address() + at) & -page) + page - segment.address());
            boolean written = MemorySegment.mismatch(segment, at, pageEnd, ZERO_PAGE, 0, pageEnd - at) >= 0;
            if (written && dirty < 0) {
                dirty = at;
            } else if (!written && dirty >= 0) {
                zeroer.zero(segment, dirty, at - dirty);
                dirty = -1;
            }
            at = pageEnd;
        }
        if (dirty >= 0) {
            zeroer.zero(segment, dirty, end - dirty);
        }
    }

    /** {@link #zeroCells} with {@link MemorySegment#fill}. */
    public static void zeroCells(MemorySegment segment, long offset, long length, long cellBytes) {
        zeroCells(segment, offset, length, cellBytes, (s, o, l) -> s.asSlice(o, l).fill((byte) 0));
    }
}
