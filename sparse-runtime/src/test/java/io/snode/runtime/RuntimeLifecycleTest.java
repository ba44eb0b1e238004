package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RuntimeLifecycleTest {

    @Test
    void creatingAndClosingManyRuntimesKeepsTheProcessFlat() throws IOException {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16){ dense(ijk,8).place(f32 phi);"
                + " dynamic(l,1024,64).place(i32 p) }");
        cycle(layout, 100); // warm up: JIT, allocator arenas
        long before = residentBytes();
        cycle(layout, 1_000);
        long after = residentBytes();
        // Each runtime holds about 1.2 MiB when it closes; 1,000 of them leaked would be > 1 GiB.
        assertThat(after - before).as("RSS growth over 1,000 runtimes").isLessThan(64L << 20);
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
