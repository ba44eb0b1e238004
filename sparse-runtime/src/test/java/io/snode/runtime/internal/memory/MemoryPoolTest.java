package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class MemoryPoolTest {

    @Test
    void capExceededThrowsNamingOwnerHeldRequestedAndCapAndChangesNothing() {
        try (MemoryPool pool = new MemoryPool(8192)) {
            pool.allocateChunk("root.a", 4096);
            MemoryPool.PoolMetrics before = pool.metrics();
            List<MemoryPool.OwnerMetrics> ownersBefore = pool.ownerMetrics();

            MemoryCapExceededException e = catchThrowableOfType(MemoryCapExceededException.class,
                    () -> pool.allocateChunk("root.b", 8192));

            assertThat(e.ownerName()).isEqualTo("root.b");
            assertThat(e.bytesHeld()).isEqualTo(4096);
            assertThat(e.bytesRequested()).isEqualTo(8192);
            assertThat(e.capBytes()).isEqualTo(8192);
            assertThat(e).hasMessageContaining("owner=root.b").hasMessageContaining("bytesHeld=4096")
                    .hasMessageContaining("bytesRequested=8192").hasMessageContaining("capBytes=8192");
            assertThat(pool.metrics()).isEqualTo(before);
            // The owner "root.b" exists now (it was named), but holds nothing.
            assertThat(pool.ownerMetrics()).containsAll(ownersBefore)
                    .contains(new MemoryPool.OwnerMetrics("root.b", 0, 0));
            // Exactly up to the cap still works.
            pool.allocateChunk("root.b", 4096);
            assertThat(pool.bytesReserved()).isEqualTo(8192);
        }
    }

    @Test
    void allocatorFailureLeavesCountersUnchanged() {
        FaultInjectingAllocator allocator = new FaultInjectingAllocator();
        try (MemoryPool pool = new MemoryPool(allocator, MemoryPool.UNLIMITED)) {
            pool.allocateChunk("root.a", 4096);
            MemoryPool.PoolMetrics before = pool.metrics();
            allocator.failAtRequest(1);

            assertThatThrownBy(() -> pool.allocateChunk("root.a", 4096))
                    .isInstanceOf(FaultInjectingAllocator.InjectedFailure.class);

            assertThat(pool.metrics()).isEqualTo(before);
            assertThat(pool.owner("root.a").metrics()).isEqualTo(new MemoryPool.OwnerMetrics("root.a", 4096, 1));
            assertThat(allocator.liveSegments()).isEqualTo(1);
        }
        assertThat(allocator.liveSegments()).isZero();
    }

    @Test
    void chunksAreZeroedPageAlignedAndCountedPerOwner() {
        try (MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED)) {
            MemorySegment a = pool.allocateChunk("root.a", 10_000);
            MemorySegment b = pool.allocateChunk(pool.owner("root.b"), 4096);
            pool.allocateChunk("root.a", 8192);

            assertThat(a.address() % 4096).isZero();
            assertThat(b.address() % 4096).isZero();
            assertThat(a.byteSize()).isEqualTo(10_000);
            for (long i = 0; i < a.byteSize(); i += 8) {
                assertThat(a.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
            assertThat(pool.metrics()).isEqualTo(new MemoryPool.PoolMetrics(MemoryPool.UNLIMITED, 22_288, 22_288, 3));
            assertThat(pool.ownerMetrics()).containsExactly(
                    new MemoryPool.OwnerMetrics("root.a", 18_192, 2),
                    new MemoryPool.OwnerMetrics("root.b", 4096, 1));

            pool.freeChunk(a);

            assertThat(pool.metrics()).isEqualTo(new MemoryPool.PoolMetrics(MemoryPool.UNLIMITED, 12_288, 12_288, 2));
            assertThat(pool.owner("root.a").bytesReserved()).isEqualTo(8192);
            assertThatThrownBy(() -> a.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> pool.freeChunk(a)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not held by this pool");
        }
    }

    @Test
    void closeFreesEveryChunkAndAnyLaterUseThrowsIllegalState() {
        FaultInjectingAllocator allocator = new FaultInjectingAllocator();
        MemoryPool pool = new MemoryPool(allocator, MemoryPool.UNLIMITED);
        MemorySegment chunk = pool.allocateChunk("root.a", 4096);
        pool.allocateChunk("root.b", 4096);

        pool.close();

        assertThat(allocator.liveSegments()).isZero();
        assertThat(pool.metrics()).isEqualTo(new MemoryPool.PoolMetrics(MemoryPool.UNLIMITED, 0, 0, 0));
        assertThat(pool.isClosed()).isTrue();
        assertThatThrownBy(() -> pool.allocateChunk("root.a", 4096)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> pool.freeChunk(chunk)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> pool.owner("root.c")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> chunk.set(ValueLayout.JAVA_INT, 0, 1)).isInstanceOf(IllegalStateException.class);
        pool.close();
    }

    @Test
    void badArgumentsAreRejectedWithNameAndValue() {
        assertThatThrownBy(() -> new MemoryPool(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capBytes=0");
        try (MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);
             MemoryPool other = new MemoryPool(MemoryPool.UNLIMITED)) {
            assertThatThrownBy(() -> pool.allocateChunk("root.a", 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("byteSize=0");
            assertThatThrownBy(() -> pool.allocateChunk(other.owner("root.x"), 4096))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("owner=root.x");
        }
    }

    @Test
    void defaultCapIsHalfOfPhysicalMemory() {
        long physical = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        assertThat(MemoryPool.defaultCapBytes()).isEqualTo(physical / 2);
        try (MemoryPool pool = new MemoryPool()) {
            assertThat(pool.capBytes()).isEqualTo(physical / 2);
        }
    }

    @Test
    void concurrentRequestsNeverTogetherExceedTheCap() throws Exception {
        int threads = 8;
        try (MemoryPool pool = new MemoryPool(10 * 4096)) {
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> granted = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    granted.add(executor.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        int got = 0;
                        for (int i = 0; i < 5; i++) {
                            try {
                                pool.allocateChunk("root.t", 4096);
                                got++;
                            } catch (MemoryCapExceededException expected) {
                                assertThat(expected.bytesHeld()).isLessThanOrEqualTo(10 * 4096);
                            }
                        }
                        return got;
                    }));
                }
                int total = 0;
                for (Future<Integer> f : granted) {
                    total += f.get(30, TimeUnit.SECONDS);
                }
                assertThat(total).isEqualTo(10);
                assertThat(pool.metrics()).isEqualTo(new MemoryPool.PoolMetrics(10 * 4096, 10 * 4096, 10 * 4096, 10));
            } finally {
                executor.shutdownNow();
            }
        }
    }

    @Test
    void creatingAndClosingAThousandPoolsKeepsTheResidentSetFlat() throws IOException {
        // Warm up: class loading, JIT, malloc arenas.
        for (int i = 0; i < 50; i++) {
            useAndClosePool();
        }
        long before = residentBytes();
        for (int i = 0; i < 1000; i++) {
            useAndClosePool();
        }
        long after = residentBytes();
        System.out.printf("RSS before %,d KiB, after 1000 pools %,d KiB (each pool touched 4 x 64 KiB chunks"
                + " and a node manager)%n", before >> 10, after >> 10);
        assertThat(after - before).isLessThan(64L << 20);
    }

    private static void useAndClosePool() {
        try (MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED)) {
            for (int c = 0; c < 4; c++) {
                pool.allocateChunk("root.c", 64 * 1024).fill((byte) 1);
            }
            NodeManager cells = new NodeManager(pool, "root.p", 64, 8);
            for (int i = 0; i < 200; i++) {
                cells.allocate();
            }
        }
    }

    private static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
