package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RuntimeLifecycleTest {

    @Test
    void creatingAndClosingManyRuntimesKeepsTheProcessFlat() throws IOException {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16){ dense(ijk,8).place(f32 phi);"
                + " dynamic(l,1024,64).place(i32 p) }");
        cycle(layout, 100); // warm up: JIT, allocator arenas
        touchTheYoungGeneration();
        long before = residentBytes();
        long committedBefore = committedByTheJvm();
        cycle(layout, 1_000);
        long after = residentBytes();
        long committedAfter = committedByTheJvm();
        // Each runtime holds about 1.2 MiB when it closes; 1,000 of them leaked would be > 1 GiB.
        // Neither are the pages of the JVM's own pools: run alone in a fresh JVM, without the young
        // generation touched first, this window's RSS grew 69 to 76 MB (the test failed; 12-06),
        // against 1.6 MB now, of which 0.7 MB the JVM committed meanwhile (subtracted).
        long grown = Math.max(0, committedAfter - committedBefore);
        System.out.printf("1,000 runtimes: RSS %+d bytes, the JVM's committed memory %+d bytes%n", after - before,
                committedAfter - committedBefore);
        assertThat(after - before - grown).as("RSS growth over 1,000 runtimes, less the JVM's own pools' growth (%d bytes)",
                grown).isLessThan(64L << 20);
    }

    /**
     * Allocates garbage until two collections have run, so that the young generation's pages
     * are all touched before the measured window (a fresh JVM touches them for the first time
     * as it allocates, which looks like growth of the process).
     */
    private static void touchTheYoungGeneration() {
        long collections = collections();
        Object[] sink = new Object[16];
        for (long allocated = 0; collections() < collections + 2 && allocated < (16L << 30); allocated += 1 << 16) {
            sink[(int) (allocated >>> 16) & 15] = new byte[1 << 16];
        }
        assertThat(sink[0]).isNotNull();
    }

    private static long collections() {
        long count = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, collector.getCollectionCount());
        }
        return count;
    }

    /** Memory the JVM committed to its heap and its non-heap pools (metaspace, code cache). */
    private static long committedByTheJvm() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        return memory.getHeapMemoryUsage().getCommitted() + memory.getNonHeapMemoryUsage().getCommitted();
    }

    private static void cycle(Layout layout, int runtimes) {
        for (int n = 0; n < runtimes; n++) {
            try (SparseRuntime rt = SparseRuntime.create(layout)) {
                for (int cell = 0; cell < 20; cell++) {
                    rt.setFloat("phi", cell, cell * 97, cell * 13, cell * 41);
                    rt.appendInt("p", cell, cell * 12, 0, 5);
                }
                assertThat(rt.memoryStats().bytesReserved()).isGreaterThan(1L << 20);
            }
        }
    }

    /** VmRSS of this process, from /proc (Linux). */
    static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
