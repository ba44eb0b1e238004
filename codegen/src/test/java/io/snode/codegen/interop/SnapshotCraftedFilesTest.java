package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.LayoutException;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.snapshot.SnapshotFormat;
import io.snode.runtime.RuntimeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files with valid checksums that the writer never makes, crafted section by section: each is
 * refused with a SnapshotException naming the file, and a refused {@code readInto} reserves
 * nothing (its check pass sees everything the load would refuse); files that differ from the
 * writer's only in the spelling of the layout load.
 */
class SnapshotCraftedFilesTest {
    @TempDir
    Path directory;

    /** One section of a crafted file. */
    record Section(int kind, int snode, byte[] payload) {
    }

    static ByteBuffer payload(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The sections of a snapshot file's bytes. */
    static List<Section> sections(byte[] file) {
        List<Section> sections = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int at = SnapshotFormat.FILE_HEADER_BYTES;
        while (at < file.length) {
            int length = (int) buffer.getLong(at + SnapshotFormat.LENGTH_OFFSET);
            byte[] bytes = new byte[length];
            System.arraycopy(file, at + SnapshotFormat.SECTION_HEADER_BYTES, bytes, 0, length);
            sections.add(new Section(buffer.getInt(at + SnapshotFormat.KIND_OFFSET),
                    buffer.getInt(at + SnapshotFormat.SNODE_OFFSET), bytes));
            at += SnapshotFormat.SECTION_HEADER_BYTES + length;
        }
        return sections;
    }

    /** A file of {@code sections} with valid checksums (no END added). */
    Path write(String name, List<Section> sections) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = payload(SnapshotFormat.FILE_HEADER_BYTES);
        header.putLong(SnapshotFormat.MAGIC).putInt(SnapshotFormat.VERSION).putInt(0);
        out.write(header.array());
        for (Section section : sections) {
            ByteBuffer head = payload(SnapshotFormat.SECTION_HEADER_BYTES);
            head.putInt(section.kind()).putInt(section.snode()).putLong(section.payload().length)
                    .putInt(crc(section.payload(), section.payload().length));
            head.putInt(crc(head.array(), SnapshotFormat.HEADER_CRC_OFFSET));
            out.write(head.array());
            out.write(section.payload());
        }
        Path file = directory.resolve(name);
        Files.write(file, out.toByteArray());
        return file;
    }

    /** A file of its LAYOUT section, {@code sections}, and an END section with {@code records} per SNode id. */
    Path craft(String name, String layout, List<Section> sections, long... records) throws IOException {
        List<Section> all = new ArrayList<>();
        all.add(new Section(SnapshotFormat.LAYOUT, 0, layout.getBytes(StandardCharsets.UTF_8)));
        all.addAll(sections);
        ByteBuffer end = payload(8 + 8 * records.length).putInt(all.size()).putInt(records.length);
        for (long count : records) {
            end.putLong(count);
        }
        all.add(new Section(SnapshotFormat.END, 0, end.array()));
        return write(name, all);
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /**
     * A load counts a section's hash records per container before it loads them (to size each
     * container's table once), without checks: 2^20 records in as many containers whose parent
     * cells are all inactive are refused by the first record's check, and the count keeps no
     * more than a bounded number of containers on the heap meanwhile (a review's probe of 12-06:
     * the first version allocated 254 MB on the heap before refusing this 8 MiB file, and ran out
     * of memory under -Xmx64m).
     */
    @Test
    void hashRecordsInManyContainersUnderInactiveParentsAreRefusedWithABoundedCount() throws IOException {
        String text = "pointer(i,1048576).hash(i,16).place(f32 v)";
        int n = 1 << 20;
        ByteBuffer records = payload(8 * n);
        for (int r = 0; r < n; r++) {
            records.putInt(16 * r).putFloat(1);
        }
        Path file = craft("orphans.snap", text, List.of(new Section(SnapshotFormat.BLOCKS, 2, records.array())), 0, 0, n);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> Snapshots.read(file).close()).isInstanceOf(SnapshotException.class)
                .hasMessageContaining("is not active");
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.printf("2^20 hash records under inactive parents: refused after %d MB allocated on the heap%n",
                allocated / 1_000_000);
        assertThat(allocated).as("bytes allocated on the heap").isLessThan(128L << 20);
    }

