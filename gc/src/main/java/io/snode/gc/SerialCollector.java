package io.snode.gc;

import io.snode.gc.internal.ManagerCollection;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.memory.NodeManager;
import java.util.List;

/**
 * The three phases on the calling thread (Taichi's CPU {@code gc_serial}, with the Vector API
 * kernels when available): the free list keeps its order and recycled cells are appended in
 * recycling order, so the result is entry for entry the one of {@link NodeManager#collect()}.
 * It is the reference the parallel collector is tested against. See {@link ThreePhaseCollector}
 * for the protocol.
 */
public final class SerialCollector implements ThreePhaseCollector {
    private final CollectionDriver driver;

    private SerialCollector(Vectorization vectorization) {
        this.driver = new CollectionDriver("serial", CollectionDriver.kernels(vectorization), TaskRunner.inline(),
                ManagerCollection.Compaction.ORDERED, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * @throws IllegalStateException for {@link Vectorization#VECTOR} when the Vector API is unavailable
     */
    public static SerialCollector create(Vectorization vectorization) {
        return new SerialCollector(vectorization);
    }

    @Override
    public void collect(List<NodeManager> managers) {
        collectReporting(managers);
    }

    @Override
    public GcStatistics collectReporting(List<NodeManager> managers) {
        return driver.collect(managers);
    }

    @Override
    public GcStatistics lastStatistics() {
        return driver.lastStatistics();
    }

    @Override
    public int parallelism() {
        return 1;
    }

    @Override
    public String kernels() {
        return driver.kernels();
    }

    /** Nothing to release. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "SerialCollector[kernels=" + kernels() + "]";
    }
}
