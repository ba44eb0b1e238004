package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The floors on the quick band: what the rows hold besides the contract's checksums. */
class BaselineFloorsTest extends ContenderContract {
    @Override
    Contender contender() {
        return new BaselineFloors();
    }

    @Override
    Set<Workload> workloads() {
        return EnumSet.of(Workload.W1S, Workload.W2);
    }

    @Override
    int rows(Workload workload) {
        return workload == Workload.W1S ? 3 : 2;
    }

    @Test
    void w1sFloorsStoreEveryVoxelAndTheL2OnesSetExactlyItsMaskBits() {
        List<Result> rows = contender().run(Workload.W1S, context());
        assertThat(rows).extracting(Result::api).containsExactly(
                "L1's floor: the stores alone, at precomputed places in off-heap blocks",
                "L2's floor per voxel: the stores + one atomic OR of each voxel's mask bit",
                "L2's floor for a bulk import: the stores + one atomic OR per mask word with bits");
        long blocks = data.references().blocks();
        long voxels = data.references().voxels();
        // L1's row has no mask to count; the L2 rows count one bit per voxel of the band.
        assertThat(rows.get(0).count()).isNull();
        assertThat(rows.get(0).bytesPerVoxel()).isEqualTo(blocks * 2048.0 / voxels);
        assertThat(rows.subList(1, 3)).allSatisfy(row -> {
            assertThat(row.count()).isEqualTo(voxels);
            assertThat(row.bytesPerVoxel()).isEqualTo(blocks * 2112.0 / voxels);
        });
        assertThat(rows).allSatisfy(row -> assertThat(row.sum()).isEqualTo(data.references().valueSum()));
    }

    @Test
    void w2FloorsReadTheReferenceSumThroughFfmAndThroughArrays() {
        List<Result> rows = contender().run(Workload.W2, context());
        assertThat(rows).extracting(Result::api).containsExactly(
                "L1's floor: root word, inner word (acquire), leaf value through FFM",
                "the same three loads from Java arrays (no FFM checks)");
        assertThat(rows).allSatisfy(row -> assertThat(row.sum()).isEqualTo(data.references().readSum()));
    }

    @Test
    void takesPartInW1sAndW2Only() {
        for (Workload workload : Workload.values()) {
            assertThat(BaselineFloors.takesPart(workload)).as(workload.id())
                    .isEqualTo(workload == Workload.W1S || workload == Workload.W2);
        }
    }
}
