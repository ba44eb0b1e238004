package io.snode.gc.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: one collection by a {@code ThreePhaseCollector}; its duration is the whole collection. */
@Name(GcEvent.NAME)
@Label("SNode Garbage Collection")
@Category({"SNode", "GC"})
@Description("Three-phase collection of a sparse runtime's node managers: compaction, bookkeeping, refill and zero")
@StackTrace(false)
public final class GcEvent extends Event {
    public static final String NAME = "io.snode.gc.Collection";

    @Label("Runtime")
    @Description("The runtime collected: an SNodeRuntime's layout class (as its toString names it), a SparseRuntime's label")
    public String runtime;

    @Label("Sequence")
    public long sequence;

    @Label("Collector")
    public String collector;

    @Label("Parallelism")
    public int parallelism;

    @Label("Kernels")
    public String kernels;

    @Label("Node Managers")
    public int managers;

    @Label("Cells Reclaimed")
    public long cellsReclaimed;

    @Label("Bytes Zeroed")
    @DataAmount
    public long bytesZeroed;

    @Label("Phase 0 (compact)")
    @Timespan(Timespan.NANOSECONDS)
    public long phase0;

    @Label("Phase 1 (bookkeeping)")
    @Timespan(Timespan.NANOSECONDS)
    public long phase1;

    @Label("Phase 2 (refill and zero)")
    @Timespan(Timespan.NANOSECONDS)
    public long phase2;
}
