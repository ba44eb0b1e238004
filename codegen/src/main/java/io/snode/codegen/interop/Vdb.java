package io.snode.codegen.interop;

import io.snode.api.FieldType;
import io.snode.api.PlacedField;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.vdb.VdbCompression;
import io.snode.codegen.internal.vdb.VdbGrid;
import io.snode.codegen.internal.vdb.VdbLeaves;
import io.snode.codegen.internal.vdb.VdbReader;
import io.snode.codegen.internal.vdb.VdbTile;
import io.snode.codegen.internal.vdb.VdbValueType;
import io.snode.codegen.internal.vdb.VdbWriter;
import io.snode.gc.PhaseLock;
import io.snode.runtime.internal.BoxTransfer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * OpenVDB files both ways: {@link #export} writes one f32 or f64 field of a 3-D layout as a
 * {@code FloatGrid} or {@code DoubleGrid} (OpenVDB's 5-4-3 tree, file format 224, which OpenVDB 10
 * and later read), and {@link #importGrid} reads a {@code FloatGrid} or {@code DoubleGrid} into a
 * runtime.
 *
 * <pre>{@code
 * Vdb.export(runtime, "phi", Path.of("out/shell.vdb"), Vdb.ExportOptions.DEFAULTS.gridClass(Vdb.GridClass.LEVEL_SET));
 * Vdb.Imported got = Vdb.importGrid(Path.of("shell.vdb"), other, "phi", Vdb.ImportOptions.DEFAULTS);
 * }</pre>
 *
 * <p><b>Export.</b> The grid holds the field's active cells (those a struct-for visits: every
 * cell of an active dense block, the set cells of a bitmasked one) with their values, background
 * 0, whatever the layout (block sizes that are not powers of two included); OpenVDB's axes
 * (x, y, z) are the field's index axes in order. Options: only non-zero cells, the grid's name
 * (default the field's), its class ({@code level set}, {@code fog volume}), the voxel size and
 * the world-space origin of voxel (0, 0, 0) (a uniform scale and translation), and compression:
 * none (default) or zip (the JDK's {@code Deflater}, with OpenVDB's active-mask compression).
 *
 * <p><b>Import.</b> Reads leaf buffers stored uncompressed, zip- or blosc-compressed (LZ4 or
 * stored blocks); other features give a {@link VdbFormatException} naming the file, the grid and
 * the feature. Each active voxel of the grid at OpenVDB coordinates {@code (x, y, z)} becomes the
 * active cell {@code (x, y, z) + offset}; inactive voxels (whatever value they hold) and inactive
 * tiles are not imported. The offset maps OpenVDB's signed coordinates into the layout's
 * non-negative ones: given, or by default, per axis, 0 where the grid's active bounding box is
 * non-negative (so that a round trip keeps coordinates) and minus its minimum where it is
 * negative. Active tiles are expanded into active cells, or refused when
 * {@link ImportOptions#expandTiles} is false. A grid whose active box, moved by the offset, does
 * not fit the field's index space is refused before anything is written, with the box in the
 * message. A {@code FloatGrid} imports into an f32 or f64 field, a {@code DoubleGrid} into an f64
 * field only (narrowing would change values). The writes are {@link Bulk#writeCells}' over the
 * grid's active voxels in the file's order (leaf by leaf, then the active tiles as boxes) and
 * have its failure behaviour: a batch that never takes back what it published. When the memory
 * cap or an allocator fault refuses a container, the voxels before the refused one stay written
 * and active and nothing after it is written, so a block of a layout whose blocks span several
 * leaves of the file may be written in part; deactivate the field and import again with a larger
 * cap.
 */
public final class Vdb {
    private Vdb() {
    }

    /** How leaf buffers are compressed in an exported file. */
    public enum Compression {
        /** Stored as they are. */
        NONE(VdbCompression.NONE),
        /** Zip (the JDK's {@code Deflater}) with OpenVDB's active-mask compression. */
        ZIP(VdbCompression.ZIP);

        private final VdbCompression codec;

        Compression(VdbCompression codec) {
            this.codec = codec;
        }
    }

    /** The grid class metadata OpenVDB tools read ({@code class}). */
    public enum GridClass {
        UNKNOWN(null), LEVEL_SET("level set"), FOG_VOLUME("fog volume");

        private final String text;

        GridClass(String text) {
            this.text = text;
        }
    }

    /**
     * What {@link #export} writes: {@code gridName} null for the field's name; {@code origin} the
     * world-space position of voxel (0, 0, 0).
     */
    public record ExportOptions(String gridName, Compression compression, boolean nonZeroOnly, GridClass gridClass,
                                double voxelSize, double[] origin) {
        public static final ExportOptions DEFAULTS =
                new ExportOptions(null, Compression.NONE, false, GridClass.UNKNOWN, 1.0, new double[3]);

        public ExportOptions {
            Objects.requireNonNull(compression, "compression");
            Objects.requireNonNull(gridClass, "gridClass");
            Objects.requireNonNull(origin, "origin");
            if (origin.length != 3) {
                throw new IllegalArgumentException("origin: 3 coordinates, got " + origin.length);
            }
            if (!(voxelSize > 0) || !Double.isFinite(voxelSize)) {
                throw new IllegalArgumentException("voxelSize=" + voxelSize + " (allowed: finite and > 0)");
            }
            for (double coordinate : origin) {
                if (!Double.isFinite(coordinate)) {
                    throw new IllegalArgumentException("origin=" + java.util.Arrays.toString(origin) + " (allowed: finite)");
                }
            }
            origin = origin.clone();
        }

        public ExportOptions gridName(String name) {
            return new ExportOptions(name, compression, nonZeroOnly, gridClass, voxelSize, origin);
        }

        public ExportOptions compression(Compression how) {
            return new ExportOptions(gridName, how, nonZeroOnly, gridClass, voxelSize, origin);
        }

        /** Exports only active cells whose value is not zero ({@code -0.0} counts as zero: its cell is left out). */
        public ExportOptions nonZeroOnly(boolean only) {
            return new ExportOptions(gridName, compression, only, gridClass, voxelSize, origin);
        }

        public ExportOptions gridClass(GridClass kind) {
            return new ExportOptions(gridName, compression, nonZeroOnly, kind, voxelSize, origin);
        }

        public ExportOptions transform(double size, double x, double y, double z) {
            return new ExportOptions(gridName, compression, nonZeroOnly, gridClass, size, new double[] {x, y, z});
        }

        @Override
        public double[] origin() {
            return origin.clone();
        }

        /** Equal when every component is, the origin compared by content (as {@code Arrays.equals}). */
        @Override
        public boolean equals(Object other) {
            return other instanceof ExportOptions o && Objects.equals(gridName, o.gridName)
                    && compression == o.compression && nonZeroOnly == o.nonZeroOnly && gridClass == o.gridClass
                    && Double.compare(voxelSize, o.voxelSize) == 0 && Arrays.equals(origin, o.origin);
        }

        @Override
        public int hashCode() {
            return Objects.hash(gridName, compression, nonZeroOnly, gridClass, voxelSize, Arrays.hashCode(origin));
        }

        @Override
        public String toString() {
            return "ExportOptions[gridName=" + gridName + ", compression=" + compression + ", nonZeroOnly=" + nonZeroOnly
                    + ", gridClass=" + gridClass + ", voxelSize=" + voxelSize + ", origin=" + Arrays.toString(origin) + "]";
        }
    }

    /**
     * What {@link #importGrid} reads: {@code gridName} null for the file's first grid;
     * {@code offset} null for the default (see the class comment); {@code expandTiles} false to
     * refuse grids with active tiles.
     */
    public record ImportOptions(String gridName, int[] offset, boolean expandTiles) {
        public static final ImportOptions DEFAULTS = new ImportOptions(null, null, true);

        public ImportOptions {
            if (offset != null) {
                if (offset.length != 3) {
                    throw new IllegalArgumentException("offset: 3 coordinates, got " + offset.length);
                }
                offset = offset.clone();
            }
        }

        public ImportOptions gridName(String name) {
            return new ImportOptions(name, offset, expandTiles);
        }

        public ImportOptions offset(int x, int y, int z) {
            return new ImportOptions(gridName, new int[] {x, y, z}, expandTiles);
        }

        public ImportOptions expandTiles(boolean expand) {
            return new ImportOptions(gridName, offset, expand);
        }

        @Override
        public int[] offset() {
            return offset == null ? null : offset.clone();
        }

        /** Equal when every component is, the offset compared by content. */
        @Override
        public boolean equals(Object other) {
            return other instanceof ImportOptions o && Objects.equals(gridName, o.gridName)
                    && Arrays.equals(offset, o.offset) && expandTiles == o.expandTiles;
        }

        @Override
        public int hashCode() {
            return Objects.hash(gridName, Arrays.hashCode(offset), expandTiles);
        }

        @Override
        public String toString() {
            return "ImportOptions[gridName=" + gridName + ", offset=" + Arrays.toString(offset) + ", expandTiles="
                    + expandTiles + "]";
        }
    }

    /**
     * What an import did: the grid's name and value type, the cells activated (voxels plus the
     * voxels of expanded tiles), the offset applied, and the grid's active bounding box in the
     * file's coordinates (inclusive; null for an empty grid).
     */
    public record Imported(String grid, String valueType, long cells, long tileCells, int[] offset, int[] fileBoxLow,
                           int[] fileBoxHigh) {
        /** Keeps copies of the arrays. */
        public Imported {
            offset = offset == null ? null : offset.clone();
            fileBoxLow = fileBoxLow == null ? null : fileBoxLow.clone();
            fileBoxHigh = fileBoxHigh == null ? null : fileBoxHigh.clone();
        }

        @Override
        public int[] offset() {
            return offset == null ? null : offset.clone();
        }

        @Override
        public int[] fileBoxLow() {
            return fileBoxLow == null ? null : fileBoxLow.clone();
        }

        @Override
        public int[] fileBoxHigh() {
            return fileBoxHigh == null ? null : fileBoxHigh.clone();
        }

        /** Equal when every component is, the arrays compared by content. */
        @Override
        public boolean equals(Object other) {
            return other instanceof Imported o && Objects.equals(grid, o.grid) && Objects.equals(valueType, o.valueType)
                    && cells == o.cells && tileCells == o.tileCells && Arrays.equals(offset, o.offset)
                    && Arrays.equals(fileBoxLow, o.fileBoxLow) && Arrays.equals(fileBoxHigh, o.fileBoxHigh);
        }

        @Override
        public int hashCode() {
            return Objects.hash(grid, valueType, cells, tileCells, Arrays.hashCode(offset), Arrays.hashCode(fileBoxLow),
                    Arrays.hashCode(fileBoxHigh));
        }

        @Override
        public String toString() {
            return "grid '" + grid + "' (" + valueType + "): " + cells + " active cells (" + tileCells
                    + " from tiles), offset " + Arrays.toString(offset) + ", file box "
                    + (fileBoxLow == null ? "empty" : Arrays.toString(fileBoxLow) + " to " + Arrays.toString(fileBoxHigh));
        }
    }

    // ------------------------------------------------------------------ export

    /**
     * Writes {@code field}'s active cells to {@code file} as one grid; returns the voxels written.
     * The file is written beside {@code file} under a temporary name and then moved over it, so a
     * write that fails halfway (a full disk, say) leaves the file that was there as it was. A
     * symbolic link is followed: the file it names is replaced (or created), the link stays.
     * The cells are read as a launch reads them (no collection overlaps): a cell that another
     * thread activates, deactivates or writes meanwhile may or may not be in the file, with a
     * value one read of it gave; the file is a valid grid either way.
     *
     * @throws IllegalArgumentException for a field that is not f32 or f64, not 3-D, or not in a
     *                                  dense or bitmasked SNode
     * @throws java.nio.file.FileSystemException where {@code file} (its links followed) exists and
     *                                  is not a regular file (a directory, a FIFO, a device):
     *                                  nothing is written
     */
    public static long export(SNodeRuntime runtime, String field, Path file, ExportOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        PlacedField placed = field3d(runtime, field);
        VdbValueType type = placed.type() == FieldType.F64 ? VdbValueType.DOUBLE : VdbValueType.FLOAT;
        VdbLeaves leaves = new VdbLeaves(type);
        LeafFinder finder = new LeafFinder(leaves);
        boolean nonZero = options.nonZeroOnly();
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            BoxTransfer transfer = Bulk.transfer(runtime, placed);
            if (type == VdbValueType.FLOAT) {
                transfer.forEachActive((at, segment, offset) -> {
                    float value = segment.get(ValueLayout.JAVA_FLOAT, offset);
                    if (!nonZero || value != 0) {
                        int slot = finder.slot(at);
                        leaves.floatValues()[slot] = value; // after slot(): the arrays may have grown
                    }
                });
            } else {
                transfer.forEachActive((at, segment, offset) -> {
                    double value = segment.get(ValueLayout.JAVA_DOUBLE, offset);
                    if (!nonZero || value != 0) {
                        int slot = finder.slot(at);
                        leaves.doubleValues()[slot] = value;
                    }
                });
            }
        }
        String name = options.gridName() == null ? placed.name() : options.gridName();
        VdbGrid grid = new VdbGrid(name, type, options.gridClass().text, options.voxelSize(), options.origin(), 0.0,
                leaves, List.of());
        VdbWriter.write(file, List.of(grid), options.compression().codec);
        return leaves.activeCount();
    }

    /** A leaf's origin: its voxel coordinates rounded down to multiples of 8. */
    private record LeafOrigin(int x, int y, int z) {
    }

    /**
     * Finds the 8^3 leaf of a voxel (cells come container by container, so the last leaf is kept
     * besides a map), marks the voxel active and gives its slot in the leaves' value array (which
     * may have grown: read the array after this call).
     */
    private static final class LeafFinder {
        private final VdbLeaves leaves;
        /**
         * Leaf origins (each coordinate rounded down to a multiple of 8) to leaf number. Whole
         * coordinates, not one long: a coordinate's leaf index takes up to 28 bits, three of them
         * more than a long (until 12-06 a key of 21 bits per axis put leaves whose coordinates
         * reach 2^24 in one leaf, and the export lost their voxels).
         */
        private final Map<LeafOrigin, Integer> index = new HashMap<>();
        private int lastX = -1;
        private int lastY = -1;
        private int lastZ = -1;
        private int lastLeaf;

        LeafFinder(VdbLeaves leaves) {
            this.leaves = leaves;
        }

        int slot(int[] at) {
            int x = at[0];
            int y = at[1];
            int z = at[2];
            int ox = x & ~7;
            int oy = y & ~7;
            int oz = z & ~7;
            if (ox != lastX || oy != lastY || oz != lastZ) {
                lastLeaf = index.computeIfAbsent(new LeafOrigin(ox, oy, oz), origin -> leaves.add(ox, oy, oz));
                lastX = ox;
                lastY = oy;
                lastZ = oz;
            }
            int offset = (x & 7) << 6 | (y & 7) << 3 | (z & 7);
            long[] masks = leaves.masks();
            masks[lastLeaf * 8 + (offset >> 6)] |= 1L << (offset & 63);
            return lastLeaf * 512 + offset;
        }
    }

    // ------------------------------------------------------------------ import

    /**
     * The names of the grids of {@code file}, in file order, whatever their types (so also those
     * {@link #importGrid} refuses).
     *
     * @throws VdbFormatException for a file that is not a {@code .vdb} file this codec can list
     */
    public static List<String> gridNames(Path file) throws IOException {
        return VdbReader.gridNames(file);
    }

    /**
     * Reads a grid of {@code file} into {@code field} of {@code runtime} (see the class comment).
     *
     * @throws VdbFormatException       for a file this codec cannot read (named with the grid and
     *                                  the feature), a file that is not a regular file (a pipe, a
     *                                  device: the reader seeks), or active tiles with
     *                                  {@code expandTiles} false
     * @throws IllegalArgumentException for a grid that does not fit the field's index space once
     *                                  moved by the offset, or a DoubleGrid into an f32 field
     */
    public static Imported importGrid(Path file, SNodeRuntime runtime, String field, ImportOptions options)
            throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        PlacedField placed = field3d(runtime, field);
        VdbGrid grid = VdbReader.read(file, options.gridName());
        if (grid.type() == VdbValueType.DOUBLE && placed.type() == FieldType.F32) {
            throw new IllegalArgumentException(file + ", grid '" + grid.name() + "': a DoubleGrid does not fit field "
                    + field + " (f32) without rounding; import it into an f64 field");
        }
        long tileCells = 0;
        long activeTiles = 0;
        for (VdbTile tile : grid.tiles()) {
            if (tile.active()) {
                activeTiles++;
                tileCells += tile.voxelCount();
            }
        }
        if (activeTiles > 0 && !options.expandTiles()) {
            throw new VdbFormatException(file + ", grid '" + grid.name() + "': " + activeTiles + " active tiles ("
                    + tileCells + " voxels); ImportOptions.expandTiles is false");
        }
        int[] box = grid.activeBoundingBox();
        int[] offset = options.offset() != null ? options.offset() : new int[3];
        if (box == null) {
            return new Imported(grid.name(), grid.type().name(), 0, 0, offset, null, null);
        }
        int[] shape = placed.snode().indexShape();
        if (options.offset() == null) {
            for (int c = 0; c < 3; c++) {
                offset[c] = box[c] < 0 ? -box[c] : 0;
            }
        }
        for (int c = 0; c < 3; c++) {
            long low = (long) box[c] + offset[c];
            long high = (long) box[c + 3] + offset[c];
            if (low < 0 || high >= shape[c]) {
                throw new IllegalArgumentException(file + ", grid '" + grid.name() + "': its active voxels lie in "
                        + Arrays.toString(Arrays.copyOf(box, 3)) + " to " + Arrays.toString(Arrays.copyOfRange(box, 3, 6))
                        + " (inclusive); moved by the offset " + Arrays.toString(offset) + " they do not fit field "
                        + field + "'s index space " + Arrays.toString(shape) + " (nothing was written)");
            }
        }
        long cells;
        try (PhaseLock.Launch ignored = runtime.phaseLock().enterLaunch()) {
            BoxTransfer transfer = Bulk.transfer(runtime, placed);
            cells = new LeafImport(grid.leaves(), placed.type(), offset, transfer).run();
            for (VdbTile tile : grid.tiles()) {
                if (tile.active()) {
                    cells += expandTile(tile, placed.type(), offset, transfer);
                }
            }
        }
        return new Imported(grid.name(), grid.type().name(), cells, tileCells, offset, Arrays.copyOf(box, 3),
                Arrays.copyOfRange(box, 3, 6));
    }

    /** Writes the active voxels of the leaves in batches through {@link BoxTransfer#writeCells}, leaf by leaf. */
    private record LeafImport(VdbLeaves leaves, FieldType type, int[] offset, BoxTransfer transfer) {
        private static final int BATCH = 1 << 16;

        long run() {
            int[][] at = new int[3][BATCH];
            float[] floats = type == FieldType.F32 ? new float[BATCH] : null;
            double[] doubles = type == FieldType.F64 ? new double[BATCH] : null;
            MemorySegment buffer = floats != null ? MemorySegment.ofArray(floats) : MemorySegment.ofArray(doubles);
            long[] masks = leaves.masks();
            float[] fileFloats = leaves.type() == VdbValueType.FLOAT ? leaves.floatValues() : null;
            double[] fileDoubles = leaves.type() == VdbValueType.DOUBLE ? leaves.doubleValues() : null;
            long written = 0;
            int n = 0;
            for (int leaf = 0; leaf < leaves.size(); leaf++) {
                if (n > BATCH - 512) {
                    written += transfer.writeCells(at, 0, n, buffer, 0);
                    n = 0;
                }
                int x0 = leaves.x(leaf) + offset[0];
                int y0 = leaves.y(leaf) + offset[1];
                int z0 = leaves.z(leaf) + offset[2];
                for (int w = 0; w < 8; w++) {
                    long bits = masks[leaf * 8 + w];
                    while (bits != 0) {
                        int voxel = 64 * w + Long.numberOfTrailingZeros(bits);
                        bits &= bits - 1;
                        at[0][n] = x0 + (voxel >> 6);
                        at[1][n] = y0 + ((voxel >> 3) & 7);
                        at[2][n] = z0 + (voxel & 7);
                        int slot = leaf * 512 + voxel;
                        if (floats != null) {
                            floats[n] = fileFloats[slot];
                        } else {
                            doubles[n] = fileDoubles != null ? fileDoubles[slot] : fileFloats[slot];
                        }
                        n++;
                    }
                }
            }
            return written + transfer.writeCells(at, 0, n, buffer, 0);
        }
    }

    /** Writes an active tile as boxes of at most 128^3 cells, each filled with the tile's value. */
    private static long expandTile(VdbTile tile, FieldType type, int[] offset, BoxTransfer transfer) {
        int edge = Math.min(tile.edge(), 128);
        long volume = (long) edge * edge * edge;
        MemorySegment buffer;
        if (type == FieldType.F32) {
            float[] values = new float[(int) volume];
            Arrays.fill(values, (float) tile.value());
            buffer = MemorySegment.ofArray(values);
        } else {
            double[] values = new double[(int) volume];
            Arrays.fill(values, tile.value());
            buffer = MemorySegment.ofArray(values);
        }
        long cells = 0;
        for (int x = 0; x < tile.edge(); x += edge) {
            for (int y = 0; y < tile.edge(); y += edge) {
                for (int z = 0; z < tile.edge(); z += edge) {
                    int[] low = {tile.x() + x + offset[0], tile.y() + y + offset[1], tile.z() + z + offset[2]};
                    int[] high = {low[0] + edge, low[1] + edge, low[2] + edge};
                    cells += transfer.write(low, high, buffer, 0);
                }
            }
        }
        return cells;
    }

    private static PlacedField field3d(SNodeRuntime runtime, String name) {
        PlacedField field = Bulk.field(runtime, name);
        if (field.type() != FieldType.F32 && field.type() != FieldType.F64) {
            throw new IllegalArgumentException("field=" + name + " is " + field.type()
                    + "; .vdb grids here hold f32 (FloatGrid) or f64 (DoubleGrid) fields");
        }
        if (field.snode().indexShape().length != 3) {
            throw new IllegalArgumentException("field=" + name + " has " + field.snode().indexShape().length
                    + " index axes " + field.snode().indexAxes() + "; a .vdb grid is 3-D");
        }
        return field;
    }
}
