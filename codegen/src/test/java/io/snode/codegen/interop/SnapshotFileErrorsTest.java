package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.PlacedField;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.snapshot.SnapshotFormat;
import io.snode.codegen.testing.FailingAllocator;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.testing.LayoutModel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged snapshot is refused with a message naming the file and what is wrong, and
 * {@code readInto} leaves its runtime without an active cell: the file cut at every section
 * boundary and at random lengths, a byte flipped in every section's header and payload, another
 * format version, another layout, a runtime that is not empty.
 */
class SnapshotFileErrorsTest {
    static final Layout LAYOUT = Layout.parse("place(f64 total); "
            + "pointer(ij,4){ place(f32 coarse); bitmasked(ij,4).place(i32 count); dynamic(k,40,4).place(i64 id) }; "
            + "hash(ij,64).dense(ij,2).place(f32 hashed); "
            + "dense(i,3).bitmasked(j,8).place(f64 edge)");

    @TempDir
    Path directory;
    private Path file;
    private byte[] bytes;

    @BeforeEach
    void writeSnapshot() throws IOException {
        file = directory.resolve("good.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            fill(runtime, new Random(5));
            Snapshots.write(runtime, file);
        }
        bytes = Files.readAllBytes(file);
    }

    static void fill(SNodeRuntime runtime, Random random) {
        for (int n = 0; n < 300; n++) {
            PlacedField field = LAYOUT.fields().get(random.nextInt(LAYOUT.fields().size()));
            int[] at = LayoutModel.coordinates(field.snode(), random);
            if (field.snode().kind() == io.snode.api.NodeKind.DYNAMIC) {
                runtime.generic().appendBits(field, LayoutModel.randomBits(field.type(), random),
                        LayoutModel.listCoordinates(field.snode(), at));
            } else {
                runtime.generic().writeBits(field, LayoutModel.randomBits(field.type(), random), at);
            }
        }
    }

    /** Byte offsets where sections start, and the file's end. */
    private List<Integer> sectionStarts() {
        List<Integer> starts = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int at = SnapshotFormat.FILE_HEADER_BYTES;
        while (at < bytes.length) {
            starts.add(at);
            at += SnapshotFormat.SECTION_HEADER_BYTES + (int) buffer.getLong(at + SnapshotFormat.LENGTH_OFFSET);
        }
        assertThat(at).isEqualTo(bytes.length);
        return starts;
    }

