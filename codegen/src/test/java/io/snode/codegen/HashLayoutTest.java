package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.runtime.HashTableMetric;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A hash top level through the generated code: bound and caching accessors, struct-for in every
 * form, reductions, deactivation and collection, over 2,000 blocks anywhere in an
 * 8,388,608^3 domain; and a hash node as the struct-for target itself.
 */
class HashLayoutTest {
    static final Layout WIDE = Layout.parse("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
    private static final int EXTENT = 65536 * 16 * 8;

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }

    /** 2,000 voxels, one per random 8^3 block, each with its value; the key is the voxel. */
    private static Map<List<Integer>, Float> blocks(long seed) {
        Random random = new Random(seed);
        Map<List<Integer>, Float> voxels = new HashMap<>();
        while (voxels.size() < 2_000) {
            voxels.put(List.of(random.nextInt(EXTENT), random.nextInt(EXTENT), random.nextInt(EXTENT)),
                    voxels.size() + 1f);
        }
        return voxels;
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(ints = {1, 2})
    void twoThousandBlocksAnywhereAreWrittenReadSummedDeactivatedAndCollected(int threads) {
        Map<List<Integer>, Float> voxels = blocks(threads);
        try (SNodeRuntime rt = SNodeRuntime.compile(WIDE)) {
            rt.parallelism(threads);
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            int n = 0;
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                (n++ % 2 == 0 ? bound : cached).phi(at.get(0), at.get(1), at.get(2), voxel.getValue());
            }
            double expected = 0;
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(bound.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                assertThat(cached.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                assertThat(rt.generic().getFloat("phi", at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
                expected += voxel.getValue();
            }
            assertThat(bound.phi(EXTENT - 1, EXTENT - 1, 0)).as("an inactive voxel reads 0").isZero();
            assertThat(cached.addPhi(EXTENT - 1, EXTENT - 1, 0, 2f)).isZero();
            assertThat(bound.phi(EXTENT - 1, EXTENT - 1, 0)).isEqualTo(2f);
            expected += 2;
            long voxelCount = (voxels.size() + 1L) * 512; // every touched block is a whole dense block
            assertThat(rt.count("phi")).isEqualTo(voxelCount);
            assertThat(rt.sum("phi")).isEqualTo(expected);
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            rt.forEach("phi", (Kernel3) (i, j, k) -> {
                float value = cached(rt).phi(i, j, k);
                if (value != 0) {
                    seen.put(List.of(i, j, k), value);
                }
            });
            assertThat(seen).hasSize(voxels.size() + 1).containsAllEntriesOf(voxels);
            double blockSum = rt.reduceBlocks(WIDE.snode(3), () -> new double[1], (double[] sum, LeafBlock block) -> {
                for (int c = 0; c < block.cellCount(); c++) {
                    sum[0] += block.cells().get(ValueLayout.JAVA_FLOAT, c * block.cellBytes());
                }
            }, (a, b) -> new double[] {a[0] + b[0]})[0];
            assertThat(blockSum).isEqualTo(expected);

            SNode hash = WIDE.snode(1);
            int removed = 0;
            for (List<Integer> at : new ArrayList<>(voxels.keySet())) {
                if (removed < 1_000 && rt.deactivate(hash, at.get(0) >> 7, at.get(1) >> 7, at.get(2) >> 7)) {
                    removed++;
                    expected -= voxels.remove(at);
                }
            }
            assertThat(removed).isEqualTo(1_000);
            rt.gc();
            assertThat(rt.sum("phi")).isEqualTo(expected);
            assertThat(rt.count("phi")).isEqualTo((voxels.size() + 1L) * 512);
            for (Map.Entry<List<Integer>, Float> voxel : voxels.entrySet()) {
                List<Integer> at = voxel.getKey();
                assertThat(cached.phi(at.get(0), at.get(1), at.get(2))).isEqualTo(voxel.getValue());
            }
            HashTableMetric tables = rt.memoryStats().of(hash).tables();
            assertThat(tables.liveEntries()).isEqualTo(voxels.size() + 1);
            assertThat(tables.retired()).as("the collection freed the replaced tables").isZero();
            assertThat(rt.memoryStats().of(hash).cells().cellsInUse()).isEqualTo(voxels.size() + 1);
        }
    }

    private static final ThreadLocal<Phi> CACHED = new ThreadLocal<>();

    /** One caching accessor per kernel thread (an accessor is not thread-safe). */
    private static Phi cached(SNodeRuntime rt) {
        Phi phi = CACHED.get();
        if (phi == null) {
            phi = rt.accessor(Phi.class);
            CACHED.set(phi);
        }
        return phi;
    }

    /** The fields on a hash node itself: its blocks in struct-for are its active cells, each with its coordinates. */
    @Test
    void aHashNodeAsTheTargetVisitsEachActiveCellOnceWithItsCoordinates() {
        Layout layout = Layout.parse("hash(ij,[100000,3000]).place(f32 x, i32 n)");
        Random random = new Random(3);
        Map<List<Integer>, Float> model = new HashMap<>();
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            rt.parallelism(2);
            for (int c = 0; c < 3_000; c++) {
                int i = random.nextInt(100_000);
                int j = random.nextInt(3_000);
                rt.generic().setFloat("x", c, i, j);
                model.put(List.of(i, j), (float) c);
            }
            Map<List<Integer>, Float> seen = new ConcurrentHashMap<>();
            rt.forEach("x", (Kernel2) (i, j) -> {
                Float before = seen.put(List.of(i, j), rt.generic().getFloat("x", i, j));
                assertThat(before).as("visited twice: %d,%d", i, j).isNull();
            });
            assertThat(seen).isEqualTo(model);
            assertThat(rt.count("x")).isEqualTo(model.size());
            assertThat(rt.sum("x")).isEqualTo(model.values().stream().mapToDouble(Float::doubleValue).sum());
            assertThat(rt.max("x")).isEqualTo(2_999);
            assertThat(rt.count("n")).isEqualTo(model.size());
            List<Integer> first = model.keySet().iterator().next();
            assertThat(rt.deactivate(layout.snode(1), first.get(0), first.get(1))).isTrue();
            assertThat(rt.count("x")).isEqualTo(model.size() - 1);
        }
    }
}
