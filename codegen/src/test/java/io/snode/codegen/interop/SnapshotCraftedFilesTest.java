package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.LayoutException;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.snapshot.SnapshotFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
 * refused with a SnapshotException naming the file; files that differ from the writer's only in
 * the spelling of the layout load.
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
}
