package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.MemoryCapExceededException;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.testing.PretendedHugePages;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The free of the last chunk of a region on huge pages racing another request for memory of
 * the same pool. The pool counts, for such a region, its chunks and the rest of the huge page
 * after the last one (the envelope); the free gives back the chunk and the old envelope less
 * the new one. Here the freed chunk lies inside the envelope that remains, so the count does not
 * change, and the cap leaves one byte less than the other request: it is refused whenever it
 * runs. Until 12-07 the free gave back the chunk and the old envelope first and counted the new
 * envelope after; a request between the two was granted, and the pool then held more than its cap.
 *
 * <p>The allocator only pretends to back regions with huge pages ({@link PretendedHugePages}): a
 * region is 16 KiB, aligned to 16 KiB (inside one huge page), so that its envelope ends where it
 * does. Chunks A = [0, 4 KiB)
 * and B = [4, 8 KiB) are handed out: 8 KiB of chunks and an envelope of 8 KiB, 16 KiB counted;
 * the free of B leaves A and an envelope of 12 KiB, 16 KiB counted. The cap is 16 KiB + 4095 B.
 *
 * <p>Results: r1 the free (0 returned normally, -9 anything else), r2 the other request of
 * 4 KiB (0 granted, 1 refused by the cap, -9 anything else), r3 the bytes the pool counts
 * afterwards.
 */
@JCStressTest
@Outcome(id = "0, 1, 16384", expect = ACCEPTABLE,
        desc = "The request refused whenever it ran; the count is A and its envelope.")
@State
public class HugePageEnvelopeTest {
    static final long CHUNK = 4096;
    static final long REGION = 4 * CHUNK;
    static final long CAP = REGION + CHUNK - 1;
    static final ConcurrentLinkedQueue<Pool> IDLE = new ConcurrentLinkedQueue<>();

    /** A pool with its region's chunks A and B handed out. */
    static final class Pool {
        final MemoryPool pool = new MemoryPool(new PretendedHugePages(), CAP, false, true);
        final MemoryPool.Region region = pool.reserveRegion(pool.owner("list"), REGION);
        MemorySegment last;

        Pool() {
            if (!region.hugePages()) {
                throw new AssertionError("the region is not on (pretended) huge pages");
            }
            pool.commitChunk(region, 0, CHUNK);
            last = pool.commitChunk(region, CHUNK, CHUNK);
        }
    }

    final Pool state = take();
    MemorySegment granted;

    private static Pool take() {
        Pool pool = IDLE.poll();
        return pool != null ? pool : new Pool();
    }

    @Actor
    public void freeLastChunk(III_Result r) {
        try {
            state.pool.freeChunk(state.last);
            r.r1 = 0;
        } catch (RuntimeException | Error e) {
            r.r1 = Unexpected.report("freeChunk", e);
        }
    }

    @Actor
    public void requestAnother(III_Result r) {
        try {
            granted = state.pool.allocateChunk("other", CHUNK);
            r.r2 = 0;
        } catch (MemoryCapExceededException refused) {
            r.r2 = 1;
        } catch (RuntimeException | Error e) {
            r.r2 = Unexpected.report("allocateChunk", e);
        }
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = (int) state.pool.bytesReserved();
        try {
            if (granted != null) {
                state.pool.freeChunk(granted);
            }
            state.last = state.pool.commitChunk(state.region, CHUNK, CHUNK);
            IDLE.add(state);
        } catch (RuntimeException | Error e) {
            state.pool.close();
        }
    }
}
