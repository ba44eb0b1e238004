package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The dense baseline on a 256^3 box (64 MiB) that holds the quick band, never the 4 GiB default. */
class BaselineDenseTest extends ContenderContract {
    @Override
    Contender contender() {
        return new BaselineDense(896, 256, HeapBytes.current());
    }

    @Override
    Set<Workload> workloads() {
        return EnumSet.of(Workload.W1S, Workload.W1R, Workload.W2, Workload.W3);
    }

    @Override
    int rows(Workload workload) {
        return workload == Workload.W3 ? THREADS.size() : super.rows(workload);
    }

    @Test
    void rowsHaveNoCountExceptW3sLimitWhichCountsWholeBlocks() {
        Contender dense = contender();
        Result w1 = dense.run(Workload.W1S, context()).getFirst();
        assertThat(w1.count()).isNull();
        assertThat(w1.n()).isEqualTo(data.references().voxels());
        assertThat(w1.bytesPerVoxel()).isEqualTo(HeapBytes.current().array(float.class, 256 * 256 * 256)
                / (double) data.references().voxels());
        List<Result> w3 = dense.run(Workload.W3, context());
        assertThat(w3).extracting(Result::threads).containsExactlyElementsOf(THREADS);
        assertThat(w3).extracting(Result::api)
                .containsExactly("Vector API sum over float[]", "Vector API sum over float[], a part per thread");
        assertThat(w3).allSatisfy(limit -> {
            assertThat(limit.count()).isEqualTo(512 * data.references().blocks());
            assertThat(limit.sum()).isEqualTo(data.references().valueSum());
        });
    }

    @Test
    void w2ReadsTheBandWithoutABuildFirst() {
        assertThat(contender().run(Workload.W2, context())).singleElement()
                .satisfies(reads -> assertThat(reads.checksumsOk()).isTrue());
    }

    @Test
    void aBoxThatMissesTheBandIsRefusedBeforeAnyTiming() {
        Contender small = new BaselineDense(1000, 64, HeapBytes.current());
        assertThatThrownBy(() -> small.run(Workload.W1S, context()))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("outside the dense box [1000, 1064)^3");
        assertThatThrownBy(() -> small.run(Workload.W2, context()))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("W2's read");
    }

    @Test
    void rejectsABoxLargerThanAnArray() {
        assertThatThrownBy(() -> new BaselineDense(0, 1025, HeapBytes.current()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("edge=1025 (1 to 1024)");
    }

    @Test
    void leafDataHoldsEveryBlockOnce() {
        float[] leaves = BaselineDense.leafData(data);
        assertThat(leaves).hasSize(Math.toIntExact(512 * data.references().blocks()));
        double sum = 0;
        int nonZero = 0;
        for (float value : leaves) {
            sum += value;
            nonZero += value != 0 ? 1 : 0;
        }
        assertThat(sum).isEqualTo(data.references().valueSum());
        assertThat(nonZero).isLessThanOrEqualTo(data.sorted().size()).isGreaterThan(data.sorted().size() * 9 / 10);
    }
}
