package io.snode.codegen.internal.vdb;

import io.snode.codegen.interop.VdbFormatException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads FloatGrids and DoubleGrids from {@code .vdb} files of format versions 222 to 225 (what
 * OpenVDB 8 to 12 write): the header, the grid descriptors (other grids are skipped by their
 * offsets), and one grid's compression flags, metadata, transform and tree ({@link TreeReader}),
 * with leaf data stored raw, zip- or blosc-compressed. Anything else (other grid types, half-float
 * storage, instanced grids, files written as a stream without grid offsets, older format
 * versions) is a {@link VdbFormatException} that names the file, the grid and what is supported;
 * so is input that is not a regular file (a pipe, a device), refused before it is opened.
 * The layout is in {@link VdbFormat}.
 */
public final class VdbReader {
    private VdbReader() {
    }

    /** One grid descriptor. */
    private record Descriptor(String uniqueName, String name, String type, String parent, long gridPos,
            long blockPos, long endPos) {
    }

    /** The names of the file's grids, in file order (a unique-name suffix, if any, removed). */
    public static List<String> gridNames(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        try (VdbInput in = new VdbInput(file)) {
            return descriptors(in).stream().map(Descriptor::name).toList();
        }
    }

    /** Reads the grid named {@code gridName} (its name or unique name), or the first grid when null. */
    public static VdbGrid read(Path file, String gridName) throws IOException {
        Objects.requireNonNull(file, "file");
        try (VdbInput in = new VdbInput(file)) {
            List<Descriptor> all = descriptors(in);
            Descriptor d = null;
            for (Descriptor c : all) {
                if (gridName == null || c.uniqueName.equals(gridName) || c.name.equals(gridName)) {
                    d = c;
                    break;
                }
            }
            if (d == null) {
                throw in.fail(all.isEmpty() ? "the file holds no grid"
                        : "no grid named '" + gridName + "' (grids: "
                                + String.join(", ", all.stream().map(Descriptor::name).toList()) + ")");
            }
            return readGrid(in, d);
        }
    }

    private static List<Descriptor> descriptors(VdbInput in) throws IOException {
        if (in.size() < Long.BYTES) {
            throw in.fail("not a VDB file: " + in.size() + " bytes, shorter than its 8-byte magic number");
        }
        long magic = in.readLong();
        if (magic != VdbFormat.MAGIC) {
            throw in.fail("not a VDB file: bad magic number 0x" + Long.toHexString(magic) + " (expected 0x"
                    + Long.toHexString(VdbFormat.MAGIC) + ")");
        }
        int version = in.readInt();
        if (version < VdbFormat.MIN_FILE_VERSION || version > VdbFormat.MAX_FILE_VERSION) {
            throw in.fail("file format version " + Integer.toUnsignedString(version) + " is not supported (supported: "
                    + VdbFormat.MIN_FILE_VERSION + " to " + VdbFormat.MAX_FILE_VERSION + ", OpenVDB 8 to 12)");
        }
        in.readInt();
        in.readInt();
        if (in.readByte() == 0) {
            throw in.fail("the file has no grid offsets (written as a stream), which is not supported");
        }
        in.skip(VdbFormat.UUID_LENGTH);
        VdbMetadata.read(in);
        long at = in.position();
        int count = in.readInt();
        if (count < 0 || count > in.size() / 32) {
            throw in.fail("grid count " + count + " at offset " + at + ": damaged file");
        }
        List<Descriptor> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String unique = in.readString("grid name");
            int sep = unique.indexOf(VdbFormat.UNIQUE_NAME_SEPARATOR);
            String name = sep < 0 ? unique : unique.substring(0, sep);
            String type = in.readString("grid type of '" + name + "'");
            String parent = in.readString("instance parent of '" + name + "'");
            long gridPos = in.readLong();
            long blockPos = in.readLong();
            long endPos = in.readLong();
            if (gridPos < in.position() || endPos < gridPos || endPos > in.size()) {
                in.grid(name);
                throw in.fail("grid descriptor offsets " + gridPos + ", " + endPos + " lie outside the file ("
                        + in.size() + " bytes): truncated or damaged file");
            }
            list.add(new Descriptor(unique, name, type, parent, gridPos, blockPos, endPos));
            in.seek(endPos);
        }
        return list;
    }

    private static VdbGrid readGrid(VdbInput in, Descriptor d) throws IOException {
        in.grid(d.name);
        if (!d.parent.isEmpty()) {
            throw in.fail("instanced grid (sharing the tree of '" + d.parent + "') is not supported");
        }
        if (d.type.endsWith(VdbFormat.HALF_FLOAT_SUFFIX)) {
            throw in.fail("grid type " + d.type + ": half-float storage is not supported (supported: "
                    + "Tree_float_5_4_3 and Tree_double_5_4_3 stored at full precision)");
        }
        VdbValueType type = VdbValueType.ofTreeTypeName(d.type);
        if (type == null) {
            throw in.fail("grid type " + d.type + " is not supported (supported: Tree_float_5_4_3 (FloatGrid), "
                    + "Tree_double_5_4_3 (DoubleGrid))");
        }
        if (d.blockPos < d.gridPos || d.blockPos > d.endPos) {
            throw in.fail("grid descriptor block offset " + d.blockPos + " lies outside the grid [" + d.gridPos
                    + ", " + d.endPos + "]: damaged file");
        }
        in.seek(d.gridPos);
        int flags = in.readInt();
        int known = VdbFormat.COMPRESS_ZIP | VdbFormat.COMPRESS_ACTIVE_MASK | VdbFormat.COMPRESS_BLOSC;
        if ((flags & ~known) != 0) {
            throw in.fail("compression flags 0x" + Integer.toHexString(flags) + " are not supported (known: zip 0x1,"
                    + " active mask 0x2, blosc 0x4)");
        }
        Map<String, Object> meta = VdbMetadata.read(in);
        if (Boolean.TRUE.equals(meta.get("is_saved_as_half_float"))) {
            throw in.fail("half-float storage (is_saved_as_half_float) is not supported");
        }
        Object cls = meta.get("class");
        String gridClass = cls instanceof String s && !s.equals("unknown") ? s : null;
        VdbTransform transform = VdbTransform.read(in);
        try (DataBlocks blocks = new DataBlocks()) {
            TreeReader tree = new TreeReader(in, type, flags, new NodeValues(type, blocks));
            tree.readTopology();
            if (in.position() != d.blockPos) {
                throw in.fail("the topology ends at offset " + in.position() + " but the descriptor puts the leaf"
                        + " buffers at " + d.blockPos + ": damaged file");
            }
            tree.readBuffers();
            if (in.position() > d.endPos) {
                throw in.fail("the leaf buffers end at offset " + in.position() + ", after the grid's end "
                        + d.endPos + ": damaged file");
            }
            return new VdbGrid(d.name, type, gridClass, transform.voxelSize(), transform.translation(),
                    tree.background(), tree.leaves(), tree.tiles());
        }
    }
}
