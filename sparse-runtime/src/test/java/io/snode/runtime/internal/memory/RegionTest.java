package io.snode.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.testing.LogCapture;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node managers whose cells lie in one reserved region ({@link NativeRegions}, the tests run with
 * native access enabled): cell {@code i} at {@code i * stride} of one segment, zeroed, counted
 * against the cap before it is handed out, refused (cap, injected fault at the commit) with
 * nothing changed, pages given back when a chunk is freed, and the region unmapped at close.
 */
class RegionTest {
    private static final long CELL = 2112; // L2's bitmasked leaf

    @BeforeAll
    static void regionsAreAvailableHere() {
        assertThat(NativeRegions.AVAILABLE).as("Linux x86-64/AArch64 with --enable-native-access (the test flags)").isTrue();
    }

    /** Regions as the default allocator reserves them, and a fault at the {@code failAt}-th commit (0: never). */
    static class FaultAtCommit extends ForwardingAllocator {
        final AtomicLong commits = new AtomicLong();
        volatile long failAt;

        FaultAtCommit() {
            super(MemoryAllocator.regionsWherePossible());
        }

        @Override
        public void commit(MemorySegment region, long offset, long byteSize) {
            if (commits.incrementAndGet() == failAt) {
                throw new IllegalStateException("injected fault at commit " + failAt);
            }
            super.commit(region, offset, byteSize);
        }
    }

    /**
     * Regions assume the kernel's base page is 4 KiB (the offsets given to {@code madvise}, the
     * pagemap entries, the pages the cap counts); an AArch64 kernel with 16 or 64 KiB pages gets
     * chunks and a warning that says why. Until 12-06 the page size was not asked: such a kernel
     * got regions whose first touch of a cell committed up to 16 times what the cap counted.
     */
    @Test
    void pagesOtherThan4KiBAndOtherPlatformsAreRefusedWithAWarningThatSaysWhy() {
        assertThat(NativeRegions.pageSizeRefusal(4096)).isNull();
        for (int pageSize : new int[] {16384, 65536, 8192}) {
            assertThat(NativeRegions.pageSizeRefusal(pageSize))
                    .contains("chunks", "page is " + pageSize + " bytes", "pages of 4096 bytes");
        }
        assertThat(NativeRegions.supportedPlatform("Linux", "aarch64")).isTrue();
        assertThat(NativeRegions.supportedPlatform("Linux", "amd64")).isTrue();
        assertThat(NativeRegions.supportedPlatform("Mac OS X", "aarch64")).isFalse();
        assertThat(NativeRegions.supportedPlatform("Linux", "ppc64le")).isFalse();
    }

    /**
     * A region the kernel refuses (here 2^60 bytes: more address space than a process has) is
     * null, so the caller keeps its cells in chunks, and the first refusal in the JVM is logged
     * with what usually causes it (runtimes never closed exhaust the address space); until 12-06
     * the fallback was silent.
     */
    @Test
    void aRegionTheKernelRefusesIsNullAndTheFirstRefusalIsLogged() {
        try (LogCapture log = new LogCapture(NativeRegions.LOGGER)) {
            assertThat(NativeRegions.reserve(1L << 60)).isNull();
            assertThat(NativeRegions.reserve(1L << 60)).isNull();
            List<java.util.logging.LogRecord> records = log.records();
            assertThat(records).as("logged once, whatever the refusals").hasSizeLessThanOrEqualTo(1);
            if (!NativeRegions.refusalLogged()) {
                throw new AssertionError("no refusal was logged");
            }
            records.forEach(record -> assertThat(record.getMessage())
                    .contains("could not reserve", "chunks", "close()"));
        }
    }

