package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import io.snode.runtime.MemoryPoolMetric;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * All off-heap memory of one runtime, handed out in chunks, under a cap.
 *
 * <p>Terms: a <em>chunk</em> is one segment obtained from the {@link MemoryAllocator}; an
 * <em>owner</em> is whoever asked for it, named by the path of an SNode (the owner object is
 * interned per name so that hot paths hold a reference, not a string). Bytes are
 * <em>reserved</em> when the pool has promised them to a chunk and <em>committed</em> when they
 * are backed by physical pages; for chunks of their own the two are equal because
 * {@link java.lang.foreign.Arena#allocate} zeroes, and so commits, a chunk at once; the parts of a
 * region commit page by page as they are touched, and a pool made to release free pages lets a
 * collector give pages of free cells back ({@link #releasePages}), which lowers what is
 * committed but not what is reserved.
 *
 * <p>What the pool promises:
 * <ul>
 *   <li><b>The cap is checked first.</b> {@link #allocateChunk} reserves the bytes with a
 *       compare-and-set against the cap before it asks the allocator; over the cap it throws
 *       {@link MemoryCapExceededException} and changes nothing. Concurrent requests never
 *       together exceed the cap.</li>
 *   <li><b>A failed request changes nothing.</b> If the allocator throws, the reservation is
 *       given back and the exception propagates; counters read as before the call (a concurrent
 *       reader may briefly see the reservation, and a concurrent request may be refused because
 *       of it: the pool prefers refusing to overshooting).</li>
 *   <li><b>Close frees everything.</b> {@link #close()} waits for requests in progress, then frees
 *       every chunk still held. Afterwards every method that hands out or frees memory throws
 *       {@link IllegalStateException} ("... closed"), and every access through a chunk obtained
 *       earlier throws {@link IllegalStateException} (FFM liveness checks): no crash. The
 *       counters stay readable and read zero.</li>
 *   <li><b>Accounting per owner.</b> Bytes and chunks are counted per owner as well as in total.
 *       Counter reads are exact when no request runs concurrently; during requests each counter
 *       is individually current but they may disagree by the requests in progress.</li>
 * </ul>
 *
 * <p><b>Default cap.</b> {@link #MemoryPool()} caps the pool at half of the physical memory the
 * JVM reports ({@code com.sun.management.OperatingSystemMXBean#getTotalMemorySize}, which follows
 * container limits); if that bean is unavailable the default is {@link #UNLIMITED}. Half leaves
 * room for the Java heap (one quarter by default) and the rest of the process; off-heap memory
 * from {@link java.lang.foreign.Arena} is not limited by {@code -XX:MaxDirectMemorySize}, so without
 * a cap the first sign of exhaustion would be the operating system's.
 *
 * <p><b>Huge pages.</b> A pool made with {@code hugePages} asks the allocator to back each region
 * with huge pages ({@link MemoryAllocator#adviseHugePages}); a random access then needs one TLB
 * entry per {@link #HUGE_PAGE} instead of one per 4 KiB page. The first touch of a byte may then
 * commit the whole huge page around it, beyond the chunks handed out, so the pool counts against
 * the cap, for each such region, the bytes from the end of its last chunk to the end of the huge
 * page that holds it (the region's <em>envelope</em>), before a cell there can be touched: the
 * chunks of a region always form one prefix of it (they are handed out and freed at its end), so
 * the chunks and the envelope cover every huge page a handed-out cell lies in. A new chunk
 * begins where the envelope does, so it is counted by what it adds: itself and its envelope less
 * the envelope it replaces (nothing, where it and its envelope end in the huge page already
 * counted). A chunk that the cap refuses so is refused whole, with nothing changed. Freeing the last chunk gives
 * back its pages and those of the envelope, and the envelope moves to the new end; the count
 * drops by the chunk and the old envelope less the new one in one step, so that no request on
 * another thread sees room that the new envelope takes back. The regions of
 * a pool without huge pages stay on base pages, where the allocator can say so
 * ({@code NativeRegions} advises every region it maps {@code MADV_NOHUGEPAGE} until asked for
 * huge pages), so that a system that gives huge pages unasked commits nothing uncounted.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public final class MemoryPool implements AutoCloseable {

    /** The huge page a region advised with {@link MemoryAllocator#adviseHugePages} is counted in: 2 MiB (x86-64, and AArch64 with 4 KiB base pages). */
    public static final long HUGE_PAGE = 2L << 20;

    /** A cap that never refuses. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** Fraction of physical memory used as the default cap. */
    public static final double DEFAULT_CAP_FRACTION_OF_PHYSICAL_MEMORY = 0.5;

    private final MemoryAllocator allocator;
    private final long capBytes;
    private final boolean commitsOnAllocate;
    private final boolean releasesFreePages;
    private volatile String label = "";
    private final boolean hugePages;

    /** Read side: requests; write side: close. Keeps a chunk from being allocated after close freed the rest. */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();

    private final AtomicLong bytesReserved = new AtomicLong();
    /** This pool's counter of bytes reserved, its regions' bytes and whether it is closed ({@link #holdings()}). */
    private final Holdings holdings = new Holdings(bytesReserved);
    private final AtomicLong bytesCommitted = new AtomicLong();
    private final AtomicLong chunksHeld = new AtomicLong();
    /** Chunks held, by base address. */
    private final ConcurrentHashMap<Long, Chunk> chunks = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Owner> owners = new ConcurrentHashMap<>();
    /** Regions reserved; released at close. */
    private final java.util.Queue<Region> regions = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** A pool over the default allocator with the {@link #defaultCapBytes() default cap}. */
    public MemoryPool() {
        this(MemoryAllocator.arenaPerChunk(), defaultCapBytes());
    }

    /** A pool over the default allocator with the given cap. */
    public MemoryPool(long capBytes) {
        this(MemoryAllocator.arenaPerChunk(), capBytes);
    }

    /**
     * @param allocator every chunk is obtained from and returned to it
     * @param capBytes  the most bytes the pool may hold at once, positive; {@link #UNLIMITED} for no cap
     */
    public MemoryPool(MemoryAllocator allocator, long capBytes) {
        this(allocator, capBytes, false);
    }

    /**
     * @param allocator         every chunk is obtained from and returned to it
     * @param capBytes          the most bytes the pool may hold at once, positive; {@link #UNLIMITED} for no cap
     * @param releasesFreePages whether {@link #releasePages} gives pages of free cells back to the
     *                          system (else it does nothing and the collector zeroes them)
     */
    public MemoryPool(MemoryAllocator allocator, long capBytes, boolean releasesFreePages) {
        this(allocator, capBytes, releasesFreePages, false);
    }

    /**
     * @param allocator         every chunk is obtained from and returned to it
     * @param capBytes          the most bytes the pool may hold at once, positive; {@link #UNLIMITED} for no cap
     * @param releasesFreePages whether {@link #releasePages} gives pages of free cells back to the
     *                          system (else it does nothing and the collector zeroes them)
     * @param hugePages         whether regions are backed by huge pages where the allocator can
     *                          ask for them (see the class comment for what the cap then counts)
     */
    public MemoryPool(MemoryAllocator allocator, long capBytes, boolean releasesFreePages, boolean hugePages) {
        this.releasesFreePages = releasesFreePages;
        this.hugePages = hugePages;
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        if (capBytes <= 0) {
            throw new IllegalArgumentException("capBytes=" + capBytes + " (must be positive)");
        }
        this.capBytes = capBytes;
        this.commitsOnAllocate = allocator.commitsOnAllocate();
    }

    /** Half of the physical memory, or {@link #UNLIMITED} where the JVM does not report it; computed once. */
    public static long defaultCapBytes() {
        return DefaultCap.BYTES;
    }

    private static final class DefaultCap {
        static final long BYTES = compute();

        private static long compute() {
            try {
                if (ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os) {
                    long total = os.getTotalMemorySize();
                    if (total > 0) {
                        return (long) (total * DEFAULT_CAP_FRACTION_OF_PHYSICAL_MEMORY);
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                // No management support in this JVM: fall through to "no cap".
            }
            return UNLIMITED;
        }
    }

    /**
     * The owner object for a name (an SNode path); the same object for the same name. Hot paths
     * keep this object instead of looking the name up again.
     */
    public Owner owner(String name) {
        Objects.requireNonNull(name, "name");
        checkOpen();
        return owners.computeIfAbsent(name, n -> new Owner(this, n));
    }

    /** {@link #allocateChunk(Owner, long)} for the owner of that name. */
    public MemorySegment allocateChunk(String ownerName, long byteSize) {
        return allocateChunk(owner(ownerName), byteSize);
    }

    /**
     * Allocates a zeroed chunk of {@code byteSize} bytes, aligned to
     * {@link MemoryAllocator#CHUNK_ALIGNMENT}, charged to {@code owner}.
     *
     * @throws MemoryCapExceededException if it would take the pool over its cap; nothing changed
     * @throws IllegalStateException      if the pool is closed
     * @throws IllegalArgumentException   for a non-positive size or an owner of another pool
     */
    public MemorySegment allocateChunk(Owner owner, long byteSize) {
        Objects.requireNonNull(owner, "owner");
        if (owner.pool != this) {
            throw new IllegalArgumentException("owner=" + owner.name + " belongs to another pool");
        }
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize=" + byteSize + " (must be positive)");
        }
        lifecycle.readLock().lock();
        try {
            checkOpen();
            reserveOrThrow(owner, byteSize);
            MemorySegment segment;
            try {
                segment = allocator.allocate(byteSize, MemoryAllocator.CHUNK_ALIGNMENT);
                if (segment.byteSize() < byteSize
                        || segment.address() % MemoryAllocator.CHUNK_ALIGNMENT != 0) {
                    allocator.free(segment);
                    throw new IllegalStateException("allocator " + allocator + " returned segment=" + segment
                            + " for byteSize=" + byteSize + " byteAlignment=" + MemoryAllocator.CHUNK_ALIGNMENT);
                }
            } catch (Throwable t) {
                bytesReserved.addAndGet(-byteSize);
                throw t;
            }
            hold(new Chunk(owner, segment, byteSize));
            return segment;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Reserves a region of at least {@code byteSize} bytes of address space for {@code owner}'s
     * cells ({@link MemoryAllocator#reserveRegion}), or returns null where the allocator has
     * none. A region counts nothing against the cap: its parts do, when {@link #commitChunk}
     * hands them out. It is released when the pool closes.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public Region reserveRegion(Owner owner, long byteSize) {
        Objects.requireNonNull(owner, "owner");
        long rounded = (byteSize + MemoryAllocator.CHUNK_ALIGNMENT - 1) & -MemoryAllocator.CHUNK_ALIGNMENT;
        lifecycle.readLock().lock();
        try {
            checkOpen();
            MemorySegment segment = allocator.reserveRegion(rounded);
            if (segment == null) {
                return null;
            }
            Region region = new Region(owner, segment, hugePages && allocator.adviseHugePages(segment));
            regions.add(region);
            holdings.regionBytes.addAndGet(segment.byteSize());
            return region;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Hands out {@code [offset, offset + byteSize)} of {@code region} as a chunk: the bytes are
     * counted against the cap (reserved and committed) first, then the allocator's
     * {@link MemoryAllocator#commit} hook runs; a refusal by either changes nothing. The chunk
     * reads zero. {@link #freeChunk} gives its pages back.
     *
     * @throws MemoryCapExceededException if it would take the pool over its cap; nothing changed
     */
    public MemorySegment commitChunk(Region region, long offset, long byteSize) {
        Objects.requireNonNull(region, "region");
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize=" + byteSize + " (must be positive)");
        }
        Owner owner = region.owner;
        lifecycle.readLock().lock();
        try {
            checkOpen();
            MemorySegment chunk = region.segment.asSlice(offset, byteSize);
            if (!region.huge) {
                reserveOrThrow(owner, byteSize);
                try {
                    allocator.commit(region.segment, offset, byteSize);
                } catch (Throwable t) {
                    bytesReserved.addAndGet(-byteSize);
                    throw t;
                }
                hold(new Chunk(owner, chunk, byteSize, region, offset));
                return chunk;
            }
            synchronized (region) {
                if (offset != region.end) {
                    throw new IllegalArgumentException("offset=" + offset + " in " + region
                            + ": a region with huge pages hands out its chunks in order, the next at " + region.end);
                }
                long envelope = region.envelopeAfter(offset + byteSize);
                // The chunk starts where the old envelope does and, with the new envelope, covers it:
                // what it adds is the chunk and the new envelope less the old one (0 or more), counted
                // in one step before a byte of it can be touched (neither early nor late).
                long previous = region.envelope;
                long added = byteSize + envelope - previous;
                reserveOrThrow(owner, added);
                try {
                    allocator.commit(region.segment, offset, byteSize);
                } catch (Throwable t) {
                    bytesReserved.addAndGet(-added);
                    throw t;
                }
                setEnvelope(region, offset + byteSize, envelope); // the pool's count has it already
                hold(new Chunk(owner, chunk, byteSize, region, offset)); // its event reads the pool's count with the new envelope
                return chunk;
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Replaces {@code region}'s envelope (counted against the cap already) by {@code envelope} bytes after {@code end}. */
    private void moveEnvelope(Region region, long end, long envelope) {
        bytesReserved.addAndGet(-region.envelope);
        setEnvelope(region, end, envelope);
    }

    /** Sets {@code region}'s end and envelope and its owner's count; the pool's count is the caller's. */
    private static void setEnvelope(Region region, long end, long envelope) {
        region.owner.bytesReserved.addAndGet(envelope - region.envelope);
        region.end = end;
        region.envelope = envelope;
    }

    /**
     * The name of the runtime this pool serves, carried by its {@code ChunkAllocation} events
     * and by the collection events of its node managers; "" until {@link #label(String)}.
     */
    public String label() {
        return label;
    }

    /** Names the runtime this pool serves (before it hands out memory, so that every event carries it). */
    public void label(String label) {
        this.label = Objects.requireNonNull(label, "label");
    }

    /** Bytes of address space reserved by regions (not counted against the cap). */
    public long regionBytes() {
        return holdings.regionBytes.get();
    }

    /**
     * Enters a chunk whose bytes are already reserved: in the table, and in the counters (committed
     * too when the allocator commits on allocation or the chunk is part of a region).
     */
    private void hold(Chunk chunk) {
        chunks.put(chunk.segment.address(), chunk);
        if (commitsOnAllocate || chunk.region != null) {
            bytesCommitted.addAndGet(chunk.byteSize);
        }
        chunksHeld.incrementAndGet();
        chunk.owner.bytesReserved.addAndGet(chunk.byteSize);
        chunk.owner.chunksHeld.incrementAndGet();
        ChunkAllocationEvent.emit(label, chunk.owner.name, chunk.byteSize, bytesReserved.get(), chunksHeld.get());
    }

    private void reserveOrThrow(Owner owner, long byteSize) {
        long held;
        do {
            held = bytesReserved.get();
            // held <= capBytes always holds, so the subtraction cannot overflow.
            if (byteSize > capBytes - held) {
                throw new MemoryCapExceededException(owner.name, held, byteSize, capBytes);
            }
        } while (!bytesReserved.compareAndSet(held, held + byteSize));
    }

    /**
     * Frees a chunk this pool handed out. Accesses through it throw {@link IllegalStateException}
     * afterwards.
     *
     * @throws IllegalArgumentException if the segment is not a chunk held by this pool
     * @throws IllegalStateException    if the pool is closed (close already freed the chunk)
     */
    public void freeChunk(MemorySegment chunk) {
        Objects.requireNonNull(chunk, "chunk");
        lifecycle.readLock().lock();
        try {
            checkOpen();
            Chunk held = chunks.remove(chunk.address());
            if (held == null) {
                throw new IllegalArgumentException("chunk=" + chunk + " is not held by this pool");
            }
            release(held);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Frees a chunk removed from the table; the counters drop even if the allocator throws. */
    private void release(Chunk held) {
        Region region = held.region;
        if (region != null && region.huge && !holdings.closed) {
            releaseHuge(held, region);
            return;
        }
        try {
            if (region == null) {
                allocator.free(held.segment);
            } else if (!holdings.closed) {
                allocator.decommit(region.segment, held.regionOffset, held.byteSize);
            }
        } finally {
            uncount(held);
        }
    }

    /**
     * Frees the last chunk of a region with huge pages: gives back its pages and its envelope's
     * (which the huge page at its end may have committed), and moves the envelope to the new end.
     */
    private void releaseHuge(Chunk held, Region region) {
        synchronized (region) {
            boolean last = held.regionOffset + held.byteSize == region.end;
            try {
                allocator.decommit(region.segment, held.regionOffset, held.byteSize + (last ? region.envelope : 0));
            } finally {
                if (last) {
                    // The new envelope lies inside the chunk and the envelope it replaces (huge pages
                    // end in order), so what is given back is never negative, and it is given back in
                    // one step: given back first and the new envelope counted after, another thread
                    // could take the room in between and leave the pool over its cap.
                    long envelope = region.envelopeAfter(held.regionOffset);
                    uncount(held, held.byteSize + region.envelope - envelope);
                    setEnvelope(region, held.regionOffset, envelope);
                } else {
                    uncount(held, held.byteSize);
                }
            }
        }
    }

    /** Takes a freed chunk out of the counters. */
    private void uncount(Chunk held) {
        uncount(held, held.byteSize);
    }

    /** Takes a freed chunk out of the counters, and {@code poolBytes} out of the pool's count of bytes reserved. */
    private void uncount(Chunk held, long poolBytes) {
        bytesReserved.addAndGet(-poolBytes);
        if (commitsOnAllocate || held.region != null) {
            bytesCommitted.addAndGet(-held.byteSize);
        }
        chunksHeld.decrementAndGet();
        held.owner.bytesReserved.addAndGet(-held.byteSize);
        held.owner.chunksHeld.decrementAndGet();
    }

    /** The cap on reserved bytes. */
    public long capBytes() {
        return capBytes;
    }

    /** Bytes held by chunks (and by requests in progress). */
    public long bytesReserved() {
        return bytesReserved.get();
    }

    /**
     * Bytes backed by physical pages: chunks that commit on allocation whole, and of each region
     * the pages of its chunks that are committed now ({@link MemoryAllocator#residentBytes}: pages
     * never written, or given back by {@link #releasePages}, do not count). Equal to
     * {@link #bytesReserved()} for allocators that commit on allocation.
     */
    public long bytesCommitted() {
        long committed = bytesCommitted.get();
        if (regions.isEmpty()) {
            return committed;
        }
        lifecycle.readLock().lock();
        try {
            if (holdings.closed) {
                return committed;
            }
            for (Region region : regions) {
                long handedOut = 0;
                long low = Long.MAX_VALUE;
                long high = 0;
                for (Chunk chunk : chunks.values()) {
                    if (chunk.region == region) {
                        handedOut += chunk.byteSize;
                        low = Math.min(low, chunk.regionOffset);
                        high = Math.max(high, chunk.regionOffset + chunk.byteSize);
                    }
                }
                long envelope = region.envelope();
                if (handedOut > 0) {
                    // A region with huge pages: the envelope's pages count when resident, as its chunks' do.
                    long resident = allocator.residentBytes(region.segment, low, high + envelope - low);
                    committed += Math.min(handedOut + envelope, resident) - handedOut;
                }
            }
            return committed;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Gives the whole pages inside {@code [offset, offset + byteSize)} of {@code region} back to
     * the system and zeroes the rest of the range ({@link MemoryAllocator#decommit}): the range reads
     * zero afterwards, and its pages commit again when they are next touched. For a collector,
     * over cells that are free: the range stays part of its chunks and counted against the cap
     * (reserved), so cells reused later need no new reservation; only {@link #bytesCommitted()}
     * falls. A throw (an allocator fault) may leave the range partly zeroed; the caller zeroes it.
     * In a region with huge pages, the pages given back are the whole huge pages
     * ({@link #HUGE_PAGE}, aligned) inside the range, so that none is split.
     *
     * @return false, having done nothing, when this pool was made not to release free pages
     *         (the default: a page given back costs a fault and its zeroing when it is next
     *         written, which a program that empties and rebuilds pays every time)
     * @throws IllegalStateException if the pool is closed
     */
    public boolean releasePages(Region region, long offset, long byteSize) {
        Objects.requireNonNull(region, "region");
        if (!releasesFreePages) {
            return false;
        }
        lifecycle.readLock().lock();
        try {
            checkOpen();
            // With huge pages, whole huge pages only: giving back part of one would split it, and
            // the pages written again afterwards would fault in one 4 KiB page at a time. The
            // allocator rounds what it is given to its own (base) pages.
            long granule = region.huge ? HUGE_PAGE : 1;
            long base = region.segment.address();
            long start = Math.min(((base + offset + granule - 1) & -granule) - base, offset + byteSize);
            long end = Math.max(((base + offset + byteSize) & -granule) - base, start);
            region.segment.asSlice(offset, start - offset).fill((byte) 0);
            allocator.decommit(region.segment, start, end - start);
            region.segment.asSlice(end, offset + byteSize - end).fill((byte) 0);
            return true;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Whether {@link #releasePages} gives pages back. */
    public boolean releasesFreePages() {
        return releasesFreePages;
    }

    /** Chunks held. */
    public long chunksHeld() {
        return chunksHeld.get();
    }

    /** The counters, read one after another (exact when no request runs). */
    public PoolMetrics metrics() {
        return new PoolMetrics(capBytes, bytesReserved.get(), bytesCommitted(), chunksHeld.get());
    }

    /** Per-owner counters, sorted by owner name; owners that never held memory are included. */
    public List<OwnerMetrics> ownerMetrics() {
        List<OwnerMetrics> list = new ArrayList<>();
        for (Owner o : owners.values()) {
            list.add(o.metrics());
        }
        list.sort(Comparator.comparing(OwnerMetrics::ownerName));
        return List.copyOf(list);
    }

    public boolean isClosed() {
        return holdings.closed;
    }

    /**
     * What this pool holds, readable without the pool: for a watch of its runtime that must not
     * keep the pool's allocator (an application's, whose class loader it would keep) reachable.
     */
    public Holdings holdings() {
        return holdings;
    }

    /** What a pool holds: its bytes reserved (what the cap counts), its regions' address space, whether it is closed. */
    public static final class Holdings {
        private final AtomicLong bytesReserved;
        private final AtomicLong regionBytes = new AtomicLong();
        private volatile boolean closed;

        private Holdings(AtomicLong bytesReserved) {
            this.bytesReserved = bytesReserved;
        }

        /** {@link MemoryPool#bytesReserved()}. */
        public long bytesReserved() {
            return bytesReserved.get();
        }

        /** {@link MemoryPool#regionBytes()} (regions are released only when the pool closes). */
        public long regionBytes() {
            return regionBytes.get();
        }

        /** Whether the pool's {@link MemoryPool#close()} has begun. */
        public boolean closed() {
            return closed;
        }
    }

    /**
     * Frees every chunk still held; idempotent. Waits for requests in progress on other threads.
     * If the allocator throws while freeing, the remaining chunks are still freed and the first
     * exception is rethrown at the end with the others suppressed.
     */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (holdings.closed) {
                return;
            }
            holdings.closed = true;
            Throwable first = null;
            for (Long address : List.copyOf(chunks.keySet())) {
                Chunk held = chunks.remove(address);
                if (held == null) {
                    continue;
                }
                try {
                    release(held);
                } catch (Throwable t) {
                    if (first == null) {
                        first = t;
                    } else {
                        first.addSuppressed(t);
                    }
                }
            }
            for (Region region : regions) {
                synchronized (region) {
                    moveEnvelope(region, 0, 0);
                }
                try {
                    allocator.releaseRegion(region.segment);
                } catch (Throwable t) {
                    if (first == null) {
                        first = t;
                    } else {
                        first.addSuppressed(t);
                    }
                }
            }
            regions.clear();
            holdings.regionBytes.set(0);
            if (first instanceof RuntimeException re) {
                throw re;
            } else if (first instanceof Error e) {
                throw e;
            } else if (first != null) {
                throw new IllegalStateException("freeing chunks failed", first);
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    void checkOpen() {
        if (holdings.closed) {
            throw new IllegalStateException("memory pool is closed");
        }
    }

    @Override
    public String toString() {
        return "MemoryPool" + metrics();
    }

    /**
     * Whoever memory is charged to: one per SNode path and pool. Obtained from
     * {@link MemoryPool#owner(String)}; counters are updated by the pool.
     */
    public static final class Owner {
        private final MemoryPool pool;
        private final String name;
        private final AtomicLong bytesReserved = new AtomicLong();
        private final AtomicLong chunksHeld = new AtomicLong();

        private Owner(MemoryPool pool, String name) {
            this.pool = pool;
            this.name = name;
        }

        public String name() {
            return name;
        }

        public MemoryPool pool() {
            return pool;
        }

        public long bytesReserved() {
            return bytesReserved.get();
        }

        public long chunksHeld() {
            return chunksHeld.get();
        }

        public OwnerMetrics metrics() {
            return new OwnerMetrics(name, bytesReserved.get(), chunksHeld.get());
        }

        @Override
        public String toString() {
            return "Owner[" + name + "]";
        }
    }

    /** A chunk: from the allocator ({@code region} null) or a part of a region at {@code regionOffset}. */
    private record Chunk(Owner owner, MemorySegment segment, long byteSize, Region region, long regionOffset) {
        Chunk(Owner owner, MemorySegment segment, long byteSize) {
            this(owner, segment, byteSize, null, 0);
        }
    }

    /**
     * Address space reserved for one owner's cells ({@link #reserveRegion}): its parts become
     * chunks through {@link #commitChunk}; unmapped when the pool closes.
     */
    public static final class Region {
        private final Owner owner;
        private final MemorySegment segment;
        /** Whether the allocator took the advice to back it with huge pages. */
        private final boolean huge;
        /** With {@link #huge}: the end of its last chunk (0: none), and the bytes after it counted as the envelope; guarded by this. */
        private long end;
        private long envelope;

        private Region(Owner owner, MemorySegment segment, boolean huge) {
            this.owner = owner;
            this.segment = segment;
            this.huge = huge;
        }

        /** The envelope for chunks ending at {@code chunksEnd}: to the end of the huge page holding its last byte, within the region. */
        private long envelopeAfter(long chunksEnd) {
            if (chunksEnd == 0) {
                return 0;
            }
            long address = segment.address() + chunksEnd;
            long pageEnd = (address + HUGE_PAGE - 1) & -HUGE_PAGE;
            return Math.min(pageEnd, segment.address() + segment.byteSize()) - address;
        }

        /** Whether its pages are huge pages (the allocator took the advice). */
        public boolean hugePages() {
            return huge;
        }

        /** The bytes past its last chunk counted against the cap (0 without huge pages). */
        public synchronized long envelope() {
            return envelope;
        }

        /** The whole region: its cells lie at {@code index * stride}. */
        public MemorySegment segment() {
            return segment;
        }

        public Owner owner() {
            return owner;
        }

        @Override
        public String toString() {
            return "Region[" + owner.name + ", " + segment.byteSize() + " bytes]";
        }
    }

    /**
     * The pool's counters at one moment (see {@link MemoryPool#metrics()}). Internal: users read
     * them as {@link io.snode.runtime.MemoryPoolMetric}.
     */
    public record PoolMetrics(long capBytes, long bytesReserved, long bytesCommitted, long chunksHeld)
            implements MemoryPoolMetric {
    }

    /** One owner's counters at one moment. */
    public record OwnerMetrics(String ownerName, long bytesReserved, long chunksHeld) {
    }
}
