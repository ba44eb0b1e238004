package io.snode.bench.workload;

import io.snode.api.Layout;
import io.snode.codegen.samples.NarrowBand;
import io.snode.runtime.MemoryStats;
import io.snode.runtime.SparseRuntime;
import java.util.Locale;

/**
 * Bytes held by a runtime after writing the first 1, 1,000, 1,000,000 and all voxels of the W1s
 * sorted list, through the generic path, on L1 and L2. Run:
 * {@code ./snode java --enable-native-access=ALL-UNNAMED -cp bench/target/snode-bench.jar
 * io.snode.bench.workload.FootprintReport} (without the flag it measures cells in chunks).
 */
public final class FootprintReport {
    private FootprintReport() {
    }

    public static void main(String[] args) {
        NarrowBand band = NarrowBand.sorted();
        System.out.printf(Locale.ROOT, "W1s sorted list: N = %d, value sum = %s%n", band.size(),
                NarrowBand.decimal12(band.valueSum()));
        for (Layout layout : new Layout[] {Layouts.l1(), Layouts.l2()}) {
            System.out.println("layout " + layout);
            System.out.printf(Locale.ROOT, "%12s %14s %14s %12s %10s %10s%n",
                    "voxels", "reserved B", "committed B", "B/voxel", "blocks", "pointers");
            try (SparseRuntime rt = SparseRuntime.create(layout)) {
                int written = 0;
                for (int target : new int[] {1, 1_000, 1_000_000, band.size()}) {
                    for (; written < target; written++) {
                        rt.setFloat("phi", band.value(written), band.i(written), band.j(written), band.k(written));
                    }
                    MemoryStats stats = rt.memoryStats();
                    System.out.printf(Locale.ROOT, "%12d %14d %14d %12.2f %10d %10d%n", written,
                            stats.bytesReserved(), stats.bytesCommitted(),
                            (double) stats.bytesCommitted() / written,
                            stats.of(layout.snode(2)).cells().cellsInUse(),
                            stats.of(layout.snode(1)).cells().cellsInUse());
                }
            }
        }
    }
}