    @Test
    void cellsLieInOneRegionAtIndexTimesStrideZeroedAndCountedAsTheyAreHandedOut() {
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
             NodeManager cells = new NodeManager(pool, "leaf", CELL, 8, -1, 4096)) {
            MemorySegment region = cells.region();
            assertThat(region).isNotNull();
            assertThat(region.address() % MemoryPool.HUGE_PAGE).as("a region starts on a huge page").isZero();
            assertThat(region.byteSize()).isGreaterThanOrEqualTo(4 * 4096 * CELL);
            assertThat(pool.regionBytes()).isEqualTo(region.byteSize());
            assertThat(pool.bytesReserved()).as("a region counts nothing against the cap").isZero();
            Set<Integer> seen = new HashSet<>();
            for (int n = 0; n < 3000; n++) {
                int cell = cells.allocate();
                assertThat(seen.add(cell)).isTrue();
                assertThat(cells.cellChunk(cell)).isSameAs(region);
                assertThat(cells.cellOffset(cell)).isEqualTo(cell * CELL);
                assertThat(region.asSlice(cell * CELL, CELL).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
                region.set(ValueLayout.JAVA_INT, cell * CELL, n + 1);
            }
            long counted = pool.bytesReserved();
            assertThat(counted).as("the cells handed out, in chunks of at most 1 MiB, plus the index lists")
                    .isBetween(3000 * CELL, 3000 * CELL + (2 << 20));
            assertThat(pool.bytesCommitted()).as("resident: the pages of the cells written, not the rest of the chunks")
                    .isBetween(3000 * CELL - NativeRegions.PAGE, counted - 1);
        }
    }

