/**
 * The runtime's off-heap memory layer; internal to the runtime, the collector and the generated
 * code, never for users.
 *
 * <ul>
 *   <li>{@link io.snode.runtime.internal.memory.MemoryAllocator} — the single door for off-heap
 *       requests (default: one shared arena per chunk, 4096-byte aligned); tests replace it to
 *       inject failures.</li>
 *   <li>{@link io.snode.runtime.internal.memory.MemoryPool} — one per runtime: the cap (checked
 *       before the allocator is asked; over it,
 *       {@link io.snode.api.MemoryCapExceededException}), counters in total and per owner (SNode
 *       path), close that frees everything.</li>
 *   <li>{@link io.snode.runtime.internal.memory.ListManager} — Taichi's chunked "infinitely long"
 *       list with geometric chunk growth ({@link io.snode.runtime.internal.memory.ChunkGeometry},
 *       layout in {@link io.snode.runtime.internal.memory.ListChunkDescriptor}).</li>
 *   <li>{@link io.snode.runtime.internal.memory.NodeManager} — Taichi's per-SNode cell allocator:
 *       data list, free list and recycled list
 *       ({@link io.snode.runtime.internal.memory.IndexListDescriptor}), per-thread caches, a serial
 *       collector and the raw pieces for a parallel one; metrics as
 *       {@link io.snode.runtime.internal.memory.NodeManagerMetrics}.</li>
 * </ul>
 *
 * <p><b>Regions.</b> Where native access is enabled and the platform has {@code mmap}
 * ({@link io.snode.runtime.internal.memory.NativeRegions}, the only class with restricted FFM
 * calls: {@code Linker} and one {@code reinterpret} that bounds the mapping), a node manager keeps
 * its cells in one reserved region of address space: cell {@code i} at {@code i * stride}, pages
 * committed on first touch. The region's parts still become chunks one at a time (up to 1 MiB,
 * {@link io.snode.runtime.internal.memory.ChunkGeometry#inRegion}), counted against the cap before
 * any byte of them is touched, so a page the kernel could not commit is never touched; a freed
 * chunk's pages are given back with {@code madvise}. One cell's bytes past the last chunk a
 * region can hold are its zero cell ({@link io.snode.runtime.internal.memory.NodeManager#zeroCellOffset}):
 * never handed out, never written, never committed (a read maps the kernel's zero page), it is the
 * ambient cell that reads of an inactive pointer land on, so generated reads stay in the region.
 * With huge pages ({@code RuntimeOptions.withHugePages}) a region is advised
 * {@code MADV_HUGEPAGE}, and the cap also counts the rest of the huge page after its last chunk
 * (the pool's envelope), since the first touch there may commit the whole huge page. Regions
 * start on a huge page boundary, and a collection that gives free pages back gives back whole
 * huge pages only ({@code MemoryPool.releasePages}): a part would split its huge page.
 * Elsewhere cells live in chunks of their own.
 *
 * <p>Every access to node memory goes through a {@link java.lang.foreign.MemorySegment} with its
 * bounds and liveness checks: a wrong index or a closed pool gives a Java exception, never a crash.
 * No {@code sun.misc.Unsafe}.
 */
package io.snode.runtime.internal.memory;
