package io.snode.runtime;

/**
 * The container of a hash SNode inside its parent's cell, and the layout of the tables it
 * refers to. A hash node's cells are allocated from its node manager as a pointer node's are;
 * what maps a cell index to its cell is an open-addressing table (linear probing) whose size
 * follows the active cells, so the index space costs nothing until it is used.
 *
 * <pre>
 * header (the container, 16 bytes):
 *  0        8        16
 * +--------+--------+
 * | table  |  lock  |
 * +--------+--------+
 *   table   0 none yet, else the current table: where it lives in bits 0-55 (a small
 *           table's cell index, a large one's registry id), log2 of its capacity in bits
 *           56-60 ({@link #tableWord}), so that a probe knows the table's size without a load
 *           from it
 *   lock    0 free, 1 held (an insertion, a deactivation, a resize, a release),
 *           2 retired: the cell holding the header was released (collection zeroes it)
 *
 * table (32 + 16 * capacity bytes, capacity a power of two; up to 2048 entries a cell of a
 * node manager per capacity, above that a piece of pool memory of its own):
 *  0          8      16     24         32      40       48
 * +----------+------+------+----------+-------+--------+-----+
 * | capacity | used | live | (unused) | key 0 | word 0 | ... |
 * +----------+------+------+----------+-------+--------+-----+
 *   capacity  entries (written once, before the table is published)
 *   used      entries whose key is set: live ones and inactive ones kept as tombstones
 *   live      entries whose word is active
 *   key       0 empty, else the cell index + 1; once set it never changes in that table
 *   word      a PointerWord: the child cell, or NULL when the cell is inactive (a tombstone)
 * </pre>
 *
 * The home slot of cell index {@code n} is {@link #home}; a probe goes on to the next slot
 * (wrapping) until it finds the key or an empty key. A table is at most half used, the largest
 * three quarters with at most half of it live ({@link #maxUsed}, {@link #MAX_LIVE}); a resize
 * copies the live entries into a table of {@link #capacityFor} entries and drops the tombstones,
 * as does a shrink, after a deactivation leaves a table of more than 2048 entries at most a
 * sixteenth live.
 *
 * <p>Apart from {@link #tableWord}, which runs once per table, the helpers do not check their
 * arguments (a table word of 0, a capacity that is not a power of two give meaningless
 * results): every probe calls them.
 */
public final class HashHeader {
    public static final int TABLE_OFFSET = 0;
    public static final int LOCK_OFFSET = 8;
    public static final int BYTES = 16;
    /** The lock word's value in a header whose cell was released: no entry may be published. */
    public static final long LOCK_RETIRED = 2;

    public static final int CAPACITY_OFFSET = 0;
    public static final int USED_OFFSET = 8;
    public static final int LIVE_OFFSET = 16;
    public static final int ENTRIES_OFFSET = 32;
    public static final int ENTRY_BYTES = 16;
    /** Offset of the word inside an entry (the key is at 0). */
    public static final int WORD_OFFSET = 8;
    /** The smallest table: 16 entries, 288 bytes. */
    public static final int MIN_CAPACITY = 16;
    /**
     * The largest table: 2^22 entries (64 MiB), so that a table is one piece of memory under
     * {@link io.snode.api.LayoutRule#MAX_CONTAINER_BYTES}; it holds up to 2^21 active cells.
     */
    public static final int MAX_CAPACITY = 1 << 22;
    /**
     * The multipliers of {@link #homeByBits}'s mix (the finaliser of SplittableRandom's
     * generator, Stafford's "Mix13"): each round an xor-shift folds the high bits into the low
     * ones and a multiplication spreads every bit upwards, so every bit of an index reaches the
     * top bits a home is taken from.
     */
    public static final long MIX_1 = 0xBF58476D1CE4E5B9L;
    public static final long MIX_2 = 0x94D049BB133111EBL;
    /** What {@link #homeByBits} adds to an index per bit of the table's size: 2^64 / phi, odd. */
    public static final long SIZE_SALT = 0x9E3779B97F4A7C15L;

    private HashHeader() {
    }

    /** Bits of the table word that hold the table's id; the bits above hold log2 of its capacity. */
    public static final long ID_MASK = (1L << 56) - 1;
    public static final int CAPACITY_SHIFT = 56;

