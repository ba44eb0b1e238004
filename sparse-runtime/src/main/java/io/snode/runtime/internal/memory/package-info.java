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
 * <p>Every access to node memory goes through a {@link java.lang.foreign.MemorySegment} with its
 * bounds and liveness checks: a wrong index or a closed pool gives a Java exception, never a crash.
 * No {@code sun.misc.Unsafe}, no {@code reinterpret}.
 */
package io.snode.runtime.internal.memory;