    @Test
    void theSnapshotHasSectionsOfEveryKind() throws IOException {
        List<Integer> kinds = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int start : sectionStarts()) {
            kinds.add(buffer.getInt(start + SnapshotFormat.KIND_OFFSET));
        }
        assertThat(kinds).startsWith(SnapshotFormat.LAYOUT, SnapshotFormat.ROOT).endsWith(SnapshotFormat.END)
                .contains(SnapshotFormat.BLOCKS, SnapshotFormat.LISTS);
        try (SNodeRuntime original = SNodeRuntime.compile(LAYOUT); SNodeRuntime read = readBack()) {
            fill(original, new Random(5));
            SameCells.assertSame(original, read);
        }
    }

    private SNodeRuntime readBack() throws IOException {
        return Snapshots.read(file);
    }

    @Test
    void aFileCutAtASectionBoundaryOrAnywhereIsRefused() throws IOException {
        List<Integer> cuts = new ArrayList<>(sectionStarts());
        cuts.add(0);
        cuts.add(7);
        cuts.add(SnapshotFormat.FILE_HEADER_BYTES - 1);
        Random random = new Random(11);
        for (int n = 0; n < 20; n++) {
            cuts.add(random.nextInt(bytes.length));
        }
        for (int start : sectionStarts()) {
            cuts.add(start + SnapshotFormat.SECTION_HEADER_BYTES - 1); // inside a header
            cuts.add(start + SnapshotFormat.SECTION_HEADER_BYTES + 1); // inside a payload
        }
        for (int cut : cuts) {
            if (cut >= bytes.length) {
                continue;
            }
            Path damaged = directory.resolve("cut-" + cut + ".snap");
            Files.write(damaged, Arrays.copyOf(bytes, cut));
            refused(damaged, "truncated at byte " + cut);
        }
    }

    @Test
    void aFlippedByteInAnySectionIsRefused() throws IOException {
        List<Integer> starts = sectionStarts();
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int s = 0; s < starts.size(); s++) {
            int start = starts.get(s);
            long length = buffer.getLong(start + SnapshotFormat.LENGTH_OFFSET);
            int[] targets = length == 0
                    ? new int[] {start + 2, start + SnapshotFormat.LENGTH_OFFSET}
                    : new int[] {start + 2, start + SnapshotFormat.LENGTH_OFFSET, start + SnapshotFormat.PAYLOAD_CRC_OFFSET,
                            start + SnapshotFormat.SECTION_HEADER_BYTES,
                            start + SnapshotFormat.SECTION_HEADER_BYTES + (int) (length / 2),
                            start + SnapshotFormat.SECTION_HEADER_BYTES + (int) length - 1};
            for (int target : targets) {
                byte[] damaged = bytes.clone();
                damaged[target] ^= 0x10;
                Path path = directory.resolve("flip-" + target + ".snap");
                Files.write(path, damaged);
                boolean inPayload = target >= start + SnapshotFormat.SECTION_HEADER_BYTES;
                // the payload's checksum is covered by the header's: flipping it is a corrupted header
                refused(path, "section " + s + " ", "at byte " + start,
                        inPayload ? "payload checksum" : "header checksum");
            }
        }
    }

    @Test
    void anotherFormatVersionIsRefused() throws IOException {
        byte[] damaged = bytes.clone();
        damaged[SnapshotFormat.VERSION_OFFSET] = 9;
        Path path = directory.resolve("version.snap");
        Files.write(path, damaged);
        refused(path, "format version 9; this library reads version " + SnapshotFormat.VERSION);
        byte[] notMagic = bytes.clone();
        notMagic[0] = 'X';
        Path other = directory.resolve("magic.snap");
        Files.write(other, notMagic);
        refused(other, "not a snapshot");
    }

    @Test
    void theFileHeadersZeroBytesAreChecked() throws IOException {
        for (int at = SnapshotFormat.RESERVED_OFFSET; at < SnapshotFormat.FILE_HEADER_BYTES; at++) {
            byte[] damaged = bytes.clone();
            damaged[at] ^= 0x01;
            Path path = directory.resolve("reserved-" + at + ".snap");
            Files.write(path, damaged);
            refused(path, "bytes 12 to 15");
        }
    }

    /** A list piece whose parent cell no earlier record activates is refused naming the piece's own byte in the file. */
    @Test
    void aListPieceWithoutItsParentNamesThePiecesByte() throws IOException {
        Layout lists = Layout.parse("pointer(i,4).dynamic(l,8,2).place(i32 p)");
        Path whole = directory.resolve("lists.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(lists)) {
            runtime.generic().appendInt("p", 7, 2);
            Snapshots.write(runtime, whole);
        }
        byte[] file = Files.readAllBytes(whole);
        ByteBuffer buffer = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        // Leave out the pointer's BLOCKS section (snode 1), which activates the list's parent cell.
        java.io.ByteArrayOutputStream cut = new java.io.ByteArrayOutputStream();
        cut.write(file, 0, SnapshotFormat.FILE_HEADER_BYTES);
        int at = SnapshotFormat.FILE_HEADER_BYTES;
        int listsSection = -1;
        while (at < file.length) {
            int length = SnapshotFormat.SECTION_HEADER_BYTES + (int) buffer.getLong(at + SnapshotFormat.LENGTH_OFFSET);
            int kind = buffer.getInt(at + SnapshotFormat.KIND_OFFSET);
            int snode = buffer.getInt(at + SnapshotFormat.SNODE_OFFSET);
            if (kind == SnapshotFormat.BLOCKS && snode == 1) {
                at += length;
                continue;
            }
            if (kind == SnapshotFormat.LISTS) {
                listsSection = cut.size();
            }
            cut.write(file, at, length);
            at += length;
        }
        assertThat(listsSection).isPositive();
        Path damaged = directory.resolve("no-parent.snap");
        Files.write(damaged, cut.toByteArray());
        assertThatThrownBy(() -> Snapshots.read(damaged).close()).isInstanceOf(SnapshotException.class)
                .hasMessageContaining("record at byte " + (listsSection + SnapshotFormat.SECTION_HEADER_BYTES) + " ")
                .hasMessageContaining("is not active");
    }

    @Test
    void aDirectoryIsNoSnapshotAndSaysSo() {
        assertThatThrownBy(() -> Snapshots.read(directory)).isInstanceOf(java.nio.file.FileSystemException.class)
                .hasMessageContaining(directory.toString()).hasMessageContaining("a directory");
        try (SNodeRuntime empty = SNodeRuntime.compile(LAYOUT)) {
            assertThatThrownBy(() -> Snapshots.readInto(directory, empty)).isInstanceOf(java.nio.file.FileSystemException.class)
                    .hasMessageContaining("a directory");
        }
    }

    /**
     * A file that another thread rewrites (truncating it first) while it is read: every read
     * returns a whole snapshot or throws a SnapshotException; nothing faults. (Read from a mapping,
     * a read of the truncated part ended the JVM with SIGBUS in the CRC32C intrinsic.)
     */
    @Test
    void aFileRewrittenWhileItIsReadIsLoadedWholeOrRefused() throws Exception {
        Path big = directory.resolve("rewritten.snap");
        Layout layout = Layout.parse("pointer(ijk,8).pointer(ijk,4).bitmasked(ijk,4).place(f32 phi)");
        try (SNodeRuntime source = SNodeRuntime.compile(layout)) {
            float[] ones = new float[128 * 128 * 32];
            Arrays.fill(ones, 1f);
            Bulk.write(source, "phi", new int[] {0, 0, 0}, new int[] {128, 128, 32}, ones);
            Snapshots.write(source, big);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicReference<Throwable> unexpected = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicInteger whole = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger refusedReads = new java.util.concurrent.atomic.AtomicInteger();
            Thread reader = new Thread(() -> {
                while (!stop.get()) {
                    try (SNodeRuntime copy = Snapshots.read(big)) {
                        assertThat(copy.count("phi")).isEqualTo(ones.length);
                        whole.incrementAndGet();
                    } catch (SnapshotException | java.nio.file.NoSuchFileException e) {
                        refusedReads.incrementAndGet();
                    } catch (Throwable e) {
                        unexpected.compareAndSet(null, e);
                        return;
                    }
                }
            }, "snapshot reader");
            reader.start();
            for (int n = 0; n < 60 && unexpected.get() == null; n++) {
                Snapshots.write(source, big);
            }
            stop.set(true);
            reader.join(java.util.concurrent.TimeUnit.SECONDS.toMillis(60));
            assertThat(reader.isAlive()).isFalse();
            assertThat(unexpected.get()).as("a read of a file being rewritten threw neither a snapshot nor a refusal").isNull();
            assertThat(whole.get() + refusedReads.get()).isPositive();
        }
    }

    @Test
    void aSnapshotOfAnotherLayoutIsRefusedWithBothLayouts() throws IOException {
        Layout other = Layout.parse("pointer(ij,4).bitmasked(ij,4).place(f32 phi)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(other)) {
            assertThatThrownBy(() -> Snapshots.readInto(file, runtime))
                    .isInstanceOf(SnapshotException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining(LAYOUT.toString())
                    .hasMessageContaining(other.toString());
            assertThat(SameCells.noActiveCell(runtime)).isTrue();
        }
    }

    @Test
    void readIntoARuntimeWithAnActiveCellIsRefused() throws IOException {
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            runtime.generic().setInt("count", 3, 5, 6);
            assertThatThrownBy(() -> Snapshots.readInto(file, runtime))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("has active cells of root/pointer(ij,4)");
            assertThat(runtime.generic().getInt("count", 5, 6)).isEqualTo(3);
        }
    }

    /**
     * A memory cap too small for the snapshot's cells is the runtime's limit, not a fault of the
     * file: both read forms throw the cap's own exception (so that a caller who raises the cap and
     * retries can tell it from a damaged file), read closes its runtime, and readInto leaves its
     * runtime without an active cell and usable. An allocator fault (an Error) passes through the
     * same way.
     */
    @Test
    void aCapTooSmallForTheCellsIsTheCapsExceptionNotAFileError() throws IOException {
        long empty;
        long loaded;
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            empty = runtime.memoryStats().pool().bytesReserved();
            Snapshots.readInto(file, runtime);
            loaded = runtime.memoryStats().pool().bytesReserved();
        }
        assertThat(loaded).isGreaterThan(empty);
        RuntimeOptions capped = RuntimeOptions.DEFAULT.withMemoryCap(empty + (loaded - empty) / 2);
        assertThatThrownBy(() -> Snapshots.read(file, capped).close())
                .isInstanceOf(MemoryCapExceededException.class);
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT, capped)) {
            assertThatThrownBy(() -> Snapshots.readInto(file, runtime))
                    .isInstanceOf(MemoryCapExceededException.class);
            assertThat(SameCells.noActiveCell(runtime)).isTrue();
            runtime.generic().setInt("count", 3, 5, 6);
            assertThat(runtime.generic().getInt("count", 5, 6)).isEqualTo(3);
        }
        for (Throwable fault : List.of(new OutOfMemoryError("injected failure"), new IllegalStateException("injected"))) {
            FailingAllocator failing = new FailingAllocator(() -> fault);
            try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT, RuntimeOptions.DEFAULT.withAllocator(failing))) {
                failing.countdown.set(3);
                assertThatThrownBy(() -> Snapshots.readInto(file, runtime)).isSameAs(fault);
                assertThat(SameCells.noActiveCell(runtime)).isTrue();
            }
            failing.countdown.set(3);
            assertThatThrownBy(() -> Snapshots.read(file, RuntimeOptions.DEFAULT.withAllocator(failing)).close())
                    .isSameAs(fault);
        }
    }

    /**
     * readInto's runtime may hold values in the cells that are always active (root fields, dense
     * cells above every sparse node); a load that the cap refuses halfway leaves them as they
     * were, as it leaves every sparse SNode without an active cell.
     */
    @Test
    void aLoadRefusedHalfwayLeavesTheAlwaysActiveCellsAsTheyWere() throws IOException {
        Layout layout = Layout.parse("place(f64 total); dense(i,4){ place(f32 d); pointer(j,8).bitmasked(j,64).place(f32 v) }");
        Path snapshot = directory.resolve("dense.snap");
        long empty;
        long loaded;
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            empty = runtime.memoryStats().pool().bytesReserved();
            runtime.generic().setDouble("total", 9.5);
            for (int i = 0; i < 4; i++) {
                runtime.generic().setFloat("d", 10 + i, i);
                for (int j = 0; j < 512; j += 3) {
                    runtime.generic().setFloat("v", j, i, j);
                }
            }
            Snapshots.write(runtime, snapshot);
            loaded = runtime.memoryStats().pool().bytesReserved();
        }
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout,
                RuntimeOptions.DEFAULT.withMemoryCap(empty + (loaded - empty) / 2))) {
            runtime.generic().setDouble("total", -1);
            runtime.generic().setFloat("d", -2, 3);
            assertThatThrownBy(() -> Snapshots.readInto(snapshot, runtime)).isInstanceOf(MemoryCapExceededException.class);
            assertThat(runtime.generic().getDouble("total")).isEqualTo(-1);
            assertThat(runtime.generic().getFloat("d", 3)).isEqualTo(-2);
            assertThat(runtime.generic().getFloat("d", 0)).isZero();
            assertThat(runtime.count("v")).isZero();
        }
    }

    @Test
    void aWriteOfAClosedRuntimeLeavesTheFileAsItWas() throws IOException {
        SNodeRuntime closed = SNodeRuntime.compile(LAYOUT);
        closed.close();
        assertThatThrownBy(() -> Snapshots.write(closed, file)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(closed + " is closed");
        assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
        assertThatThrownBy(() -> Snapshots.readInto(file, closed)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(closed + " is closed");
    }

    /**
     * A thread whose interrupt status is set: each call is cancelled with the channels'
     * ClosedByInterruptException and the status stays set. Until 12-07 {@code write} truncated the
     * previous snapshot to 0 bytes before its first write failed.
     */
    @Test
    void anInterruptedThreadsWriteLeavesTheFileAsItWasAndKeepsItsStatus() throws IOException {
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT); SNodeRuntime empty = SNodeRuntime.compile(LAYOUT)) {
            fill(runtime, new Random(6));
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> Snapshots.write(runtime, file))
                        .isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
                assertThatThrownBy(() -> Snapshots.write(runtime, directory.resolve("new.snap")))
                        .isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
                assertThatThrownBy(() -> Snapshots.read(file).close())
                        .isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
                assertThatThrownBy(() -> Snapshots.readInto(file, empty))
                        .isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
            assertThat(directory.resolve("new.snap")).doesNotExist();
            assertThat(empty.count("hashed")).isZero();
            Snapshots.readInto(file, empty); // the thread, no longer interrupted, reads and writes again
            Snapshots.write(runtime, file);
            assertThat(Files.readAllBytes(file)).isNotEqualTo(bytes);
        }
    }

    /** Both read forms refuse {@code damaged} naming it, with each of {@code fragments}; readInto's runtime stays empty. */
    private void refused(Path damaged, String... fragments) throws IOException {
        var read = assertThatThrownBy(() -> Snapshots.read(damaged).close())
                .as("read %s", damaged.getFileName())
                .isInstanceOf(SnapshotException.class)
                .hasMessageContaining(damaged.toString());
        for (String fragment : fragments) {
            read.hasMessageContaining(fragment);
        }
        try (SNodeRuntime empty = SNodeRuntime.compile(LAYOUT)) {
            var into = assertThatThrownBy(() -> Snapshots.readInto(damaged, empty))
                    .as("readInto %s", damaged.getFileName())
                    .isInstanceOf(SnapshotException.class)
                    .hasMessageContaining(damaged.toString());
            for (String fragment : fragments) {
                into.hasMessageContaining(fragment);
            }
            assertThat(SameCells.noActiveCell(empty)).as("readInto of %s left an active cell", damaged.getFileName())
                    .isTrue();
            assertThat(empty.generic().getDouble("total")).isZero();
        }
    }
}
