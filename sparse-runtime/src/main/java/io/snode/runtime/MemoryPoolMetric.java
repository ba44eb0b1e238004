package io.snode.runtime;

/**
 * A runtime's off-heap memory in total at one moment, as {@link MemoryStats#pool()} hands it
 * out; the counters are read one after another (exact when no request runs).
 */
public interface MemoryPoolMetric {
    /** Most bytes the runtime may reserve ({@link RuntimeOptions#memoryCapBytes()}). */
    long capBytes();

    /**
     * Bytes of every chunk held, the root cell and the ambient cells included; with huge pages
     * ({@link RuntimeOptions#hugePages()}), also the rest of each region's last huge page, which
     * the cap counts before it is touched.
     */
    long bytesReserved();

    /**
     * Bytes backed by physical pages: equal to {@link #bytesReserved()} for allocators that
     * commit on allocation; in regions the pages written and not given back (a page only read
     * is backed by the kernel's shared zero page and does not count, where
     * {@code /proc/self/pagemap} can be read).
     */
    long bytesCommitted();

    /** Chunks held. */
    long chunksHeld();
}
