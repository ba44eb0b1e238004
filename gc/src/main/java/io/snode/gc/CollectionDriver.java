package io.snode.gc;

import io.snode.gc.internal.CellIndexSort;
import io.snode.gc.internal.GcEvent;
import io.snode.gc.internal.ManagerCollection;
import io.snode.gc.internal.SNodeGcEvent;
import io.snode.gc.internal.TaskRunner;
import io.snode.runtime.internal.memory.NodeManager;
import io.snode.runtime.internal.vectorization.GcKernels;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** What both collectors share: validation, the phase sequence, statistics and JFR events. */
final class CollectionDriver {
    private final String name;
    private final GcKernels kernels;
    private final TaskRunner runner;
    private final ManagerCollection.Compaction compaction;
    private final long copyGrain;
    private final long zeroGrainBytes;
    private final long sortAtLeast;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicReference<CellIndexSort> sortBuffers = new AtomicReference<>();
    private volatile GcStatistics last = GcStatistics.NONE;

    CollectionDriver(String name, GcKernels kernels, TaskRunner runner, ManagerCollection.Compaction compaction,
                     long copyGrain, long zeroGrainBytes, long sortAtLeast) {
        this.name = name;
        this.kernels = kernels;
        this.runner = runner;
        this.compaction = compaction;
        this.copyGrain = copyGrain;
        this.zeroGrainBytes = zeroGrainBytes;
        this.sortAtLeast = sortAtLeast;
    }

    static GcKernels kernels(Vectorization vectorization) {
        return switch (Objects.requireNonNull(vectorization, "vectorization")) {
            case AUTO -> VectorizationProvider.getInstance().gcKernels();
            case SCALAR -> VectorizationProvider.scalar().gcKernels();
            case VECTOR -> VectorizationProvider.vector().map(VectorizationProvider::gcKernels)
                    .orElseThrow(() -> new IllegalStateException(
                            "vectorization=VECTOR but the Vector API kernels are unavailable: "
                                    + VectorizationProvider.vectorUnavailableReason().orElse("?")
                                    + " (add '" + VectorizationProvider.ENABLE_FLAG + "' to the java command line)"));
        };
    }

    /** Collects {@code managers}; returns this call's statistics (also {@link #lastStatistics()} until another call ends). */
    GcStatistics collect(List<NodeManager> managers) {
        Objects.requireNonNull(managers, "managers");
        GcEvent event = new GcEvent();
        event.begin();
        long t0 = System.nanoTime();
        // Check every manager before changing any.
        Map<NodeManager, Boolean> seen = new IdentityHashMap<>();
        List<ManagerCollection> collections = new ArrayList<>(managers.size());
        for (NodeManager manager : managers) {
            if (seen.put(Objects.requireNonNull(manager, "manager"), Boolean.TRUE) != null) {
                throw new IllegalArgumentException("manager=" + manager.owner().name() + " appears twice");
            }
            collections.add(ManagerCollection.begin(manager));
        }
        List<SNodeGcStatistics> perManager = new ArrayList<>(collections.size());
        // The sort's buffers are reused between collections; a concurrent collection makes its own.
        CellIndexSort sort = sortAtLeast == Long.MAX_VALUE ? null : sortBuffers.getAndSet(null);
        if (sort == null && sortAtLeast != Long.MAX_VALUE) {
            sort = new CellIndexSort();
        }
        for (ManagerCollection c : collections) {
            c.phase0(kernels, runner, compaction, copyGrain);
            c.phase1();
            c.phase2(kernels, runner, zeroGrainBytes, sort, sortAtLeast);
            perManager.add(c.statistics());
        }
        if (sort != null) {
            sortBuffers.set(sort);
        }
        long seq = sequence.incrementAndGet();
        GcStatistics stats = new GcStatistics(seq, runner.parallelism(), kernels.name(), System.nanoTime() - t0,
                perManager);
        last = stats;
        event.end();
        String runtime = managers.isEmpty() ? "" : managers.getFirst().owner().pool().label();
        if (event.shouldCommit()) {
            event.runtime = runtime;
            event.sequence = seq;
            event.collector = name;
            event.parallelism = stats.parallelism();
            event.kernels = stats.kernels();
            event.managers = perManager.size();
            event.cellsReclaimed = stats.cellsReclaimed();
            event.bytesZeroed = stats.bytesZeroed();
            event.phase0 = stats.phase0Nanos();
            event.phase1 = stats.phase1Nanos();
            event.phase2 = stats.phase2Nanos();
            event.commit();
        }
        for (SNodeGcStatistics s : perManager) {
            SNodeGcEvent e = new SNodeGcEvent();
            if (!e.isEnabled()) {
                break;
            }
            e.runtime = runtime;
            e.sequence = seq;
            e.owner = s.ownerName();
            e.cellsReclaimed = s.cellsReclaimed();
            e.bytesZeroed = s.bytesZeroed();
            e.cachedCellsDrained = s.cachedCellsDrained();
            e.freeEntriesMoved = s.freeEntriesMoved();
            e.freeCellsAfter = s.freeCellsAfter();
            e.phase0 = s.phase0Nanos();
            e.phase1 = s.phase1Nanos();
            e.phase2 = s.phase2Nanos();
            e.commit();
        }
        return stats;
    }

    GcStatistics lastStatistics() {
        return last;
    }

    int parallelism() {
        return runner.parallelism();
    }

    String kernels() {
        return kernels.name();
    }
}
