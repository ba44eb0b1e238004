package io.snode.runtime;

import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import java.util.List;
import java.util.Objects;

/**
 * How a runtime gets its memory and reclaims it.
 *
 * @param memoryCapBytes most bytes the runtime may reserve; beyond it an activation fails with
 *                       {@link io.snode.api.MemoryCapExceededException} and changes nothing
 * @param allocator      where every off-heap request goes; tests replace it to inject failures
 * @param collector      what {@link SparseRuntime#collect()} runs; {@link #DEFAULT_COLLECTOR} until one
 *                       is chosen with {@link #withCollector}: the runtime's own default (serial in a
 *                       {@code SparseRuntime}; {@code SNodeRuntime.compile} puts the {@code gc}
 *                       module's parallel collector in its place)
 * @param releasesFreePages whether a collection gives the whole pages of long runs of the cells it
 *                       reclaims back to the system ({@code madvise}) instead of zeroing them, where
 *                       the cells lie in a region (the {@code gc} module's collectors; runs of at
 *                       least 64 KiB). Then the memory committed falls after a large delete, and
 *                       those pages commit again, each with a page fault, when they are next
 *                       written. Off by default: a program that empties and rebuilds its structure
 *                       keeps its pages. The cap counts those cells either way.
 * @param hugePages      whether each region (the cells of one SNode, where the platform reserves
 *                       regions) is backed by transparent huge pages ({@code madvise(MADV_HUGEPAGE)}
 *                       on Linux, when {@code /sys/kernel/mm/transparent_hugepage/enabled} is
 *                       {@code always} or {@code madvise}): a random access then needs one TLB entry
 *                       per 2 MiB instead of one per 4 KiB, which makes random reads and writes over a
 *                       large structure faster. The price: memory commits in steps of up to 2 MiB per
 *                       region, and the cap counts, per region, the rest of the huge page after its
 *                       last chunk too (at most 2 MiB), so that the cap still holds before any page is
 *                       touched. With {@code releasesFreePages}, a collection gives back whole huge
 *                       pages only (the reclaimed cells of a huge page it would have to split are
 *                       zeroed and keep it), so the pages written again afterwards commit 2 MiB
 *                       at a time rather than with a fault per 4 KiB. Off by default.
 */
public record RuntimeOptions(long memoryCapBytes, MemoryAllocator allocator, Collector collector,
                             boolean releasesFreePages, boolean hugePages) {
    /**
     * Stands for "no collector chosen": the runtime that receives these options uses its own
     * default. It collects serially, like {@link Collector#SERIAL}, but is a different object, so
     * that choosing {@code Collector.SERIAL} explicitly is kept as a choice.
     */
    public static final Collector DEFAULT_COLLECTOR = new Collector() {
        @Override
        public void collect(List<NodeManager> managers) {
            Collector.SERIAL.collect(managers);
        }

        @Override
        public String toString() {
            return "the runtime's default collector";
        }
    };

    /**
     * Cap: {@link MemoryPool#defaultCapBytes()}; a reserved region of address space per node
     * manager where the platform has one, else one shared arena per chunk
     * ({@link MemoryAllocator#regionsWherePossible()}); the runtime's default
     * collector ({@link #DEFAULT_COLLECTOR}).
     */
    public static final RuntimeOptions DEFAULT =
            new RuntimeOptions(MemoryPool.defaultCapBytes(), MemoryAllocator.regionsWherePossible(), DEFAULT_COLLECTOR,
                    false, false);

    public RuntimeOptions {
        if (memoryCapBytes <= 0) {
            throw new IllegalArgumentException("memoryCapBytes=" + memoryCapBytes + " must be positive");
        }
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(collector, "collector");
    }

    /** Options that keep the pages of free cells ({@code releasesFreePages} false), without huge pages. */
    public RuntimeOptions(long memoryCapBytes, MemoryAllocator allocator, Collector collector) {
        this(memoryCapBytes, allocator, collector, false, false);
    }

    /** Options without huge pages. */
    public RuntimeOptions(long memoryCapBytes, MemoryAllocator allocator, Collector collector,
                          boolean releasesFreePages) {
        this(memoryCapBytes, allocator, collector, releasesFreePages, false);
    }

    /** Whether no collector was chosen, so that the runtime picks its own ({@link #DEFAULT_COLLECTOR}). */
    public boolean usesDefaultCollector() {
        return collector == DEFAULT_COLLECTOR;
    }

    /** These options with another cap; the allocator, the collector (chosen or default), the page release and huge pages stay. */
    public RuntimeOptions withMemoryCap(long bytes) {
        return new RuntimeOptions(bytes, allocator, collector, releasesFreePages, hugePages);
    }

    public RuntimeOptions withAllocator(MemoryAllocator allocator) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector, releasesFreePages, hugePages);
    }

    public RuntimeOptions withCollector(Collector collector) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector, releasesFreePages, hugePages);
    }

    /** These options with free pages given back at collection, or kept ({@link #releasesFreePages()}). */
    public RuntimeOptions withFreePageRelease(boolean release) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector, release, hugePages);
    }

    /** These options with regions backed by huge pages, or by base pages ({@link #hugePages()}). */
    public RuntimeOptions withHugePages(boolean huge) {
        return new RuntimeOptions(memoryCapBytes, allocator, collector, releasesFreePages, huge);
    }
}
