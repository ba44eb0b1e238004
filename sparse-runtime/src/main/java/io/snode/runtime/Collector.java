package io.snode.runtime;

import io.snode.runtime.internal.memory.NodeManager;
import java.util.List;

/**
 * Reclaims recycled cells: after {@link #collect}, every cell recycled before the call is
 * zeroed and on its manager's free list. The runtime calls it only while nothing else runs on
 * the runtime. {@link #SERIAL} is Taichi's CPU {@code gc_serial}; the {@code gc} module provides
 * a parallel one.
 */
@FunctionalInterface
public interface Collector {
    /** Collects each manager in turn, on the calling thread. */
    Collector SERIAL = managers -> {
        for (NodeManager manager : managers) {
            manager.collect();
        }
    };

    void collect(List<NodeManager> managers);
}