    @Test
    void aLayoutThatParsesButDoesNotCompileIsASnapshotExceptionNamingTheFile() throws IOException {
        String text = "dense(ijk,512).place(f32 x)"; // one container of 512 MiB
        Layout.parse(text);
        Path file = craft("too-large.snap", text, List.of(), 0, 0);
        assertThatThrownBy(() -> Snapshots.read(file).close()).isInstanceOf(SnapshotException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("does not compile")
                .hasMessageContaining("134217728 bytes (128 MiB)")
                .cause().isInstanceOf(LayoutException.class);
    }

    /** Layouts are equal by their canonical text: another spelling of the runtime's layout is the same layout. */
    @Test
    void readIntoComparesLayoutsNotTheirSpelling() throws IOException {
        Layout layout = Layout.parse("pointer(i,4).dynamic(l,100,8).place(i32 p, f32 q)");
        String spelling = "pointer(i,4) . dynamic(l,100,8).place(i32 p,f32 q)";
        assertThat(Layout.parse(spelling)).isEqualTo(layout);
        Path written = directory.resolve("written.snap");
        try (SNodeRuntime source = SNodeRuntime.compile(layout)) {
            for (int n = 0; n < 20; n++) {
                source.generic().appendInt("p", n, n % 3);
            }
            Snapshots.write(source, written);
            List<Section> sections = sections(Files.readAllBytes(written));
            sections.set(0, new Section(SnapshotFormat.LAYOUT, 0, spelling.getBytes(StandardCharsets.UTF_8)));
            Path respelled = write("respelled.snap", sections);
            try (SNodeRuntime target = SNodeRuntime.compile(layout)) {
                Snapshots.readInto(respelled, target);
                SameCells.assertSame(source, target);
            }
            try (SNodeRuntime read = Snapshots.read(respelled)) {
                SameCells.assertSame(source, read);
            }
        }
    }

    /**
     * A record whose parent cell no earlier record activates: readInto's check pass refuses it,
     * so that no pointer cell is activated (and no memory reserved) before the refusal.
     */
    @Test
    void aRecordWhoseParentIsNotActiveIsRefusedBeforeReadIntoReservesAnything() throws IOException {
        Layout layout = Layout.parse("pointer(ijk,2).dense(ijk,2).place(f32 phi)");
        Path good = directory.resolve("parent-good.snap");
        try (SNodeRuntime source = SNodeRuntime.compile(layout)) {
            source.generic().setFloat("phi", 1.5f, 2, 2, 0); // pointer cell (1,1,0): cell 6 of its container
            Snapshots.write(source, good);
        }
        List<Section> sections = sections(Files.readAllBytes(good));
        assertThat(sections.get(1).kind()).isEqualTo(SnapshotFormat.BLOCKS);
        assertThat(sections.get(1).snode()).isEqualTo(1);
        ByteBuffer.wrap(sections.get(1).payload()).order(ByteOrder.LITTLE_ENDIAN).putLong(12, 1L); // cell 0 instead
        Path bad = write("parent-bad.snap", sections);
        refusedBeforeAnyReservation(layout, bad, "is not active");
    }

    /** A list that comes a second time (a first piece at the same coordinates), shorter: the load would refuse it after writes. */
    @Test
    void aListThatComesTwiceIsRefusedBeforeReadIntoReservesAnything() throws IOException {
        String text = "pointer(i,4).dynamic(l,8,2).place(i32 p)";
        ByteBuffer pointer = payload(4 + 8).putInt(0).putLong(1L << 2); // activates pointer cell 2
        ByteBuffer lists = payload(2 * (8 + 16) + (1 + 8) + (1 + 4) + (1 + 4));
        lists.putInt(2).putInt(0).putLong(3).putInt(0).putInt(2); // list [2, 0]: 3 elements in 2 chunks
        lists.put((byte) 1).putInt(10).putInt(11).put((byte) 1).putInt(12);
        lists.putInt(2).putInt(0).putLong(1).putInt(0).putInt(1); // list [2, 0] again: 1 element
        lists.put((byte) 1).putInt(20);
        Path file = craft("list-twice.snap", text, List.of(new Section(SnapshotFormat.BLOCKS, 1, pointer.array()),
                new Section(SnapshotFormat.LISTS, 2, lists.array())), 0, 1, 2);
        refusedBeforeAnyReservation(Layout.parse(text), file, "list [2, 0]");
    }

    /**
     * A record of a few bytes whose mask activates pointer cells that hold a 128 MiB dense block
     * each, with no record for those blocks: refused before the first cell is activated, by
     * {@code read} (one pass) as by {@code readInto}.
     */
    @Test
    void cellsWhoseDenseBlocksTheFileCannotHoldAreRefusedBeforeTheyAreActivated() throws IOException {
        String text = "pointer(i,64).dense(j,33554432).place(f32 x)";
        Path file = craft("cell-bomb.snap", text,
                List.of(new Section(SnapshotFormat.BLOCKS, 1, payload(4 + 8).putInt(0).putLong(0xFF).array())), 0, 1, 0);
        // room for the pointer's ambient cell (128 MiB), not for one more cell: the old reader met the cap
        RuntimeOptions capped = RuntimeOptions.DEFAULT.withMemoryCap(192L << 20);
        assertThatThrownBy(() -> Snapshots.read(file, capped).close()).isInstanceOf(SnapshotException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("record at byte " + (SnapshotFormat.FILE_HEADER_BYTES + 2 * SnapshotFormat.SECTION_HEADER_BYTES
                        + text.length()) + " ")
                .hasMessageContaining("root/pointer(i,64)/dense(j,33554432)");
        try (SNodeRuntime target = SNodeRuntime.compile(Layout.parse(text), capped)) {
            long reserved = target.memoryStats().bytesReserved();
            assertThatThrownBy(() -> Snapshots.readInto(file, target)).isInstanceOf(SnapshotException.class)
                    .hasMessageContaining(file.toString());
            assertThat(target.memoryStats().bytesReserved()).isEqualTo(reserved);
        }
    }

    /** The writer writes one record per dense block (with fields) in an active parent cell; a file with fewer is refused. */
    @Test
    void anActiveCellWithoutARecordForItsDenseBlockIsRefused() throws IOException {
        String text = "pointer(i,4).dense(j,4).place(f32 x)";
        ByteBuffer pointer = payload(4 + 8).putInt(0).putLong(0b11); // pointer cells 0 and 1
        ByteBuffer dense = payload(8 + 16).putInt(0).putInt(0).putFloat(1).putFloat(2).putFloat(3).putFloat(4);
        Path file = craft("missing-block.snap", text, List.of(new Section(SnapshotFormat.BLOCKS, 1, pointer.array()),
                new Section(SnapshotFormat.BLOCKS, 2, dense.array())), 0, 1, 1);
        refusedBeforeAnyReservation(Layout.parse(text), file, "1 records of root/pointer(i,4)/dense(j,4)",
                "2 active cells");
    }

    /** Both read forms refuse {@code file}; readInto's runtime reserves nothing and keeps no active cell. */
    private static void refusedBeforeAnyReservation(Layout layout, Path file, String... fragments) throws IOException {
        var read = assertThatThrownBy(() -> Snapshots.read(file).close()).isInstanceOf(SnapshotException.class)
                .hasMessageContaining(file.toString());
        for (String fragment : fragments) {
            read.hasMessageContaining(fragment);
        }
        try (SNodeRuntime target = SNodeRuntime.compile(layout)) {
            long reserved = target.memoryStats().bytesReserved();
            var into = assertThatThrownBy(() -> Snapshots.readInto(file, target)).isInstanceOf(SnapshotException.class)
                    .hasMessageContaining(file.toString());
            for (String fragment : fragments) {
                into.hasMessageContaining(fragment);
            }
            assertThat(target.memoryStats().bytesReserved()).as("bytes reserved after the refusal").isEqualTo(reserved);
            assertThat(SameCells.noActiveCell(target)).isTrue();
        }
    }
}
