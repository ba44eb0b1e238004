package io.snode.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.runtime.MemoryStats;
import io.snode.runtime.NodeManagerMetric;
import io.snode.runtime.internal.memory.ChunkGeometry;
import io.snode.runtime.internal.memory.NodeManagerMetrics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SoakTest {
    static Soak.Config seconds(double seconds, int threads) {
        return new Soak.Config((long) (seconds * 1e9), threads, 7, 0, TimeUnit.MILLISECONDS.toNanos(500),
                TimeUnit.SECONDS.toNanos(1));
    }

    /** {@link #seconds} with a memory cap, the regions on huge pages or not, hash nodes or pointer nodes, two or three coordinates. */
    static Soak.Config seconds(double seconds, int threads, long capBytes, boolean hugePages, boolean hash,
                               boolean threeD) {
        Soak.Config base = seconds(seconds, threads);
        return new Soak.Config(base.durationNanos(), threads, base.seed(), capBytes, base.checkNanos(),
                base.reportNanos(), hugePages, hash, threeD);
    }

    @Test
    void aTwoSecondSoakWithThreeThreadsAgreesWithItsModelAndStaysWithinItsFootprintBound() {
        StringWriter text = new StringWriter();
        Soak.Result result = new Soak(seconds(2, 3), new PrintWriter(text)).run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(result.operations()).isPositive();
        assertThat(result.checkpoints()).isGreaterThanOrEqualTo(3);
        assertThat(result.counterResets()).isPositive();
        assertThat(result.collections()).isGreaterThan(result.checkpoints());
        assertThat(result.launches()).as("writing launches").isPositive();
        assertThat(result.footprintPeak()).isPositive().isLessThanOrEqualTo(result.boundAtPeak());
        assertThat(result.seconds()).isBetween(2.0, 60.0);
        assertThat(text.toString()).contains("ops/s", "footprint", "PASSED");
    }

    /**
     * One worker: nothing but its own calls changes the structure between its launches, so a
     * launch after a few writes may reuse the previous launch's snapshot only if those writes
     * activated nothing. (On 12-07 a mutation that reused it whenever no deactivation or
     * collection came between failed 9 s soaks of one worker within 1 to 5 s for seeds 1, 2
     * and 3, and 1.5 s soaks for two seeds of six, 7 (this test's) among them; with three
     * workers, whose deactivations start new epochs all the time, it is found less often.)
     */
    @Test
    void aSoakWithOneWorkerAgreesWithItsModel() {
        StringWriter text = new StringWriter();
        Soak.Result result = new Soak(seconds(2, 1), new PrintWriter(text)).run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(result.launches()).as("writing launches").isPositive();
        assertThat(text.toString()).contains("1 thread for", "PASSED");
    }

    /**
     * The same with the regions on huge pages under a 6 MiB cap, which the huge pages' envelopes
     * (up to 2 MiB per region) make refuse activations: the model of the calls that returned
     * still agrees, and what is reserved stays under the cap. (Once in CI, on 12-07, 6,317,748 B
     * were held: the free of a region's last chunk gave its envelope back in two steps, and a
     * request between them passed the cap; see
     * {@code HugePageRegionTest.freeingTheLastChunkNeverLetsAnotherRequestPassTheCap}.)
     */
    @Test
    void aSoakOnHugePagesAgreesWithItsModelToo() {
        StringWriter text = new StringWriter();
        Soak.Result result = new Soak(seconds(2, 3, 6 << 20, true, false, false), new PrintWriter(text)).run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(result.operations()).isPositive();
        assertThat(result.refusedByCap()).as("the cap refused activations").isPositive();
        assertThat(result.footprintPeak()).isPositive().isLessThanOrEqualTo(result.boundAtPeak()).isLessThanOrEqualTo(6 << 20);
        assertThat(text.toString()).contains("regions on huge pages", "PASSED");
    }

    /**
     * The other layouts under a 2 MiB cap, which refuses cells (and hash tables) along the way;
     * the model agrees in each.
     * <ul>
     *   <li>{@code hash}: hash nodes in place of the pointer nodes. Every thread inserts into
     *       the upper table and into the middle tables below the shared upper cells, and
     *       deactivations leave tombstones that growths drop (no table holds more than 64
     *       keys, so none shrinks); after each checkpoint's collection no retired table is
     *       left and the tables keep their load bound, and at the end no table is held.</li>
     *   <li>{@code 3d}: three coordinates, so that the bulk list writes take the
     *       three-coordinate path (offsets resolved in one pass, stored in another, the mask bits
     *       of forgotten containers held until their values are stored), beside every other
     *       operation and the collections. A mutation that drops the last store of a run of
     *       more than 40 cells fails this soak and passes the two-coordinate one.</li>
     * </ul>
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"hash", "3d"})
    void aSoakOnAnotherLayoutAgreesWithItsModelUnderACap(String variant) {
        boolean hash = variant.equals("hash");
        StringWriter text = new StringWriter();
        Soak.Result result = new Soak(seconds(2, 3, 2 << 20, false, hash, !hash), new PrintWriter(text)).run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(result.operations()).isPositive();
        assertThat(result.refusedByCap()).as("the cap refused activations").isPositive();
        assertThat(text.toString()).contains("layout " + (hash ? Soak.HASH_LAYOUT_TEXT : Soak.LAYOUT_TEXT_3D), "PASSED");
    }

    /**
     * Injected allocator faults ({@code OutOfMemoryError}s, one request in two) on both layouts,
     * two coordinates with pointer nodes and three with hash nodes: every call a fault reached is
     * held to what a refusal by the cap must leave, and the model still agrees. Without the
     * changes of 12-07 a bulk append that such a fault stopped left its elements appended and
     * unreported ({@code ListAppend} caught RuntimeException only), which this soak reported as
     * an owned list longer than the model within a second.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"pointer", "hash3d"})
    void aSoakWithInjectedAllocatorFaultsAgreesWithItsModel(String variant) {
        boolean hash = variant.equals("hash3d");
        Soak.Config config = seconds(1.5, 3, 0, false, hash, hash).withFaultEvery(2);
        StringWriter text = new StringWriter();
        Soak.Result result = new Soak(config, new PrintWriter(text)).run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(result.faultsInjected()).as("faults injected").isPositive();
        assertThat(result.refusedByFault()).as("calls the faults refused").isPositive()
                .isLessThanOrEqualTo(result.faultsInjected());
        assertThat(text.toString()).contains("about one request in 2 fails", "calls refused by them", "PASSED");
    }

    /**
     * The footprint bound is only as good as the live peak it starts from, and live cells peak
     * when a collection starts (deactivated cells wait for it). A peak sampled before a worker's
     * gc() missed what the other workers activated until the collection got the phase lock, and
     * under load the bound came out too tight (seen once in CI: 4,249,584 B held against a bound
     * of 4,209,920 B). Every collection's starting count must be in the recorded peak.
     */
    @Test
    void theLivePeakIncludesWhatEveryCollectionStartsWith() {
        StringWriter text = new StringWriter();
        Map<String, Long> seen = new ConcurrentHashMap<>();
        Soak soak = new Soak(seconds(1, 3), new PrintWriter(text));
        soak.onCollectionStart(stats -> {
            for (MemoryStats.SNodeStats node : stats.snodes()) {
                seen.merge(node.snode().path(), live(node.cells()), Math::max);
                if (node.directories() != null) {
                    seen.merge(node.snode().path() + " directory", live(node.directories()), Math::max);
                }
            }
        });
        Soak.Result result = soak.run();

        assertThat(result.failure()).as(text.toString()).isNull();
        assertThat(seen).as("collections were seen").isNotEmpty();
        seen.forEach((key, most) -> assertThat(soak.peakLive(key))
                .as("recorded live peak of %s", key).isGreaterThanOrEqualTo(most));
    }

    private static long live(NodeManagerMetric metrics) {
        return metrics.cellsInUse() + metrics.cellsCached() + metrics.cellsRecycled();
    }

    /**
     * A worker released by one checkpoint that is slow to look at the stop flag while the
     * coordinator already begins the last checkpoint must still take part in it: it used to read
     * the flag after the release, see the next checkpoint's "stop", return without arriving, and
     * leave the coordinator waiting at the barrier forever (seen as a hung SoakCommandTest).
     */
    @Test
    void aWorkerSlowAfterACheckpointStillTakesPartInTheLastOne() throws InterruptedException {
        StringWriter text = new StringWriter();
        // The first checkpoint comes at 60 ms, before the deadline at 100 ms; after it the next one
        // is the last (the next check and counter reset fall after the deadline).
        Soak soak = new Soak(new Soak.Config(TimeUnit.MILLISECONDS.toNanos(100), 2, 7, 0,
                TimeUnit.MILLISECONDS.toNanos(60), TimeUnit.SECONDS.toNanos(1)), new PrintWriter(text));
        soak.onFirstResume(() -> {
            try {
                assertThat(soak.awaitStopping(60)).as("the coordinator reached the last checkpoint").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Soak.Result[] result = new Soak.Result[1];
        Thread run = Thread.ofPlatform().daemon().start(() -> result[0] = soak.run());
        run.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(run.isAlive()).as("the soak ended (a worker that left early hangs the coordinator):%n%s", text)
                .isFalse();
        assertThat(result[0].failure()).as(text.toString()).isNull();
    }

    @Test
    void aValueChangedBehindTheModelsBackIsReported() {
        StringWriter text = new StringWriter();
        // Leaf (0,0) lies below a shared upper cell, in a middle cell that worker 0 owns.
        Soak.Result result = new Soak(seconds(1, 2), new PrintWriter(text))
                .tamperBeforeFirstCheckpoint(runtime -> runtime.setInt("n", runtime.getInt("n", 0, 0) + 1, 0, 0))
                .run();

        assertThat(result.passed()).isFalse();
        assertThat(result.failure()).startsWith("checkpoint: n(0,0) reads ");
        assertThat(text.toString()).contains("FAILED: checkpoint: n(0,0)");
    }

    @Test
    void aCounterAddLostBehindTheModelsBackIsReported() {
        StringWriter text = new StringWriter();
        int i = Soak.COUNTER_FIRST_LEAF_ROW;
        Soak.Result result = new Soak(seconds(1, 2), new PrintWriter(text))
                .tamperBeforeFirstCheckpoint(runtime -> runtime.addInt("n", -1, i, 3))
                .run();

        assertThat(result.failure()).startsWith("checkpoint: counter n(" + i + ",3) reads ");
    }

    @Test
    void theLargestHeldChunkFollowsTheGeometricChunks() {
        ChunkGeometry ints = ChunkGeometry.of(4, 4); // chunks of 1024, 2048, 4096, ... elements
        assertThat(Soak.largestHeldChunkBytes(ints, 0)).isZero();
        assertThat(Soak.largestHeldChunkBytes(ints, 1)).isEqualTo(4096);
        assertThat(Soak.largestHeldChunkBytes(ints, 1024)).isEqualTo(4096);
        assertThat(Soak.largestHeldChunkBytes(ints, 1025)).isEqualTo(8192);
        assertThat(Soak.largestHeldChunkBytes(ints, 3073)).isEqualTo(16384);
    }

    @Test
    void theBoundIsThePeakOfLiveCellsPlusOneLargestChunkPerList() {
        // 100 cells of 64 bytes allocated: data chunks of 64 then 128 cells; index chunks of 1024 entries.
        NodeManagerMetrics metrics = new NodeManagerMetrics("x", 64, 100, 90, 10, 0, 0, 10, 0, 4, 0, 0);
        assertThat(Soak.bound(metrics, 95)).isEqualTo(95 * (64 + 8) + 128 * 64 + 2 * 4096);
    }
}
