package io.snode.gc.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: what one collection did to one node manager (one SNode). */
@Name(SNodeGcEvent.NAME)
@Label("SNode Garbage Collection of One SNode")
@Category({"SNode", "GC"})
@Description("Per node manager part of an io.snode.gc.Collection event")
@StackTrace(false)
public final class SNodeGcEvent extends Event {
    public static final String NAME = "io.snode.gc.SNodeCollection";

    @Label("Runtime")
    @Description("The runtime collected: an SNodeRuntime's layout class (as its toString names it), a SparseRuntime's label")
    public String runtime;

    @Label("Sequence")
    public long sequence;

    @Label("Owner")
    @Description("The SNode path the node manager's memory is charged to")
    public String owner;

    @Label("Cells Reclaimed")
    public long cellsReclaimed;

    @Label("Bytes Zeroed")
    @DataAmount
    public long bytesZeroed;

    @Label("Cached Cells Drained")
    public long cachedCellsDrained;

    @Label("Free Entries Moved")
    public long freeEntriesMoved;

    @Label("Free Cells After")
    public long freeCellsAfter;

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
