package io.snode.runtime.internal;

import io.snode.api.SNode;

/**
 * Test seam of {@link NodeTree#probeAllocations}: sees every request an activation or append
 * makes of a node manager or a hash node's tables, just before it is made, on the requesting
 * thread. A probe may block (to fix an interleaving with latches) or throw (an injected
 * allocator fault, as the memory cap would).
 */
@FunctionalInterface
public interface AllocationProbe {
    void beforeAllocate(SNode owner);
}
