package io.snode.codegen.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NarrowBandTest {
    private static NarrowBand band;

    @BeforeAll
    static void build() {
        band = NarrowBand.sorted();
    }

    @Test
    void matchesTheReferenceChecksums() {
        assertThat(band.size()).isEqualTo(8_048_580);
        assertThat(band.valueSum()).isEqualTo(33845.922322932631);
    }

    @Test
    void isSortedAndEveryVoxelIsInTheBand() {
        int previous = -1;
        for (int n = 0; n < band.size(); n += 1) {
            int packed = NarrowBand.pack(band.i(n), band.j(n), band.k(n));
            assertThat(packed).isGreaterThan(previous);
            previous = packed;
            if (n % 9973 == 0) {
                long di = band.i(n) - 1024;
                long dj = band.j(n) - 1024;
                long dk = band.k(n) - 1024;
                long d2 = di * di + dj * dj + dk * dk;
                assertThat(d2).isBetween(398L * 398, 402L * 402 - 1);
            }
        }
    }

    @Test
    void itsCellArraysAreTheListInOrder() {
        NarrowBand quick = NarrowBand.sorted(NarrowBand.QUICK_RADIUS);
        io.snode.codegen.interop.CellArrays cells = quick.cells();
        assertThat(cells.size()).isEqualTo(quick.size());
        for (int n = 0; n < quick.size(); n += 101) {
            assertThat(cells.coordinates(0)[n]).isEqualTo(quick.i(n));
            assertThat(cells.coordinates(1)[n]).isEqualTo(quick.j(n));
            assertThat(cells.coordinates(2)[n]).isEqualTo(quick.k(n));
            assertThat(cells.floats()[n]).isEqualTo(quick.value(n));
        }
    }

    @Test
    void shuffleIsAPermutation() {
        NarrowBand shuffled = band.shuffled();
        assertThat(shuffled.size()).isEqualTo(band.size());
        long sumSorted = 0;
        long sumShuffled = 0;
        for (int n = 0; n < band.size(); n++) {
            sumSorted += NarrowBand.pack(band.i(n), band.j(n), band.k(n));
            sumShuffled += NarrowBand.pack(shuffled.i(n), shuffled.j(n), shuffled.k(n));
        }
        assertThat(sumShuffled).isEqualTo(sumSorted);
        // The peer's reference output (shared/peers/openvdb/reference-output.txt).
        assertThat(new int[] {shuffled.i(0), shuffled.j(0), shuffled.k(0)}).containsExactly(691, 1242, 995);
        assertThat(new int[] {shuffled.i(1), shuffled.j(1), shuffled.k(1)}).containsExactly(1352, 1204, 878);
        assertThat(new int[] {shuffled.i(2), shuffled.j(2), shuffled.k(2)}).containsExactly(1164, 752, 767);
        int last = band.size() - 1;
        assertThat(new int[] {shuffled.i(last), shuffled.j(last), shuffled.k(last)}).containsExactly(814, 1168, 1335);
        assertThat(new int[] {band.i(0), band.j(0), band.k(0)}).containsExactly(623, 996, 1020);
    }
}
