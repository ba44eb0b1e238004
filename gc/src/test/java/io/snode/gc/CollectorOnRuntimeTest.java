package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.gc.internal.GcEvent;
import io.snode.gc.internal.SNodeGcEvent;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.memory.ChunkAllocationEvent;
import io.snode.runtime.internal.memory.MemoryPool;
import io.snode.runtime.internal.memory.NodeManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collectors behind a {@link SparseRuntime}: reuse reads zero, statistics per SNode, JFR events. */
class CollectorOnRuntimeTest {

    static final String FOUR_FIELDS = "pointer(ijk,8).pointer(ijk,4).dense(ijk,8){ place(f32 phi, i32 n, f64 d, i64 l) }";

    private static SparseRuntime runtime(String layout, ThreePhaseCollector collector) {
        return SparseRuntime.create(Layout.parse(layout), RuntimeOptions.DEFAULT.withCollector(collector));
    }

    private static List<ThreePhaseCollector> collectors() {
        return List.of(ThreePhaseCollector.serial(),
                ParallelCollector.builder().parallelism(2).zeroGrainBytes(1).copyGrain(1).build());
    }

    @Test
    void reusedCellsReadZeroInEveryFieldAndStatisticsNameTheSNodes() {
        for (ThreePhaseCollector collector : collectors()) {
            try (collector; SparseRuntime rt = runtime(FOUR_FIELDS, collector)) {
                SNode outer = rt.layout().snode(1);
                SNode inner = rt.layout().snode(2);
                // 3 x 3 x 3 leaf blocks in one outer cell, every voxel of every field written.
                for (int x = 0; x < 24; x++) {
                    for (int y = 0; y < 24; y++) {
                        for (int z = 0; z < 24; z++) {
                            rt.setFloat("phi", 1.5f + x, x, y, z);
                            rt.setInt("n", -1 - y, x, y, z);
                            rt.setDouble("d", Math.PI * z, x, y, z);
                            rt.setLong("l", Long.MIN_VALUE + x + y + z, x, y, z);
                        }
                    }
                }
                assertThat(rt.deactivate(outer, 0, 0, 0)).isTrue();
                rt.collect();

                GcStatistics stats = collector.lastStatistics();
                assertThat(stats.sequence()).isEqualTo(1);
                assertThat(stats.kernels()).isEqualTo(collector.kernels());
                assertThat(stats.snodes()).extracting(SNodeGcStatistics::ownerName)
                        .containsExactly(outer.path(), inner.path());
                SNodeGcStatistics blocks = stats.of(inner.path());
                assertThat(blocks.cellsReclaimed()).isEqualTo(27);
                assertThat(blocks.bytesZeroed()).isEqualTo(27 * 12288);
                assertThat(blocks.cellStride()).isEqualTo(12288);
                assertThat(stats.of(outer.path()).cellsReclaimed()).isEqualTo(1);
                assertThat(stats.cellsReclaimed()).isEqualTo(28);
                assertThat(blocks.phase2Nanos()).isPositive();
                assertThat(stats.totalNanos()).isGreaterThanOrEqualTo(stats.phase0Nanos() + stats.phase1Nanos()
                        + stats.phase2Nanos());

                // Write one voxel per block again: the same cells come back (reuse before growth) and
                // every other voxel reads zero in every field.
                long allocated = rt.memoryStats().of(inner).cells().cellsAllocated();
                for (int b = 0; b < 27; b++) {
                    int x = (b % 3) * 8;
                    int y = (b / 3 % 3) * 8;
                    int z = (b / 9) * 8;
                    rt.setInt("n", 7, x, y, z);
                }
                assertThat(rt.memoryStats().of(inner).cells().cellsAllocated()).isEqualTo(allocated);
                for (int x = 0; x < 24; x++) {
                    for (int y = 0; y < 24; y++) {
                        for (int z = 0; z < 24; z++) {
                            boolean written = x % 8 == 0 && y % 8 == 0 && z % 8 == 0;
                            assertThat(rt.getFloat("phi", x, y, z)).isZero();
                            assertThat(rt.getInt("n", x, y, z)).isEqualTo(written ? 7 : 0);
                            assertThat(rt.getDouble("d", x, y, z)).isZero();
                            assertThat(rt.getLong("l", x, y, z)).isZero();
                        }
                    }
                }
                rt.collect();
                assertThat(collector.lastStatistics().sequence()).isEqualTo(2);
                assertThat(collector.lastStatistics().cellsReclaimed()).isZero();
            }
        }
    }

