package io.snode.codegen;

import static io.snode.codegen.testing.Disassembly.method;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A write to a clear voxel of an active bitmasked block sets its bit in the generated method
 * itself (one atomic OR and the change count), without the runtime's activation: the code says
 * so, launches after such writes see the voxels (the change count invalidates their snapshots),
 * and threads writing at once lose no voxel.
 */
class InPlaceActivationTest {
    static final Layout L2 = Layout.parse("pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");

    public interface Phi {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);
    }


    @Test
    void generatedWritesSetAClearBitInPlaceAndCallTheRuntimeOnlyForInactivePointers() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            rt.accessor(Phi.class);
            String layoutClass = rt.generatedCode().getFirst().disassembly();
            for (String name : List.of("set_phi", "add_phi")) {
                String body = method(layoutClass, name);
                assertThat(body).contains("GeneratedCalls.activateBit");
                String activation = "activate3$" + name.substring(0, 4) + "f32";
                assertThat(body).as("the runtime's activation stays for the pointer levels, in a method of its own")
                        .contains(activation + " (IIIJF)").doesNotContain("GeneratedCalls.activate (");
                assertThat(method(layoutClass, activation)).contains("GeneratedCalls.activate (");
            }
            assertThat(method(layoutClass, "get_phi")).doesNotContain("activateBit");
            String accessor = rt.generatedCode().getLast().disassembly();
            assertThat(accessor).contains("GeneratedCalls.activateBit");
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("bitmasked(ijk,8).bitmasked(ijk,4).place(f32 phi)"))) {
            String code = rt.generatedCode().getFirst().disassembly();
            String body = method(code, "set_phi");
            assertThat(body).as("only in-place levels: no call into the runtime's activation")
                    .contains("GeneratedCalls.activateBit").doesNotContain("GeneratedCalls.activate (", "$set_f32");
            assertThat(code).as("and no activation method").doesNotContain("activate2$set_f32");
        }
    }

    @Test
    void launchesSeeVoxelsActivatedInPlaceByEveryKindOfWrite() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L2)) {
            Phi bound = rt.bind(Phi.class);
            Phi cached = rt.accessor(Phi.class);
            bound.phi(0, 0, 0, 1f); // the block's first voxel: the runtime's protocol
            assertThat(rt.count("phi")).isEqualTo(1);
            bound.phi(1, 0, 0, 2f); // in place, bound interface
            assertThat(rt.count("phi")).isEqualTo(2);
            cached.phi(2, 0, 0, 3f); // in place, caching accessor
            assertThat(rt.count("phi")).isEqualTo(3);
            assertThat(cached.addPhi(3, 0, 0, 4f)).isZero(); // in place, add
            assertThat(rt.count("phi")).isEqualTo(4);
            assertThat(bound.addPhi(4, 0, 0, 5f)).isZero();
            assertThat(rt.count("phi")).isEqualTo(5);
            assertThat(rt.sum("phi")).isEqualTo(15.0);
            bound.phi(1, 0, 0, 7f); // already active: no change in structure
            assertThat(rt.count("phi")).isEqualTo(5);
            SNode leaf = L2.field("phi").snode();
            for (int i = 0; i < 5; i++) {
                assertThat(rt.generic().isActive(leaf, i, 0, 0)).isTrue();
            }
            assertThat(rt.generic().isActive(leaf, 5, 0, 0)).isFalse();
        }
    }

    /**
     * Two writers set every voxel of 8 active blocks (one through the bound interface, one
     * through an accessor, interleaved voxels) while a third thread counts in launches; each count
     * lies between what was written before it started and everything, and after the writers the
     * count and every value are exact.
     */
    @Test
    void threadsActivatingVoxelsInPlaceLoseNone() throws Exception {
        int blocks = 8;
        try (SNodeRuntime rt = SNodeRuntime.compile(L2); ExecutorService pool = Executors.newFixedThreadPool(3)) {
            Phi bound = rt.bind(Phi.class);
            for (int b = 0; b < blocks; b++) {
                bound.phi(b * 8, 0, 0, 1f); // every block active; voxel (b*8,0,0) written
            }
            CyclicBarrier start = new CyclicBarrier(3);
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    Phi phi = writer == 0 ? bound : rt.accessor(Phi.class);
                    start.await(10, TimeUnit.SECONDS);
                    int n = 0;
                    for (int i = 0; i < blocks * 8; i++) {
                        for (int j = 0; j < 8; j++) {
                            for (int k = 0; k < 8; k++) {
                                if (n++ % 2 == writer && (i % 8 | j | k) != 0) {
                                    phi.phi(i, j, k, 1f);
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            Future<List<Long>> counter = pool.submit(() -> {
                List<Long> counts = new ArrayList<>();
                start.await(10, TimeUnit.SECONDS);
                while (writing.get()) {
                    counts.add(rt.count("phi"));
                }
                return counts;
            });
            for (Future<?> writer : writers) {
                writer.get(60, TimeUnit.SECONDS);
            }
            writing.set(false);
            long all = blocks * 512L;
            assertThat(counter.get(60, TimeUnit.SECONDS)).allSatisfy(count -> assertThat(count).isBetween((long) blocks, all));
            assertThat(rt.count("phi")).isEqualTo(all);
            assertThat(rt.sum("phi")).isEqualTo((double) all);
            for (int i = 0; i < blocks * 8; i++) {
                for (int j = 0; j < 8; j++) {
                    for (int k = 0; k < 8; k++) {
                        assertThat(bound.phi(i, j, k)).isEqualTo(1f);
                    }
                }
            }
        }
    }
}
