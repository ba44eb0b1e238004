package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of speed (it asserts only that the data came back): snapshot write
 * and read of layout L2 of bench/WORKLOADS.md filled with the shell data set (centre 1024,
 * R 400, half-width 2: 8,048,580 voxels), against a raw FileChannel write + force and read of
 * the same number of bytes in the same process. Run with
 * {@code mvn -B -ntp -q -pl codegen -am verify -Dtest=SnapshotThroughputTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dsnapshot.throughput=true}; it prints MB/s.
 */
@EnabledIfSystemProperty(named = "snapshot.throughput", matches = "true")
class SnapshotThroughputTest {
    static final Layout L2 = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
    private static final int ROUNDS = 9;

    @TempDir
    Path directory;

    @Test
    void measure() throws IOException {
        Path file = directory.resolve("l2.snap");
        Path raw = directory.resolve("raw.bin");
        double[] write = new double[ROUNDS];
        double[] read = new double[ROUNDS];
        double[] readInto = new double[ROUNDS];
        double[] rawWrite = new double[ROUNDS];
        double[] rawRead = new double[ROUNDS];
        double[] rawLoad = new double[ROUNDS];
        try (SNodeRuntime runtime = SNodeRuntime.compile(L2)) {
            long voxels = fillShell(runtime);
            assertThat(voxels).isEqualTo(8_048_580L);
            double sum = runtime.sum("phi");
            long size = 0;
            // Writes first, then reads: a write's dirty pages and its truncation of the file
            // before would otherwise be cleaned up by the kernel while the next read runs.
            for (int round = 0; round < ROUNDS; round++) {
                long start = System.nanoTime();
                Snapshots.write(runtime, file);
                write[round] = seconds(start);
                size = Files.size(file);
                start = System.nanoTime();
                rawWrite(raw, size);
                rawWrite[round] = seconds(start);
            }
            for (int round = 0; round < ROUNDS; round++) {
                long start = System.nanoTime();
                try (SNodeRuntime loaded = Snapshots.read(file)) {
                    read[round] = seconds(start);
                    assertThat(loaded.count("phi")).isEqualTo(voxels);
                    assertThat(loaded.sum("phi")).isEqualTo(sum);
                }
                try (SNodeRuntime empty = SNodeRuntime.compile(L2)) {
                    start = System.nanoTime();
                    Snapshots.readInto(file, empty);
                    readInto[round] = seconds(start);
                }
                start = System.nanoTime();
                long got = rawRead(raw);
                rawRead[round] = seconds(start);
                assertThat(got).isEqualTo(size);
                start = System.nanoTime();
                assertThat(rawLoad(raw)).isEqualTo(size);
                rawLoad[round] = seconds(start);
            }
            double mb = size / 1e6;
            System.out.printf("snapshot of L2 shell: %d voxels, %.1f MB file%n", voxels, mb);
            report("write (fsync)", mb, write, rawWrite, "raw FileChannel write + force(true)");
            report("read (new runtime)", mb, read, rawRead, "raw FileChannel read");
            report("read (new runtime)", mb, read, rawLoad, "raw FileChannel read into new memory");
            report("readInto (two passes)", mb, readInto, rawRead, "raw FileChannel read");
            report("readInto (two passes)", mb, readInto, rawLoad, "raw FileChannel read into new memory");
        }
    }

    private static void report(String what, double mb, double[] ours, double[] raw, String baseline) {
        double a = median(ours);
        double b = median(raw);
        System.out.printf("%-22s %8.0f MB/s (%.1f ms)   %s %8.0f MB/s (%.1f ms)   ratio %.2f   rounds %s / %s%n",
                what, mb / a, a * 1e3, baseline, mb / b, b * 1e3, b / a, millis(ours), millis(raw));
    }

    private static String millis(double[] seconds) {
        StringBuilder out = new StringBuilder();
        for (double s : seconds) {
            out.append(out.isEmpty() ? "" : " ").append(Math.round(s * 1e3));
        }
        return out.toString();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private static void rawWrite(Path file, long size) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(8 << 20);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            long left = size;
            while (left > 0) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), left));
                left -= channel.write(buffer);
            }
            channel.force(true);
        }
    }

    private static long rawRead(Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(8 << 20);
        long total = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int n;
            while ((n = channel.read(buffer.clear())) > 0) {
                total += n;
            }
        }
        return total;
    }

    /**
     * The same bytes read into new memory of the file's size (what loading a file into memory
     * costs: the bytes end up somewhere, and fresh pages fault in as they are written, as the
     * runtime's do when a snapshot loads).
     */
    private static long rawLoad(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            long size = channel.size();
            MemorySegment memory = arena.allocate(size, 4096);
            long total = 0;
            while (total < size) {
                ByteBuffer piece = memory.asSlice(total, Math.min(8 << 20, size - total)).asByteBuffer();
                while (piece.hasRemaining()) {
                    int n = channel.read(piece);
                    if (n < 0) {
                        return total;
                    }
                    total += n;
                }
            }
            return total;
        }
    }

    /** Writes the shell of WORKLOADS.md (sorted order) into {@code runtime}; returns the voxel count. */
    static long fillShell(SNodeRuntime runtime) {
        long count = 0;
        int lo = 398 * 398;
        int hi = 402 * 402;
        for (int i = 1024 - 402; i <= 1024 + 402; i++) {
            int di = i - 1024;
            for (int j = 1024 - 402; j <= 1024 + 402; j++) {
                int dj = j - 1024;
                int dij = di * di + dj * dj;
                if (dij >= hi) {
                    continue;
                }
                for (int k = 1024 - 402; k <= 1024 + 402; k++) {
                    int dk = k - 1024;
                    int d2 = dij + dk * dk;
                    if (d2 >= lo && d2 < hi) {
                        runtime.generic().setFloat("phi", (float) (Math.sqrt((double) d2) - 400.0), i, j, k);
                        count++;
                    }
                }
            }
        }
        return count;
    }
}
