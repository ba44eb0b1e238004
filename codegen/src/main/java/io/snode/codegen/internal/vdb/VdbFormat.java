package io.snode.codegen.internal.vdb;

/**
 * The layout of an OpenVDB {@code .vdb} file (format versions 222 to 225) as far as this codec
 * reads and writes it, and its constants in one place. Learnt from OpenVDB's {@code io/Archive.cc},
 * {@code io/GridDescriptor.cc}, {@code io/Compression.h/.cc}, {@code tree/RootNode.h},
 * {@code tree/InternalNode.h}, {@code tree/LeafNode.h} and {@code math/Maps.h}; our own code.
 * Every number is little-endian; a "string" is an int32 length and that many bytes.
 *
 * <pre>
 * file      int64 magic 0x56444220 (" BDV\0\0\0\0")  uint32 file version (224)
 *           uint32 library major, minor (10, 0)       byte has-grid-offsets (1)
 *           36 ASCII bytes UUID                        metadata file metadata
 *           int32 grid count                           grid-count x (descriptor, grid)
 * descriptor string unique name (name, or name + 0x1E + n)   string grid type ("Tree_float_5_4_3",
 *           + "_HalfFloat" for half storage)  string instance parent ("" unless instanced)
 *           int64 grid pos, block pos, end pos (absolute; end pos = next descriptor)
 * grid      uint32 compression flags (ZIP 1, ACTIVE_MASK 2, BLOSC 4)  metadata grid metadata
 *           transform   int32 buffer count (1)   root topology   leaf buffers (block pos)
 * metadata  int32 count, count x (string name, string type, int32 size, size bytes)
 * transform string map type, then the map: "UniformScaleMap" = 5 x vec3d (scale, voxel size,
 *           1/scale, 1/scale^2, 0.5/scale); "UniformScaleTranslateMap" = vec3d translation + those
 * root      value background  uint32 tile count  uint32 child count
 *           tiles: int32 x,y,z  value  byte active;  children: int32 x,y,z  upper topology
 * upper     (32^3, edge 4096) child mask 512 words, value mask 512 words,
 *           node values (32768), then each child's lower topology in offset order
 * lower     (16^3, edge 128) child mask 64 words, value mask 64 words, node values (4096),
 *           then each child leaf's value mask (8 words) in offset order
 * buffers   per leaf, in the order of the topology (root children sorted by origin):
 *           value mask (8 words, a copy), node values (512)
 * node values  byte mask-compression mode (0..6), then per mode up to two inactive values and a
 *           selection mask (as many words as the node's masks), then a data block of either the
 *           active values only (ACTIVE_MASK set and mode != 6) or all of them
 * data block  NONE: the raw values; ZIP: int64 n, then n zlib bytes (n > 0) or -n raw bytes
 *           (n <= 0); BLOSC: int64 n, then an n-byte blosc1 buffer (n > 0) or -n raw bytes
 * </pre>
 *
 * Offsets in a node: {@code ((x & (edge-1)) >> childShift) << 2*log2Dim | (y ...) << log2Dim |
 * (z ...)}; bit {@code b} of mask word {@code w} is offset {@code 64w + b}.
 */
public final class VdbFormat {
    public static final long MAGIC = 0x56444220L;
    public static final int FILE_VERSION = 224;
    public static final int MIN_FILE_VERSION = 222;
    /** 225 (OpenVDB 12) only adds the half tree type, which this codec rejects by its type name. */
    public static final int MAX_FILE_VERSION = 225;
    public static final int FILE_VERSION_GRID_INSTANCING = 216;
    public static final int LIBRARY_MAJOR = 10;
    public static final int LIBRARY_MINOR = 0;
    public static final int UUID_LENGTH = 36;
    public static final String HALF_FLOAT_SUFFIX = "_HalfFloat";
    /** Separates a grid's name from the number that makes it unique in a file. */
    public static final char UNIQUE_NAME_SEPARATOR = '\u001e';

    public static final int COMPRESS_NONE = 0;
    public static final int COMPRESS_ZIP = 0x1;
    public static final int COMPRESS_ACTIVE_MASK = 0x2;
    public static final int COMPRESS_BLOSC = 0x4;

    /** Mask-compression modes, the byte before every node's values. */
    public static final int NO_MASK_OR_INACTIVE_VALS = 0;
    public static final int NO_MASK_AND_MINUS_BG = 1;
    public static final int NO_MASK_AND_ONE_INACTIVE_VAL = 2;
    public static final int MASK_AND_NO_INACTIVE_VALS = 3;
    public static final int MASK_AND_ONE_INACTIVE_VAL = 4;
    public static final int MASK_AND_TWO_INACTIVE_VALS = 5;
    public static final int NO_MASK_AND_ALL_VALS = 6;

    public static final int LEAF_LOG2 = 3;
    public static final int LOWER_LOG2 = 4;
    public static final int UPPER_LOG2 = 5;
    /** Edges in voxels: leaf 8, lower internal node 128, upper internal node 4096. */
    public static final int LEAF_EDGE = 1 << LEAF_LOG2;
    public static final int LOWER_EDGE = LEAF_EDGE << LOWER_LOG2;
    public static final int UPPER_EDGE = LOWER_EDGE << UPPER_LOG2;
    /** Values per node: 512, 4096, 32768. */
    public static final int LEAF_SIZE = 1 << 3 * LEAF_LOG2;
    public static final int LOWER_SIZE = 1 << 3 * LOWER_LOG2;
    public static final int UPPER_SIZE = 1 << 3 * UPPER_LOG2;
    /** Mask words per node: 8, 64, 512. */
    public static final int LEAF_WORDS = LEAF_SIZE / 64;
    public static final int LOWER_WORDS = LOWER_SIZE / 64;
    public static final int UPPER_WORDS = UPPER_SIZE / 64;

    private VdbFormat() {
    }

    /** Offset of voxel/child {@code (x, y, z)} in a node of {@code log2Dim} whose children are {@code childShift} deep. */
    public static int offset(int x, int y, int z, int log2Dim, int childShift) {
        int m = (1 << log2Dim) - 1;
        return ((x >> childShift) & m) << 2 * log2Dim | ((y >> childShift) & m) << log2Dim | ((z >> childShift) & m);
    }

    /** The text OpenVDB's {@code compressionToString} gives for {@code flags}, e.g. "zip + active values". */
    public static String compressionName(int flags) {
        if (flags == COMPRESS_NONE) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        if ((flags & COMPRESS_ZIP) != 0) {
            b.append("zip");
        }
        if ((flags & COMPRESS_BLOSC) != 0) {
            b.append(b.isEmpty() ? "" : " + ").append("blosc");
        }
        if ((flags & COMPRESS_ACTIVE_MASK) != 0) {
            b.append(b.isEmpty() ? "" : " + ").append("active values");
        }
        return b.toString();
    }
}