    @Test
    void everyManagerIsCheckedBeforeAnyIsChanged() {
        try (MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);
             ParallelCollector collector = ParallelCollector.builder().parallelism(2).build()) {
            NodeManager good = ManagerStates.build(pool, "good", 16, 4, new int[] {2, 3}, 1, new int[] {0});
            NodeManager closed = ManagerStates.build(pool, "closed", 16, 2, new int[0], 0, new int[] {1});
            closed.close();
            assertThatThrownBy(() -> collector.collect(List.of(good, closed)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThat(good.recycledListLength()).isEqualTo(1);
            assertThat(good.freeListCursor()).isEqualTo(1);
            assertThatThrownBy(() -> collector.collect(List.of(good, good)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
            assertThat(collector.lastStatistics()).isSameAs(GcStatistics.NONE);
        }
    }

    @Test
    void aClosedParallelCollectorRefusesToCollect() {
        ParallelCollector collector = ParallelCollector.builder().parallelism(2).build();
        collector.close();
        collector.close();
        assertThatThrownBy(() -> collector.collect(List.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> ParallelCollector.builder().parallelism(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parallelism=0");
    }

    @Test
    void jfrRecordsEachCollectionEachSNodeAndEachChunk(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gc.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(GcEvent.NAME);
            recording.enable(SNodeGcEvent.NAME);
            recording.enable(ChunkAllocationEvent.NAME);
            recording.start();
            try (ParallelCollector collector = ParallelCollector.builder().parallelism(2).build();
                 SparseRuntime rt = SparseRuntime.create(Layout.parse(FOUR_FIELDS),
                         RuntimeOptions.DEFAULT.withCollector(collector), "the one collected");
                 SparseRuntime other = runtime(FOUR_FIELDS, collector)) {
                assertThat(rt.label()).isEqualTo("the one collected");
                assertThat(other.label()).startsWith("SparseRuntime");
                rt.setFloat("phi", 1f, 0, 0, 0);
                rt.setFloat("phi", 1f, 8, 0, 0);
                assertThat(rt.deactivate(rt.layout().snode(2), 1, 0, 0)).isTrue(); // the block of voxel (8, 0, 0)
                rt.collect();
                rt.collect();
                other.setFloat("phi", 1f, 0, 0, 0);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        // Each event names its runtime (a field added 12-07: two runtimes of one layout were indistinguishable).
        assertThat(byName(events, GcEvent.NAME)).allSatisfy(e -> assertThat(e.getString("runtime")).isEqualTo("the one collected"));
        assertThat(byName(events, SNodeGcEvent.NAME)).allSatisfy(e -> assertThat(e.getString("runtime")).isEqualTo("the one collected"));
        assertThat(byName(events, ChunkAllocationEvent.NAME).map(e -> e.getString("runtime")).distinct())
                .hasSize(2).contains("the one collected");
        events = events.stream().filter(e -> e.getString("runtime").equals("the one collected")).toList();
        List<RecordedEvent> gcs = byName(events, GcEvent.NAME).toList();
        assertThat(gcs).hasSize(2);
        assertThat(gcs.getFirst().getLong("cellsReclaimed")).isEqualTo(1);
        assertThat(gcs.getFirst().getLong("bytesZeroed")).isEqualTo(12288);
        assertThat(gcs.getFirst().getString("collector")).isEqualTo("parallel");
        assertThat(gcs.getFirst().getInt("managers")).isEqualTo(2);
        List<RecordedEvent> perSNode = byName(events, SNodeGcEvent.NAME).toList();
        assertThat(perSNode).hasSize(4);
        assertThat(perSNode).extracting(e -> e.getString("owner"))
                .contains("root/pointer(ijk,8)/pointer(ijk,4)");
        List<RecordedEvent> chunks = byName(events, ChunkAllocationEvent.NAME).toList();
        // Root cell, two ambient cells, then three lists per node manager that allocated.
        assertThat(chunks).hasSizeGreaterThanOrEqualTo(9);
        assertThat(chunks).extracting(e -> e.getString("owner")).contains("root", "root/pointer(ijk,8)/pointer(ijk,4)");
        assertThat(chunks).allSatisfy(e -> assertThat(e.getLong("bytes")).isPositive());
    }

    private static Stream<RecordedEvent> byName(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name));
    }

    @Test
    void statisticsBeforeTheFirstCollectionAreNone() throws Exception {
        try (SerialCollector c = ThreePhaseCollector.serial()) {
            assertThat(c.lastStatistics()).isSameAs(GcStatistics.NONE);
            assertThat(c.parallelism()).isEqualTo(1);
        }
        assertThatThrownBy(() -> GcStatistics.NONE.of("x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ownerName=x");
        assertThat(Files.exists(Path.of("."))).isTrue();
    }
}
