package io.snode.runtime.internal.memory;

import io.snode.api.MemoryCapExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ListManagerTest {

    private final MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED);

    @AfterEach
    void closePool() {
        pool.close();
    }

    @Test
    void bytesReservedGrowGeometricallyFor2KiBElements() {
        ListManager list = new ListManager(pool, "root.particles", 2048, 8);

        list.append();
        long afterOne = list.bytesReserved();
        int chunksAfterOne = list.chunkCount();
        appendUntil(list, 1000);
        long afterThousand = list.bytesReserved();
        int chunksAfterThousand = list.chunkCount();
        appendUntil(list, 1_000_000);
        long afterMillion = list.bytesReserved();
        int chunksAfterMillion = list.chunkCount();

        System.out.printf("ListManager, 2 KiB elements: 1 -> %,d bytes in %d chunk(s); 1,000 -> %,d bytes in %d chunks;"
                        + " 1,000,000 -> %,d bytes in %d chunks (payload %,d bytes)%n",
                afterOne, chunksAfterOne, afterThousand, chunksAfterThousand, afterMillion, chunksAfterMillion,
                1_000_000L * 2048);
        // First chunk: 4 KiB = 2 elements.
        assertThat(afterOne).isEqualTo(4096);
        assertThat(chunksAfterOne).isEqualTo(1);
        // 2 + 4 + ... + 512 = 1022 elements in 9 chunks.
        assertThat(afterThousand).isEqualTo(1022L * 2048);
        assertThat(chunksAfterThousand).isEqualTo(9);
        // 16 geometric chunks (2 .. 65536 elements, 131070 in all), then 14 chunks of 65536 (128 MiB each).
        assertThat(afterMillion).isEqualTo((131_070L + 14 * 65_536L) * 2048);
        assertThat(chunksAfterMillion).isEqualTo(30);
        assertThat(pool.bytesReserved()).isEqualTo(afterMillion);
        assertThat(pool.chunksHeld()).isEqualTo(30);
        assertThat(pool.owner("root.particles").bytesReserved()).isEqualTo(afterMillion);
    }

    private static void appendUntil(ListManager list, long size) {
        while (list.size() < size) {
            list.append();
        }
    }

    @Test
    void firstElementCostsOneSmallChunkNot128MiB() {
        ListManager list = new ListManager(pool, "root.a", 8, 8);
        assertThat(list.bytesReserved()).isZero();
        assertThat(list.append()).isZero();
        assertThat(list.bytesReserved()).isEqualTo(4096);
        assertThat(list.chunkCount()).isEqualTo(1);
        assertThat(list.capacity()).isEqualTo(512);
    }

    @Test
    void appendReturnsConsecutiveIndicesAndEveryElementHasItsOwnBytes() {
        ListManager list = new ListManager(pool, "root.a", 12, 4);
        Set<String> places = new HashSet<>();
        for (int i = 0; i < 5000; i++) {
            assertThat(list.append()).isEqualTo(i);
            MemorySegment chunk = list.chunkFor(i);
            long offset = list.offsetFor(i);
            assertThat(offset + list.elementSize()).isLessThanOrEqualTo(chunk.byteSize());
            assertThat(chunk.get(ValueLayout.JAVA_INT, offset)).isZero();
            chunk.set(ValueLayout.JAVA_INT, offset, i + 1);
            chunk.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + 4, -i);
            assertThat(places.add(chunk.address() + offset + ":" + chunk.address())).isTrue();
        }
        for (int i = 0; i < 5000; i++) {
            assertThat(list.getInt(i)).isEqualTo(i + 1);
            assertThat(list.chunkFor(i).get(ValueLayout.JAVA_LONG_UNALIGNED, list.offsetFor(i) + 4)).isEqualTo(-i);
        }
    }

    @Test
    void concurrentAppendsGetDistinctIndicesAndTheSizeAddsUp() throws Exception {
        ListManager list = new ListManager(pool, "root.a", 4, 4);
        int threads = 4;
        int perThread = 20_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(executor.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    long[] got = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        got[i] = list.appendInt(7);
                    }
                    return got;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<long[]> f : results) {
                for (long index : f.get(30, TimeUnit.SECONDS)) {
                    assertThat(all.add(index)).isTrue();
                }
            }
            assertThat(all).hasSize(threads * perThread);
            assertThat(list.size()).isEqualTo(threads * perThread);
            assertThat(list.chunkCount()).isEqualTo(list.geometry().chunksFor(threads * perThread));
            for (long i = 0; i < list.size(); i++) {
                assertThat(list.getInt(i)).isEqualTo(7);
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void clearResetsOnlyTheCountAndContentsStayReadable() {
        ListManager list = new ListManager(pool, "root.a", 4, 4);
        for (int i = 0; i < 3000; i++) {
            list.appendInt(i * 3);
        }
        int chunks = list.chunkCount();
        long bytes = list.bytesReserved();

        list.clear();

        assertThat(list.size()).isZero();
        assertThat(list.chunkCount()).isEqualTo(chunks);
        assertThat(list.bytesReserved()).isEqualTo(bytes);
        assertThat(list.getInt(2999)).isEqualTo(2999 * 3);
        assertThat(list.append()).isZero();
        assertThat(list.getInt(0)).isZero();
        assertThat(list.getInt(1)).isEqualTo(3);
    }

    @Test
    void copyIntsCopiesAcrossChunkBoundaries() {
        ListManager list = new ListManager(pool, "root.a", 4, 4);
        for (int i = 0; i < 5000; i++) {
            list.appendInt(i * 7);
        }
        // Chunks of 1024 and 2048 ints: [1000, 3100) spans three chunks.
        int[] dst = new int[2102];
        list.copyInts(1000, dst, 1, 2100);
        assertThat(dst[0]).isZero();
        for (int i = 0; i < 2100; i++) {
            assertThat(dst[i + 1]).isEqualTo((1000 + i) * 7);
        }
        assertThat(dst[2101]).isZero();
        ListManager wide = new ListManager(pool, "root.b", 8, 8);
        assertThatThrownBy(() -> wide.copyInts(0, dst, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("elementStride=8");
    }

    @Test
    void ensureCapacityMaterialisesChunksWithoutPublishingIndices() {
        ListManager list = new ListManager(pool, "root.a", 8, 8);
        list.ensureCapacity(10_000);
        assertThat(list.size()).isZero();
        assertThat(list.capacity()).isGreaterThanOrEqualTo(10_000);
        assertThat(list.chunkCount()).isEqualTo(list.geometry().chunksFor(10_000));
        list.chunkFor(9_999).set(ValueLayout.JAVA_LONG, list.offsetFor(9_999), 5L);
        assertThat(list.bytesReserved()).isEqualTo(pool.bytesReserved());
    }

    @Test
    void lookupOfAnIndexWithoutChunkThrowsIndexOutOfBounds() {
        ListManager list = new ListManager(pool, "root.a", 8, 8);
        list.append();
        assertThatThrownBy(() -> list.chunkFor(512)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("index=512");
        assertThatThrownBy(() -> list.chunkFor(-1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("index=-1");
        assertThatThrownBy(() -> list.chunkFor(Long.MAX_VALUE)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void capExceededOnAppendLeavesTheListUnchanged() {
        try (MemoryPool small = new MemoryPool(8192)) {
            ListManager list = new ListManager(small, "root.cap", 8, 8);
            // Chunks of 512 and 1024 elements: 4 KiB + 8 KiB > 8 KiB.
            for (int i = 0; i < 512; i++) {
                list.append();
            }
            assertThatThrownBy(list::append).isInstanceOf(MemoryCapExceededException.class)
                    .hasMessageContaining("owner=root.cap");
            assertThat(list.size()).isEqualTo(512);
            assertThat(list.chunkCount()).isEqualTo(1);
            assertThat(small.bytesReserved()).isEqualTo(4096);
        }
    }

    @Test
    void trimChunksRefusesToFreeLiveElements() {
        ListManager list = new ListManager(pool, "root.a", 8, 8);
        list.ensureCapacity(2000);
        for (int i = 0; i < 600; i++) {
            list.append();
        }
        assertThatThrownBy(() -> list.trimChunks(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("size=600");
        list.trimChunks(2);
        assertThat(list.chunkCount()).isEqualTo(2);
        assertThat(list.bytesReserved()).isEqualTo(pool.bytesReserved());
    }

    @Test
    void useAfterCloseThrowsIllegalStateNeverCrashes() {
        ListManager list = new ListManager(pool, "root.a", 8, 8);
        list.append();
        MemorySegment chunk = list.chunkFor(0);
        list.close();

        assertThat(pool.bytesReserved()).isZero();
        assertThatThrownBy(list::append).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> list.chunkFor(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> chunk.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        list.close();
    }

    @Test
    void closingThePoolClosesItsLists() {
        MemoryPool other = new MemoryPool(MemoryPool.UNLIMITED);
        ListManager list = new ListManager(other, "root.a", 8, 8);
        list.append();
        MemorySegment chunk = list.chunkFor(0);
        other.close();

        assertThatThrownBy(list::append).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> chunk.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        list.close();
    }
}
