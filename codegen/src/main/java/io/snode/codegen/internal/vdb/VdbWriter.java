package io.snode.codegen.internal.vdb;

import io.snode.codegen.internal.FileReplacement;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Writes FloatGrids and DoubleGrids to a {@code .vdb} file as OpenVDB 10 does ({@code io::File},
 * {@code Archive::write}): file format 224, library 10.0, grid offsets, a random UUID, empty file
 * metadata, then per grid its descriptor (offsets patched once the grid is written), compression
 * flags, metadata ({@code class} when given, {@code file_bbox_min/max}, {@code file_compression},
 * {@code file_mem_bytes}, {@code file_voxel_count}, {@code is_saved_as_half_float} = false,
 * {@code name}, in name order as OpenVDB's map keeps them), transform ({@link VdbTransform}),
 * topology and leaf buffers ({@link TreeWriter}). {@link VdbCompression#ZIP} is written as asked
 * whatever the grid class (OpenVDB itself drops zip for level sets and fog volumes and keeps the
 * active-mask compression). The layout is in {@link VdbFormat}.
 */
public final class VdbWriter {
    private VdbWriter() {
    }

    /**
     * Writes {@code grids} to {@code file}, replacing it as {@link FileReplacement} does (a new
     * file beside it, moved over it: a write that fails halfway leaves the file that was there as
     * it was; a symbolic link is followed and stays). Names must be non-empty, distinct and free
     * of the character U+001E (OpenVDB's unique-name separator).
     *
     * @throws FileSystemException where {@code file} (its links followed) exists and is not a
     *                             regular file (a directory, a FIFO, a device), before anything is
     *                             written; or for a loop of links
     */
    public static void write(Path file, List<VdbGrid> grids, VdbCompression compression) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(compression, "compression");
        Set<String> names = new HashSet<>();
        for (VdbGrid g : grids) {
            Objects.requireNonNull(g, "grid");
            if (g.name().isEmpty() || g.name().indexOf(VdbFormat.UNIQUE_NAME_SEPARATOR) >= 0) {
                throw new IllegalArgumentException("grid name='" + g.name()
                        + "' (must be non-empty, without U+001E)");
            }
            if (!names.add(g.name())) {
                throw new IllegalArgumentException("grid name='" + g.name() + "' appears twice (names must be distinct)");
            }
        }
        List<TreeWriter> trees = grids.stream().map(TreeWriter::new).toList();
        FileReplacement.replace(file, temporary -> writeFile(temporary, grids, trees, compression));
    }

    private static void writeFile(Path file, List<VdbGrid> grids, List<TreeWriter> trees, VdbCompression compression)
            throws IOException {
        try (VdbOutput out = new VdbOutput(file); DataBlocks blocks = new DataBlocks()) {
            out.putLong(VdbFormat.MAGIC);
            out.putInt(VdbFormat.FILE_VERSION);
            out.putInt(VdbFormat.LIBRARY_MAJOR);
            out.putInt(VdbFormat.LIBRARY_MINOR);
            out.putByte(1);
            out.putRaw(UUID.randomUUID().toString());
            new VdbMetadata.Writer().write(out);
            out.putInt(grids.size());
            for (int i = 0; i < grids.size(); i++) {
                writeGrid(out, blocks, grids.get(i), trees.get(i), compression.flags());
            }
        }
    }

    private static void writeGrid(VdbOutput out, DataBlocks blocks, VdbGrid grid, TreeWriter tree, int flags)
            throws IOException {
        out.putString(grid.name());
        out.putString(grid.type().treeTypeName());
        out.putString("");
        long offsets = out.position();
        out.putLong(0);
        out.putLong(0);
        out.putLong(0);
        long gridPos = out.position();
        out.putInt(flags);
        int[] box = grid.activeBoundingBox();
        if (box == null) {
            box = new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE,
                Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE};
        }
        VdbMetadata.Writer meta = new VdbMetadata.Writer();
        if (grid.gridClass() != null) {
            meta.put("class", grid.gridClass());
        }
        meta.put("file_bbox_max", new int[] {box[3], box[4], box[5]})
                .put("file_bbox_min", new int[] {box[0], box[1], box[2]})
                .put("file_compression", VdbFormat.compressionName(flags))
                .put("file_mem_bytes", tree.memBytes())
                .put("file_voxel_count", grid.activeVoxelCount())
                .put("is_saved_as_half_float", false)
                .put("name", grid.name())
                .write(out);
        new VdbTransform(grid.voxelSize(), grid.translation()).write(out);
        NodeValues values = new NodeValues(grid.type(), blocks);
        tree.writeTopology(out, values, flags);
        long blockPos = out.position();
        tree.writeBuffers(out, values, flags);
        long endPos = out.position();
        out.patchLong(offsets, gridPos);
        out.patchLong(offsets + 8, blockPos);
        out.patchLong(offsets + 16, endPos);
    }
}