    /**
     * The region keeps one zeroed cell past every cell it can hand out, for reads of an inactive
     * pointer: it lies inside the region, no allocation up to the list's capacity returns it, and
     * it reads zero after the neighbouring cells are written.
     */
    @Test
    void theZeroCellLiesInTheRegionPastEveryCellItCanHandOut() {
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
             NodeManager cells = new NodeManager(pool, "leaf", CELL, 8, -1, 4096)) {
            MemorySegment region = cells.region();
            long zero = cells.zeroCellOffset();
            assertThat(zero % CELL).as("at a cell boundary").isZero();
            assertThat(zero + CELL).as("a whole cell inside the region").isLessThanOrEqualTo(region.byteSize());
            assertThat(zero / CELL).as("past the last cell the region hands out")
                    .isGreaterThanOrEqualTo(cells.maxCells());
            assertThat(cells.maxCells()).as("the zero cell costs the region no capacity")
                    .isGreaterThanOrEqualTo(4 * 4096);
            int last = -1;
            for (int n = 0; n < 3000; n++) {
                last = cells.allocate();
                region.asSlice(cells.cellOffset(last), CELL).fill((byte) 0x5a);
            }
            assertThat(cells.cellOffset(last)).isLessThan(zero);
            assertThat(region.asSlice(zero, CELL).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
        }
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
             NodeManager chunks = new NodeManager(pool, "leaf", CELL, 8, -1, 0)) {
            assertThat(chunks.region()).isNull();
            assertThat(chunks.zeroCellOffset()).as("cells in chunks have no zero cell").isEqualTo(-1);
        }
    }

    /**
     * A manager whose cells could outgrow the largest region (a dynamic node's chunks, a hash
     * node's children: 2^40 cells here) gets a region of {@link NodeManager#REGION_LIMIT_BYTES}
     * where the pool's cap is at most that, and the cap refuses a cell before the region is full;
     * under a larger cap its cells live in chunks of their own, as before.
     */
    @Test
    void aVastIndexSpaceGetsTheLargestRegionWhereTheCapCannotFillIt() {
        long vast = 1L << 40;
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), 16L << 20);
             NodeManager cells = new NodeManager(pool, "chunks", 256, 8, -1, vast)) {
            assertThat(cells.region()).as("a region under a 16 MiB cap").isNotNull();
            assertThat(cells.region().byteSize()).isLessThanOrEqualTo(NodeManager.REGION_LIMIT_BYTES + (2L << 20))
                    .isGreaterThan(NodeManager.REGION_LIMIT_BYTES / 2);
            long taken = 0;
            assertThatThrownBy(() -> {
                while (true) {
                    int cell = cells.allocate();
                    assertThat(cells.cellOffset(cell)).isLessThan(cells.zeroCellOffset());
                }
            }).isInstanceOf(MemoryCapExceededException.class);
            taken = cells.metrics().cellsInUse();
            assertThat(taken * 256).as("the cap, not the region, ended the growth")
                    .isGreaterThan(8L << 20).isLessThanOrEqualTo(16L << 20);
        }
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
             NodeManager cells = new NodeManager(pool, "chunks", 256, 8, -1, vast)) {
            assertThat(cells.region()).as("in chunks under no cap").isNull();
            assertThat(cells.allocate()).isZero();
        }
    }

    /**
     * A dynamic SNode's directory blocks (the chunk references of lists longer than their inline
     * references) lie in a region as its chunks do, so a directory read takes no chunk lookup:
     * lists that need them are read back whole.
     */
    @Test
    void aListsDirectoryBlocksLieInARegion() {
        Layout layout = Layout.parse("pointer(ij,4).dynamic(k,65536,16).place(i32 p)");
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            SNode list = layout.field("p").snode();
            assertThat(rt.internalTree().cells(list).region()).as("chunks").isNotNull();
            assertThat(rt.internalTree().directories(list).region()).as("directory blocks").isNotNull();
            for (int n = 0; n < 3000; n++) {
                rt.appendInt("p", n * 7, n % 4, n % 3);
            }
            for (int n = 0; n < 3000; n++) {
                assertThat(rt.getInt("p", n % 4, n % 3, n / 12)).as("element %d", n).isEqualTo(n * 7);
            }
            assertThat(rt.memoryStats().of(list).cells().cellsInUse()).as("chunks of 16 for 12 lists of 250")
                    .isEqualTo(12 * 16);
        }
    }

    @Test
    void aGrowthTheCapOrACommitFaultRefusesChangesNothing() {
        FaultAtCommit allocator = new FaultAtCommit();
        try (MemoryPool pool = new MemoryPool(allocator, 1 << 20);
             NodeManager cells = new NodeManager(pool, "leaf", CELL, 8, 1, 4096)) {
            List<Integer> taken = new ArrayList<>();
            while (true) {
                long before = pool.bytesReserved();
                long allocated = cells.metrics().cellsAllocated();
                try {
                    taken.add(cells.allocate());
                } catch (MemoryCapExceededException refused) {
                    assertThat(pool.bytesReserved()).isEqualTo(before);
                    assertThat(cells.metrics().cellsAllocated()).isEqualTo(allocated);
                    break;
                }
            }
            assertThat(taken).hasSizeGreaterThan(100);
            for (int cell : taken) {
                cells.recycle(cell);
            }
            cells.collect();
            long before = pool.bytesReserved();
            allocator.failAt = allocator.commits.get() + 1;
            int cell = cells.allocate(); // a freed cell: no commit
            assertThat(pool.bytesReserved()).isEqualTo(before);
            assertThat(cells.cellChunk(cell).asSlice(cells.cellOffset(cell), CELL).toArray(ValueLayout.JAVA_BYTE))
                    .as("a recycled cell is zeroed by the collection").containsOnly(0);
        }
        FaultAtCommit faulty = new FaultAtCommit();
        faulty.failAt = 1;
        try (MemoryPool pool = new MemoryPool(faulty, MemoryPool.UNLIMITED);
             NodeManager cells = new NodeManager(pool, "leaf", CELL, 8, -1, 4096)) {
            assertThatThrownBy(cells::allocate).hasMessageContaining("injected fault at commit 1");
            assertThat(pool.bytesReserved()).isZero();
            assertThat(pool.chunksHeld()).as("index-list chunks of the refused growth are freed too").isZero();
            assertThat(cells.metrics().cellsAllocated()).isZero();
            int cell = cells.allocate(); // the next commit works
            assertThat(cells.cellOffset(cell)).isEqualTo(cell * CELL);
        }
    }

    /**
     * A region stays on base pages unless its pool asks for huge pages: it is advised
     * {@code MADV_NOHUGEPAGE} as it is reserved ({@code nh} among its mapping's {@code VmFlags} in
     * {@code /proc/self/smaps}), so that transparent huge pages at {@code always} commit nothing
     * around a touched byte that the cap has not counted; a pool with huge pages advises
     * {@code MADV_HUGEPAGE} instead ({@code hg}, and no {@code nh}).
     */
    @Test
    void aRegionStaysOnBasePagesUnlessItsPoolAsksForHugePages() throws IOException {
        assumeThat(Path.of("/sys/kernel/mm/transparent_hugepage")).as("a kernel with transparent huge pages").exists();
        try (MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
             MemoryPool huge = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED, false, true)) {
            MemoryPool.Region base = pool.reserveRegion(pool.owner("base"), 16L << 20);
            MemoryPool.Region advised = huge.reserveRegion(huge.owner("huge"), 16L << 20);
            assertThat(base.hugePages()).isFalse();
            assertThat(vmFlags(base.segment())).as("flags of the base-page region's mapping").contains("nh")
                    .doesNotContain("hg");
            assertThat(advised.hugePages()).isTrue();
            assertThat(vmFlags(advised.segment())).as("flags of the huge-page region's mapping").contains("hg")
                    .doesNotContain("nh");
        }
    }

    /** The {@code VmFlags} of the mapping in {@code /proc/self/smaps} that holds {@code region}'s first byte. */
    private static List<String> vmFlags(MemorySegment region) throws IOException {
        long address = region.address();
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
                long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = start <= address && address < end;
            } else if (inside && line.startsWith("VmFlags:")) {
                return List.of(line.substring("VmFlags:".length()).trim().split("\\s+"));
            }
        }
        throw new IllegalStateException("no mapping in /proc/self/smaps holds " + Long.toHexString(address));
    }

    @Test
    void aFreedChunkReadsZeroAndTheRegionIsUnmappedAtClose() {
        MemoryPool pool = new MemoryPool(MemoryAllocator.regionsWherePossible(), MemoryPool.UNLIMITED);
        MemoryPool.Region region = pool.reserveRegion(pool.owner("list"), 64 << 20);
        ListManager list = new ListManager(pool.owner("list"), CELL, 8, region);
        list.ensureCapacity(2000);
        MemorySegment whole = list.region();
        whole.asSlice(0, 2000 * CELL).fill((byte) 7);
        int chunks = list.chunkCount();
        assertThat(chunks).isGreaterThan(1);
        list.trimChunks(1);
        long kept = list.capacity();
        assertThat(whole.asSlice(kept * CELL, (2000 - kept) * CELL).toArray(ValueLayout.JAVA_BYTE))
                .as("freed chunks read zero").containsOnly(0);
        assertThat(whole.get(ValueLayout.JAVA_BYTE, 0)).as("the kept chunk keeps its bytes").isEqualTo((byte) 7);
        assertThat(pool.bytesReserved()).isEqualTo(list.bytesReserved());
        pool.close();
        assertThatThrownBy(() -> whole.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(pool.bytesReserved()).isZero();
    }

    /**
     * Four threads write into a runtime whose region commits fail now and then (every 7th, an
     * injected fault where the kernel would refuse a page): every write that returned is there with
     * its value, every refused one threw the injected fault, and after emptying and collecting no
     * cell stays in use.
     */
    @Test
    void threadsMeetingCommitFaultsKeepEveryWriteThatReturned() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
        FaultAtCommit allocator = new FaultAtCommit() {
            @Override
            public void commit(MemorySegment region, long offset, long byteSize) {
                if (super.commits.incrementAndGet() % 7 == 0) {
                    throw new IllegalStateException("injected fault at a commit");
                }
            }
        };
        try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withAllocator(allocator))) {
            List<int[]> written = writeFromThreads(4, 3000, (thread, n) -> {
                int i = (n * 8 + thread * 3) % 2048;
                int j = (n * 37 + thread) % 2048;
                int k = (n * 61) % 2048;
                try {
                    rt.setFloat("phi", n + 1, i, j, k);
                    return new int[] {i, j, k, n + 1};
                } catch (IllegalStateException refused) {
                    assertThat(refused).hasMessageContaining("injected fault");
                    return null;
                }
            });
            Map<List<Integer>, Set<Float>> model = new HashMap<>();
            int kept = 0;
            for (int[] at : written) {
                model.computeIfAbsent(List.of(at[0], at[1], at[2]), key -> new HashSet<>()).add((float) at[3]);
                kept++;
            }
            assertThat(kept).isPositive();
            assertThat(allocator.commits.get()).as("faults were injected").isGreaterThanOrEqualTo(7);
            for (Map.Entry<List<Integer>, Set<Float>> voxel : model.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(voxel.getValue()).as("voxel %s", at).contains(rt.getFloat("phi", at.get(0), at.get(1), at.get(2)));
            }
            rt.deactivateAll(layout.root());
            rt.collect();
            for (io.snode.runtime.MemoryStats.SNodeStats stats : rt.memoryStats().snodes()) {
                assertThat(stats.cells().cellsInUse()).as(stats.snode().path()).isZero();
            }
        }
    }

    /**
     * Eight threads write into a runtime under a cap that refuses part of their activations; the
     * region's chunks are counted before they are touched: every write that returned is there,
     * and the memory counted never passes the cap.
     */
    @Test
    void threadsGrowingRegionsUnderTheCapKeepEveryWriteThatReturned() throws Exception {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
        long cap = 8 << 20;
        try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
            List<int[]> written = writeFromThreads(8, 2000, (thread, n) -> {
                int i = (n * 8 + thread) % 2048;
                int j = (n * 37) % 2048;
                int k = (thread * 256 + n) % 2048;
                int[] at = null;
                try {
                    rt.setFloat("phi", i + j + k, i, j, k);
                    at = new int[] {i, j, k};
                } catch (MemoryCapExceededException refused) {
                    assertThat(refused.getMessage()).contains(String.valueOf(cap));
                }
                assertThat(rt.memoryStats().pool().bytesReserved()).isLessThanOrEqualTo(cap);
                return at;
            });
            int kept = 0;
            for (int[] at : written) {
                assertThat(rt.getFloat("phi", at[0], at[1], at[2])).isEqualTo((float) (at[0] + at[1] + at[2]));
                kept++;
            }
            assertThat(kept).isPositive();
            assertThat(rt.memoryStats().pool().bytesReserved()).isLessThanOrEqualTo(cap);
        }
    }

    /** One thread's {@code n}-th call: the cell and value it wrote, or null where the call was refused (the body checks how). */
    interface ThreadWrite {
        int[] write(int thread, int n);
    }

    /**
     * Runs {@code calls} calls of {@code body} on each of {@code threads} threads that start
     * together at a barrier, and returns what the calls that returned normally wrote.
     */
    static List<int[]> writeFromThreads(int threads, int calls, ThreadWrite body) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<List<int[]>>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    List<int[]> written = new ArrayList<>();
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < calls; n++) {
                        int[] at = body.write(thread, n);
                        if (at != null) {
                            written.add(at);
                        }
                    }
                    return written;
                }));
            }
            List<int[]> all = new ArrayList<>();
            for (Future<List<int[]>> future : done) {
                all.addAll(future.get(60, TimeUnit.SECONDS));
            }
            return all;
        }
    }
}
