package io.snode.bench.workload;

import io.snode.codegen.samples.NarrowBand;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectMaps;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The baseline "fastutil": the primitive-keyed open hash map a performance-minded Java user
 * picks, a {@code Long2ObjectOpenHashMap<float[]>} of the same 8^3 blocks as
 * {@link BaselineHashMap} (no boxed keys, no nodes: a {@code long[]} of keys and an array of
 * values). A write activates its whole block. W5 gives each thread its own map and merges them
 * into one afterwards, inside the timing (fastutil's maps are not thread-safe); W6 keeps an
 * {@code IntArrayList} per block.
 *
 * <p>Every run starts from a new structure made in the untimed set-up, which also calls
 * {@link System#gc()}. The memory figures are exact counts of the key and value arrays and the
 * blocks ({@link HeapBytes}).
 */
public final class BaselineFastutil implements Contender {
    private static final LongFunction<float[]> NEW_BLOCK = key -> new float[Blocks.CELLS];
    private static final LongFunction<IntArrayList> NEW_LIST = key -> new IntArrayList();

    private final HeapBytes heap;

    /** Counts memory with the running JVM's object layout. */
    public BaselineFastutil() {
        this(HeapBytes.current());
    }

    /** Counts memory with {@code heap}'s layout. */
    public BaselineFastutil(HeapBytes heap) {
        this.heap = heap;
    }

    @Override
    public String structure() {
        return "fastutil";
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
        String api = "Long2ObjectOpenHashMap.computeIfAbsent";
        Trials.Timed<Long2ObjectOpenHashMap<float[]>> timed = context.trials().time(label(workload, api),
                BaselineFastutil::emptyMap, map -> write(map, list, list.size()));
        return written(Row.of(workload, this, 1, api, timed, list.size()), context, timed.state())
                .check(context.data().references(), activity());
    }

    private Result reads(Context context) {
        String api = "Long2ObjectOpenHashMap.get";
        DataSet data = context.data();
        Long2ObjectOpenHashMap<float[]> map = sortedMap(data);
        Trials.Timed<Sum> timed = context.trials().time(label(Workload.W2, api), () -> {
            System.gc();
            return new Sum();
        }, sum -> sum.value = read(map, data.readI(), data.readJ(), data.readK()));
        return Row.of(Workload.W2, this, 1, api, timed, DataSet.READS)
                .checksums(null, timed.state().value, null)
                .check(data.references(), activity());
    }

    private Result iterate(Context context) {
        String api = "Long2ObjectOpenHashMap.values() loop";
        Long2ObjectOpenHashMap<float[]> map = sortedMap(context.data());
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
        final Long2ObjectOpenHashMap<float[]> map;
        final long heldBefore;
        long heldAfterDelete;

        Recycle(Long2ObjectOpenHashMap<float[]> map, long heldBefore) {
            this.map = map;
            this.heldBefore = heldBefore;
        }
    }

    private Result recycle(Context context) {
        String api = "Long2ObjectOpenHashMap.remove + computeIfAbsent";
        DataSet data = context.data();
        NarrowBand sorted = data.sorted();
        int[] low = data.lowBlocks();
        Trials.Timed<Recycle> timed = context.trials().timeSelf(label(Workload.W4, api), () -> {
            Long2ObjectOpenHashMap<float[]> map = sortedMap(data);
            Recycle recycle = new Recycle(map, held(map));
            System.gc();
            return recycle;
        }, recycle -> {
            long start = System.nanoTime();
            for (int key : low) {
                recycle.map.remove(key); // the map shrinks its arrays as it empties
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

    /** W5's state: a map per thread (the first receives the others) and the parked threads. */
    private record Parallel(List<Long2ObjectOpenHashMap<float[]>> maps, ReleasedThreads threads) {
    }

    private List<Result> parallel(Context context) {
        String api = "maps per thread + merge";
        NarrowBand shuffled = context.data().shuffled();
        List<Result> results = new ArrayList<>();
        for (int threads : context.threadCounts()) {
            Trials.Timed<Parallel> timed = context.trials().timeSelf(label(Workload.W5, api) + " T=" + threads, () -> {
                List<Long2ObjectOpenHashMap<float[]>> maps = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    maps.add(new Long2ObjectOpenHashMap<>());
                }
                System.gc();
                return new Parallel(maps, new ReleasedThreads(threads, "fastutil-w5", part -> {
                    Long2ObjectOpenHashMap<float[]> map = maps.get(part);
                    for (int n = part; n < shuffled.size(); n += threads) {
                        int i = shuffled.i(n);
                        int j = shuffled.j(n);
                        int k = shuffled.k(n);
                        map.computeIfAbsent(DataSet.blockKey(i, j, k), NEW_BLOCK)[Blocks.cell(i, j, k)] = shuffled.value(n);
                    }
                }));
            }, parallel -> {
                long nanos = parallel.threads().run();
                long start = System.nanoTime();
                merge(parallel.maps());
                return nanos + System.nanoTime() - start;
            });
            results.add(written(Row.of(Workload.W5, this, threads, api, timed, shuffled.size()),
                    context, timed.state().maps().getFirst()).check(context.data().references(), activity()));
        }
        return results;
    }

    /**
     * Merges every map into the first: a block it lacks is moved over, a block it has gets the
     * other's floats added. The threads wrote disjoint voxels and an unwritten float is 0.0f, so
     * each sum is exactly the one value written.
     */
    static void merge(List<Long2ObjectOpenHashMap<float[]>> maps) {
        Long2ObjectOpenHashMap<float[]> into = maps.getFirst();
        for (int t = 1; t < maps.size(); t++) {
            for (Long2ObjectMap.Entry<float[]> entry : Long2ObjectMaps.fastIterable(maps.get(t))) {
                float[] block = entry.getValue();
                float[] mine = into.putIfAbsent(entry.getLongKey(), block);
                if (mine != null) {
                    for (int c = 0; c < mine.length; c++) {
                        mine[c] += block[c];
                    }
                }
            }
        }
    }

    private Result particles(Context context) {
        String api = "Long2ObjectOpenHashMap.computeIfAbsent + IntArrayList.add";
        DataSet data = context.data();
        Trials.Timed<Long2ObjectOpenHashMap<IntArrayList>> timed = context.trials().time(label(Workload.W6, api),
                () -> {
                    System.gc();
                    return new Long2ObjectOpenHashMap<>();
                }, lists -> append(lists, data));
        long n = 0;
        for (IntArrayList list : timed.state().values()) {
            n += list.size();
        }
        return Row.of(Workload.W6, this, 1, api, timed, DataSet.PARTICLES)
                .checksums(n, null, null)
                .check(data.references(), activity());
    }

    private Result visit(Context context) {
        String api = "Long2ObjectOpenHashMap.values() loop";
        DataSet data = context.data();
        Long2ObjectOpenHashMap<IntArrayList> lists = new Long2ObjectOpenHashMap<>();
        append(lists, data);
        Trials.Timed<Sum> timed = context.trials().time(label(Workload.W6V, api), () -> {
            System.gc();
            return new Sum();
        }, sum -> {
            long elements = 0;
            long ids = 0;
            long nonEmpty = 0;
            for (IntArrayList list : lists.values()) {
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

    private static Long2ObjectOpenHashMap<float[]> emptyMap() {
        System.gc();
        return new Long2ObjectOpenHashMap<>();
    }

    /** The W1s map, built untimed for the workloads that start from it. */
    private static Long2ObjectOpenHashMap<float[]> sortedMap(DataSet data) {
        Long2ObjectOpenHashMap<float[]> map = new Long2ObjectOpenHashMap<>();
        write(map, data.sorted(), data.sorted().size());
        return map;
    }

    /** Writes the first {@code count} voxels of {@code list}. */
    private static void write(Long2ObjectOpenHashMap<float[]> map, NarrowBand list, int count) {
        for (int n = 0; n < count; n++) {
            int i = list.i(n);
            int j = list.j(n);
            int k = list.k(n);
            map.computeIfAbsent(DataSet.blockKey(i, j, k), NEW_BLOCK)[Blocks.cell(i, j, k)] = list.value(n);
        }
    }

    private static double read(Long2ObjectOpenHashMap<float[]> map, int[] is, int[] js, int[] ks) {
        double sum = 0;
        for (int q = 0; q < is.length; q++) {
            float[] block = map.get(DataSet.blockKey(is[q], js[q], ks[q]));
            sum += block == null ? 0.0f : block[Blocks.cell(is[q], js[q], ks[q])];
        }
        return sum;
    }

    private static void append(Long2ObjectOpenHashMap<IntArrayList> lists, DataSet data) {
        NarrowBand sorted = data.sorted();
        int[] voxel = data.particleVoxel();
        for (int p = 0; p < voxel.length; p++) {
            int v = voxel[p];
            lists.computeIfAbsent(DataSet.blockKey(sorted.i(v), sorted.j(v), sorted.k(v)), NEW_LIST).add(p);
        }
    }

    /** W1's and W5's checksums and memory, from the map a build left. */
    private Row written(Row row, Context context, Long2ObjectOpenHashMap<float[]> map) {
        Blocks.ReadBack back = Blocks.readBack(context.data().sorted(), map::get);
        long held = held(map);
        return row.checksums(back.n(), back.sum(), (long) Blocks.CELLS * map.size())
                .memory(held, held, context.data().sorted().size());
    }

    /** The exact bytes of the key and value arrays and the blocks. */
    private long held(Long2ObjectOpenHashMap<float[]> map) {
        long bytes = heap.openHashTable(map);
        for (float[] block : map.values()) {
            bytes += heap.array(float.class, block.length);
        }
        return bytes;
    }

    private String label(Workload workload, String api) {
        return workload.id() + " " + structure() + " " + api;
    }
}
