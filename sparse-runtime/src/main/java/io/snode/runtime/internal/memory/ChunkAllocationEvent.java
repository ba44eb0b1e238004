package io.snode.runtime.internal.memory;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** JFR: the {@link MemoryPool} obtained one chunk (the pool grew). */
@Name(ChunkAllocationEvent.NAME)
@Label("SNode Chunk Allocation")
@Category({"SNode", "Memory"})
@Description("A memory pool obtained a chunk from its allocator")
public final class ChunkAllocationEvent extends Event {
    public static final String NAME = "io.snode.runtime.ChunkAllocation";

    @Label("Runtime")
    @Description("The runtime whose pool obtained the chunk: an SNodeRuntime's layout class (as its toString names it), a SparseRuntime's label")
    public String runtime;

    @Label("Owner")
    @Description("The SNode path the chunk is charged to")
    public String owner;

    @Label("Chunk Size")
    @DataAmount
    public long bytes;

    @Label("Pool Bytes Reserved")
    @DataAmount
    public long poolBytesReserved;

    @Label("Pool Chunks Held")
    public long poolChunksHeld;

    /** Commits an event if chunk allocation events are enabled; cheap otherwise. */
    static void emit(String runtime, String owner, long bytes, long poolBytesReserved, long poolChunksHeld) {
        ChunkAllocationEvent event = new ChunkAllocationEvent();
        if (event.shouldCommit()) {
            event.runtime = runtime;
            event.owner = owner;
            event.bytes = bytes;
            event.poolBytesReserved = poolBytesReserved;
            event.poolChunksHeld = poolChunksHeld;
            event.commit();
        }
    }
}
