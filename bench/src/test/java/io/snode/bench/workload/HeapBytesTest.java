package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class HeapBytesTest {
    /** HotSpot's default on a 64-bit JVM with a heap under 32 GiB. */
    private static final HeapBytes DEFAULT = new HeapBytes(true, true, false, 8);
    private static final HeapBytes COMPACT = new HeapBytes(true, true, true, 8);
    private static final HeapBytes WIDE_OOPS = new HeapBytes(false, true, false, 8);
    private static final HeapBytes NO_COMPRESSION = new HeapBytes(false, false, false, 8);

    @Test
    void defaultLayoutSizes() throws Exception {
        assertThat(DEFAULT.header()).isEqualTo(12);
        assertThat(DEFAULT.reference()).isEqualTo(4);
        // 12 header + int hash + key + value + next (4 each) = 28 -> 32
        assertThat(DEFAULT.instance(Class.forName("java.util.HashMap$Node"))).isEqualTo(32);
        assertThat(DEFAULT.instance(Class.forName("java.util.concurrent.ConcurrentHashMap$Node"))).isEqualTo(32);
        // 12 header + long at 16 -> 24
        assertThat(DEFAULT.instance(Long.class)).isEqualTo(24);
        // a tree node: the node's 28 + before, after (LinkedHashMap.Entry) + parent, left, right, prev + boolean red = 53 -> 56
        assertThat(DEFAULT.instance(Class.forName("java.util.HashMap$TreeNode"))).isEqualTo(56);
        // the lists of W6: 12 + int size + int[] reference = 20 -> 24
        assertThat(DEFAULT.instance(BaselineHashMap.IntList.class)).isEqualTo(24);
        assertThat(DEFAULT.instance(IntArrayList.class)).isEqualTo(24);
        // arrays: 12 header + 4 length = 16, then the elements
        assertThat(DEFAULT.array(float.class, 512)).isEqualTo(16 + 2048);
        assertThat(DEFAULT.array(float.class, 0)).isEqualTo(16);
        assertThat(DEFAULT.array(float.class, 1)).isEqualTo(24);
        assertThat(DEFAULT.array(Object.class, 16)).isEqualTo(16 + 64);
        assertThat(DEFAULT.array(Object.class, 3)).isEqualTo(32);
        assertThat(DEFAULT.array(long.class, 257)).isEqualTo(16 + 2056);
        assertThat(DEFAULT.array(float.class, 1 << 30)).isEqualTo(16 + (4L << 30));
        assertThat(DEFAULT.describe()).isEqualTo(
                "header 12 B, references 4 B, alignment 8 B: HashMap.Node 32 B, Long 24 B, float[512] 2064 B");
    }

    @Test
    void otherLayouts() throws Exception {
        Class<?> node = Class.forName("java.util.HashMap$Node");
        // compact headers (8 B): elements from 12, long elements from 16
        assertThat(COMPACT.instance(node)).isEqualTo(24);
        assertThat(COMPACT.instance(Long.class)).isEqualTo(16);
        assertThat(COMPACT.array(float.class, 512)).isEqualTo(2064);
        assertThat(COMPACT.array(float.class, 1)).isEqualTo(16);
        assertThat(COMPACT.array(long.class, 1)).isEqualTo(24);
        // 8-byte references: 12 + 4 + 3 * 8 = 40; reference elements start at 16
        assertThat(WIDE_OOPS.instance(node)).isEqualTo(40);
        assertThat(WIDE_OOPS.array(Object.class, 2)).isEqualTo(32);
        assertThat(WIDE_OOPS.array(float.class, 1)).isEqualTo(24);
        // 16-byte header: 16 + 4 + 24 = 44 -> 48; arrays: length at 16, 4-byte elements from 20
        assertThat(NO_COMPRESSION.instance(node)).isEqualTo(48);
        assertThat(NO_COMPRESSION.array(float.class, 1)).isEqualTo(24);
        assertThat(NO_COMPRESSION.array(float.class, 512)).isEqualTo(20 + 2048 + 4);
        assertThat(NO_COMPRESSION.array(long.class, 1)).isEqualTo(32);
        assertThat(new HeapBytes(true, true, false, 16).instance(Long.class)).isEqualTo(32);
    }

    @Test
    void rejectsWhatItCannotSize() {
        assertThatThrownBy(() -> new HeapBytes(true, true, false, 12)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("alignment=12 (a power of two from 8 to 256)");
        assertThatThrownBy(() -> DEFAULT.instance(float[].class)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DEFAULT.array(float.class, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HeapBytes.current().hashTable(new TreeMap<>()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("map=java.util.TreeMap");
    }

    @Test
    void aHashMapIsItsTableNodesAndKeys() {
        HeapBytes heap = HeapBytes.current();
        assumeThat(heap.describe()).isEqualTo(DEFAULT.describe());
        HashMap<Long, float[]> map = new HashMap<>();
        assertThat(heap.hashTable(map)).isZero(); // no table before the first put
        for (long key = 0; key < 100; key++) {
            map.put(1_000_000 + key, new float[512]);
        }
        // 100 > 0.75 * 128: a table of 256 references, 100 nodes, 100 keys
        assertThat(heap.hashTable(map)).isEqualTo(16 + 256 * 4 + 100 * (32 + 24));
    }

    @Test
    void aConcurrentHashMapIsItsTableNodesAndKeys() {
        HeapBytes heap = HeapBytes.current();
        assumeThat(heap.describe()).isEqualTo(DEFAULT.describe());
        ConcurrentHashMap<Long, float[]> map = new ConcurrentHashMap<>();
        for (long key = 0; key < 100; key++) {
            map.put(1_000_000 + key, new float[512]);
        }
        assertThat(heap.hashTable(map)).isEqualTo(16 + 256 * 4 + 100 * (32 + 24));
    }

    @Test
    void treeBinsAreCountedByTheirNodes() throws Exception {
        HeapBytes heap = HeapBytes.current();
        // Long's hash is (int) (v ^ v >>> 32): every (a << 32 | a) hashes to 0, so all share one bin.
        HashMap<Long, String> map = new HashMap<>();
        ConcurrentHashMap<Long, String> concurrent = new ConcurrentHashMap<>();
        for (long a = 1; a <= 20; a++) {
            map.put(a << 32 | a, "v");
            concurrent.put(a << 32 | a, "v");
        }
        Class<?> treeNode = Class.forName("java.util.HashMap$TreeNode");
        assertThat(tableOf(map, HashMap.class)[0]).isInstanceOf(treeNode);
        assertThat(heap.hashTable(map)).isEqualTo(heap.array(Object.class, tableOf(map, HashMap.class).length)
                + 20 * (heap.instance(treeNode) + heap.instance(Long.class)));
        Class<?> bin = Class.forName("java.util.concurrent.ConcurrentHashMap$TreeBin");
        Class<?> concurrentTreeNode = Class.forName("java.util.concurrent.ConcurrentHashMap$TreeNode");
        Object[] table = tableOf(concurrent, ConcurrentHashMap.class);
        assertThat(table[0]).isInstanceOf(bin);
        assertThat(heap.hashTable(concurrent)).isEqualTo(heap.array(Object.class, table.length) + heap.instance(bin)
                + 20 * (heap.instance(concurrentTreeNode) + heap.instance(Long.class)));
    }

    @Test
    void aFastutilMapIsItsKeyAndValueArrays() {
        HeapBytes heap = HeapBytes.current();
        assumeThat(heap.describe()).isEqualTo(DEFAULT.describe());
        Long2ObjectOpenHashMap<float[]> map = new Long2ObjectOpenHashMap<>();
        for (long key = 0; key < 100; key++) {
            map.put(1_000_000 + key, new float[512]);
        }
        // 100 / 0.75 -> a table of 256 slots, plus one for the key 0: long[257] and Object[257]
        assertThat(heap.openHashTable(map)).isEqualTo((16 + 257 * 8) + (16 + 257 * 4 + 4));
    }

    private static Object[] tableOf(Map<?, ?> map, Class<?> type) throws ReflectiveOperationException {
        Field table = type.getDeclaredField("table");
        table.setAccessible(true);
        return (Object[]) table.get(map);
    }
}
