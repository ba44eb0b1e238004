package io.snode.runtime;

import io.snode.api.SNode;
import io.snode.runtime.internal.Foreign;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a runtime's memory: the pool's totals (reserved and committed bytes, chunks,
 * cap) and, per pointer, hash or dynamic SNode, its node manager's counters (and a hash
 * node's tables). Every type it hands out
 * is public API of this package ({@link MemoryPoolMetric}, {@link NodeManagerMetric}).
 */
public record MemoryStats(MemoryPoolMetric pool, List<SNodeStats> snodes) {

    /**
     * @param cells       the SNode's cells (pointer, hash) or element chunks (dynamic)
     * @param directories a dynamic SNode's directory blocks, or null
     * @param tables      a hash SNode's tables, or null
     */
    public record SNodeStats(SNode snode, NodeManagerMetric cells, NodeManagerMetric directories,
                             HashTableMetric tables) {
        public SNodeStats {
            Objects.requireNonNull(snode, "snode");
            Objects.requireNonNull(cells, "cells");
        }

        public SNodeStats(SNode snode, NodeManagerMetric cells, NodeManagerMetric directories) {
            this(snode, cells, directories, null);
        }
    }

    public MemoryStats {
        Objects.requireNonNull(pool, "pool");
        snodes = List.copyOf(Objects.requireNonNull(snodes, "snodes"));
    }

    public long bytesReserved() {
        return pool.bytesReserved();
    }

    public long bytesCommitted() {
        return pool.bytesCommitted();
    }

    /**
     * The statistics of {@code snode}, a pointer, hash or dynamic SNode of this runtime's layout.
     *
     * @throws IllegalArgumentException for an SNode of another kind (it has no node manager), or
     *                                  one of another {@code Layout} object
     */
    public SNodeStats of(SNode snode) {
        Objects.requireNonNull(snode, "snode");
        for (SNodeStats stats : snodes) {
            if (stats.snode() == snode) {
                return stats;
            }
        }
        if (SNodePlan.hasNodeManager(snode.kind())) { // this runtime's SNodes of such a kind are all listed
            throw Foreign.snode(snode, "this runtime's");
        }
        throw new IllegalArgumentException("snode=" + snode.path() + " has no node manager (only pointer, hash and "
                + "dynamic SNodes have one)");
    }
}