    /**
     * The header's table word naming table {@code id} (a small table's cell index or a large
     * one's registry id, below 2^56) of {@code capacity} entries; never 0, since a table has at
     * least {@link #MIN_CAPACITY} entries.
     */
    public static long tableWord(long id, int capacity) {
        if (id < 0 || id > ID_MASK || Integer.bitCount(capacity) != 1 || capacity < MIN_CAPACITY) {
            throw new IllegalArgumentException("id=" + id + " and capacity=" + capacity
                    + " must be: the id between 0 and 2^56 - 1, the capacity a power of two of at least "
                    + MIN_CAPACITY);
        }
        return id | (long) Integer.numberOfTrailingZeros(capacity) << CAPACITY_SHIFT;
    }

    /** The table id in a table word that is not 0. */
    public static long tableId(long word) {
        return word & ID_MASK;
    }

    /** log2 of the capacity of the table a table word (not 0) names. */
    public static int capacityBits(long word) {
        return (int) (word >>> CAPACITY_SHIFT);
    }

    /** Bytes of a table of {@code capacity} entries. */
    public static long tableBytes(int capacity) {
        return ENTRIES_OFFSET + (long) capacity * ENTRY_BYTES;
    }

    /** The first slot a probe for cell {@code index} looks at in a table of {@code capacity} entries. */
    public static int home(long index, int capacity) {
        return homeByBits(index, Integer.numberOfTrailingZeros(capacity));
    }

    /**
     * {@link #home} for a table of {@code 2^bits} entries: the top {@code bits} bits of the
     * index mixed in two rounds of xor-shift and multiply ({@link #MIX_1}, {@link #MIX_2}; the
     * last xor-shift of that finaliser leaves the top 31 bits as they are, so it is left out).
     * Fibonacci hashing alone (the top bits of the index times 2^64 / phi, until 12-06) gave
     * indices that share their low bits, as a line of cells along an axis other than the last
     * does, clustered homes: 31 probes per insertion for 2^19 cells 65,536 apart.
     *
     * <p>The index is offset by {@code bits} times 2^64 / phi first, so that tables of other
     * sizes place the same cells independently: a table emptied in its own order (a box
     * deactivation, a collection's walk) keeps the cells whose homes lie in its last stretch,
     * and without the offset the smaller table of a shrink gave all of them homes in its own
     * last stretch (its homes were the larger table's with the low bits dropped), one cluster
     * that every copy and probe walked.
     */
    public static int homeByBits(long index, int bits) {
        long salted = index + bits * SIZE_SALT;
        long h = (salted ^ (salted >>> 30)) * MIX_1;
        h = (h ^ (h >>> 27)) * MIX_2;
        return (int) (h >>> (64 - bits));
    }

    /** Byte offset of entry {@code slot}'s key in a table. */
    public static long keyOffset(int slot) {
        return ENTRIES_OFFSET + (long) slot * ENTRY_BYTES;
    }

    /** The most active cells one container holds: 2^21, half of the largest table. */
    public static final int MAX_LIVE = MAX_CAPACITY >>> 1;

    /**
     * The most entries a table of {@code capacity} may use (live and tombstones): half of it, and
     * three quarters of the largest table, whose live entries stay at most {@link #MAX_LIVE}. So
     * the largest table keeps room for a quarter of its entries as tombstones: a container kept
     * near {@link #MAX_LIVE}, whose deactivations leave tombstones, copies its table (dropping
     * them) once per 2^20 new keys, not for every new key (a 64 MiB copy each).
     */
    public static int maxUsed(int capacity) {
        return capacity == MAX_CAPACITY ? capacity - (capacity >>> 2) : capacity >>> 1;
    }

    /**
     * The capacity a resize chooses for {@code live} live entries: a quarter used after the copy,
     * at least {@link #MIN_CAPACITY}; {@link #MAX_CAPACITY} + 1 (a value no table has) when not even
     * the largest table may hold them.
     */
    public static int capacityFor(long live) {
        if (live > MAX_LIVE) {
            return MAX_CAPACITY + 1;
        }
        long wanted = Math.max(MIN_CAPACITY, 4 * live);
        return (int) Math.min(MAX_CAPACITY, Long.highestOneBit(wanted - 1) << 1);
    }
}
