package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The baseline "hashmap": what a Java user writes first for a sparse grid, a {@code HashMap<Long,
 * float[]>} of 8^3 blocks (key {@link DataSet#blockKey}, a {@code float[512]} per block, cell
 * {@code (i&7)<<6 | (j&7)<<3 | (k&7)}), written through {@code computeIfAbsent}; a read of an
 * absent block gives 0.0f. A write activates its whole block ({@link DataSet.Activity#BLOCK}).
 * W5 shares one {@code ConcurrentHashMap} between the threads; W6 keeps a growable {@code int}
 * list per block.
 *
 * <p>Every run starts from a new structure made in the untimed set-up, which also calls
 * {@link System#gc()} so that the previous run's garbage is not collected inside the timing.
 * The memory figures are exact counts of the bytes the map holds ({@link HeapBytes}).
 */
public final class BaselineHashMap implements Contender {
    private static final Function<Long, float[]> NEW_BLOCK = key -> new float[Blocks.CELLS];
    private static final Function<Long, IntList> NEW_LIST = key -> new IntList();

    private final HeapBytes heap;

    /** Counts memory with the running JVM's object layout. */
    public BaselineHashMap() {
        this(HeapBytes.current());
    }

    /** Counts memory with {@code heap}'s layout. */
    public BaselineHashMap(HeapBytes heap) {
        this.heap = heap;
    }

    @Override
    public String structure() {
        return "hashmap";
    }

    @Override
    public DataSet.Activity activity() {
        return DataSet.Activity.BLOCK;
    }

    @Override
    public List<Result> run(Workload workload, Context context) {
        return switch (workload) {
            case W1S -> List.of(build(workload, context, context.data().sorted()));
            case W1R -> List.of(build(workload, context, context.data().shuffled()));
            case W2 -> List.of(reads(context));
            case W3 -> List.of(iterate(context));
            case W4 -> List.of(recycle(context));
            case W5 -> parallel(context);
            case W6 -> List.of(particles(context));
            case W6V -> List.of(visit(context));
        };
    }

    private Result build(Workload workload, Context context, NarrowBand list) {
        String api = "HashMap.computeIfAbsent";
        Trials.Timed<HashMap<Long, float[]>> timed = context.trials().time(label(workload, api),
                BaselineHashMap::emptyMap, map -> write(map, list, list.size()));
        return written(Row.of(workload, this, 1, api, timed, list.size()), context, timed.state())
                .check(context.data().references(), activity());
    }

    private Result reads(Context context) {
        String api = "HashMap.get";
        DataSet data = context.data();
        HashMap<Long, float[]> map = sortedMap(data);
        Trials.Timed<Sum> timed = context.trials().time(label(Workload.W2, api), () -> {
            System.gc();
            return new Sum();
        }, sum -> sum.value = read(map, data.readI(), data.readJ(), data.readK()));
        return Row.of(Workload.W2, this, 1, api, timed, DataSet.READS)
                .checksums(null, timed.state().value, null)
                .check(data.references(), activity());
    }

    private Result iterate(Context context) {
        String api = "HashMap.values() loop";
        HashMap<Long, float[]> map = sortedMap(context.data());
        Trials.Timed<Sum> timed = context.trials().time(label(Workload.W3, api), () -> {
            System.gc();
            return new Sum();
        }, sum -> {
            double total = 0;
            long count = 0;
            for (float[] block : map.values()) {
                for (float value : block) {
                    total += value;
                }
                count += block.length;
            }
            sum.value = total;
            sum.count = count;
        });
        Sum sum = timed.state();
        return Row.of(Workload.W3, this, 1, api, timed, sum.count)
                .checksums(null, sum.value, sum.count)
                .check(context.data().references(), activity());
    }

    /** W4's state: the W1s map and the held bytes around the delete. */
    private static final class Recycle {
        final HashMap<Long, float[]> map;
        final long heldBefore;
        long heldAfterDelete;

        Recycle(HashMap<Long, float[]> map, long heldBefore) {
            this.map = map;
            this.heldBefore = heldBefore;
        }
    }

    private Result recycle(Context context) {
        String api = "HashMap.remove + computeIfAbsent";
        DataSet data = context.data();
        NarrowBand sorted = data.sorted();
        int[] low = data.lowBlocks();
        Trials.Timed<Recycle> timed = context.trials().timeSelf(label(Workload.W4, api), () -> {
            HashMap<Long, float[]> map = sortedMap(data);
            Recycle recycle = new Recycle(map, held(map));
            System.gc();
            return recycle;
        }, recycle -> {
            long start = System.nanoTime();
            for (int key : low) {
                recycle.map.remove((long) key);
            }
            long deleted = System.nanoTime() - start;
            recycle.heldAfterDelete = held(recycle.map);
            start = System.nanoTime();
            write(recycle.map, sorted, data.lowVoxels());
            return deleted + System.nanoTime() - start;
        });
        Recycle recycle = timed.state();
        Blocks.ReadBack back = Blocks.readBack(sorted, recycle.map::get);
        return Row.of(Workload.W4, this, 1, api, timed, data.lowVoxels())
                .checksums(back.n(), back.sum(), (long) Blocks.CELLS * recycle.map.size())
                .held(recycle.heldBefore, recycle.heldAfterDelete, held(recycle.map))
                .check(data.references(), activity());
    }

    /** W5's state: the shared map and the threads, parked until released. */
    private record Parallel(ConcurrentHashMap<Long, float[]> map, ReleasedThreads threads) {
    }

    private List<Result> parallel(Context context) {
        String api = "ConcurrentHashMap.computeIfAbsent";
        NarrowBand shuffled = context.data().shuffled();
        List<Result> results = new ArrayList<>();
        for (int threads : context.threadCounts()) {
            Trials.Timed<Parallel> timed = context.trials().timeSelf(label(Workload.W5, api) + " T=" + threads, () -> {
                ConcurrentHashMap<Long, float[]> map = new ConcurrentHashMap<>();
                System.gc();
                return new Parallel(map, new ReleasedThreads(threads, "hashmap-w5", part -> {
                    for (int n = part; n < shuffled.size(); n += threads) {
                        int i = shuffled.i(n);
                        int j = shuffled.j(n);
                        int k = shuffled.k(n);
                        map.computeIfAbsent(DataSet.blockKey(i, j, k), NEW_BLOCK)[Blocks.cell(i, j, k)] = shuffled.value(n);
                    }
                }));
            }, parallel -> parallel.threads().run());
            results.add(written(Row.of(Workload.W5, this, threads, api, timed, shuffled.size()),
                    context, timed.state().map()).check(context.data().references(), activity()));
        }
        return results;
    }

    private Result particles(Context context) {
        String api = "HashMap.computeIfAbsent + IntList.add";
        DataSet data = context.data();
        Trials.Timed<HashMap<Long, IntList>> timed = context.trials().time(label(Workload.W6, api), () -> {
            System.gc();
            return new HashMap<>();
        }, lists -> append(lists, data));
        long n = 0;
        for (IntList list : timed.state().values()) {
            n += list.size();
        }
        return Row.of(Workload.W6, this, 1, api, timed, DataSet.PARTICLES)
                .checksums(n, null, null)
                .check(data.references(), activity());
    }

    private Result visit(Context context) {
        String api = "HashMap.values() loop";
        DataSet data = context.data();
        HashMap<Long, IntList> lists = new HashMap<>();
        append(lists, data);
        Trials.Timed<Sum> timed = context.trials().time(label(Workload.W6V, api), () -> {
            System.gc();
            return new Sum();
        }, sum -> {
            long elements = 0;
            long ids = 0;
            long nonEmpty = 0;
            for (IntList list : lists.values()) {
                int size = list.size();
                int[] values = list.elements();
                for (int q = 0; q < size; q++) {
                    ids += values[q];
                }
                elements += size;
                if (size > 0) {
                    nonEmpty++;
                }
            }
            sum.n = elements;
            sum.value = ids;
            sum.count = nonEmpty;
        });
        Sum sum = timed.state();
        return Row.of(Workload.W6V, this, 1, api, timed, DataSet.PARTICLES)
                .checksums(sum.n, sum.value, sum.count)
                .check(data.references(), activity());
    }

    /** A run's sums: W2's read sum, W3's sum and count, W6v's elements, id sum and non-empty lists. */
    private static final class Sum {
        double value;
        long n;
        long count;
    }

    /**
     * A growable list of ints, as a user writes one for W6: an array and a size, the array
     * doubled when full.
     */
    static final class IntList {
        private int[] elements = new int[4];
        private int size;

        void add(int value) {
            if (size == elements.length) {
                elements = java.util.Arrays.copyOf(elements, 2 * size);
            }
            elements[size++] = value;
        }

        int size() {
            return size;
        }

        /** The backing array; its first {@link #size()} elements are the list. */
        int[] elements() {
            return elements;
        }
    }

    private static HashMap<Long, float[]> emptyMap() {
        System.gc();
        return new HashMap<>();
    }

    /** The W1s map, built untimed for the workloads that start from it. */
    private static HashMap<Long, float[]> sortedMap(DataSet data) {
        HashMap<Long, float[]> map = new HashMap<>();
        write(map, data.sorted(), data.sorted().size());
        return map;
    }

    /** Writes the first {@code count} voxels of {@code list}. */
    private static void write(Map<Long, float[]> map, NarrowBand list, int count) {
        for (int n = 0; n < count; n++) {
            int i = list.i(n);
            int j = list.j(n);
            int k = list.k(n);
            map.computeIfAbsent(DataSet.blockKey(i, j, k), NEW_BLOCK)[Blocks.cell(i, j, k)] = list.value(n);
        }
    }

    private static double read(HashMap<Long, float[]> map, int[] is, int[] js, int[] ks) {
        double sum = 0;
        for (int q = 0; q < is.length; q++) {
            float[] block = map.get(DataSet.blockKey(is[q], js[q], ks[q]));
            sum += block == null ? 0.0f : block[Blocks.cell(is[q], js[q], ks[q])];
        }
        return sum;
    }

    private static void append(HashMap<Long, IntList> lists, DataSet data) {
        NarrowBand sorted = data.sorted();
        int[] voxel = data.particleVoxel();
        for (int p = 0; p < voxel.length; p++) {
            int v = voxel[p];
            lists.computeIfAbsent(DataSet.blockKey(sorted.i(v), sorted.j(v), sorted.k(v)), NEW_LIST).add(p);
        }
    }

    /** W1's and W5's checksums and memory, from the map a build left. */
    private Row written(Row row, Context context, Map<Long, float[]> map) {
        Blocks.ReadBack back = Blocks.readBack(context.data().sorted(), map::get);
        long held = held(map);
        return row.checksums(back.n(), back.sum(), (long) Blocks.CELLS * map.size())
                .memory(held, held, context.data().sorted().size());
    }

    /** The exact bytes of the table, the nodes, the keys and the blocks. */
    private long held(Map<Long, float[]> map) {
        long bytes = heap.hashTable(map);
        for (float[] block : map.values()) {
            bytes += heap.array(float.class, block.length);
        }
        return bytes;
    }

    private String label(Workload workload, String api) {
        return workload.id() + " " + structure() + " " + api;
    }
}
