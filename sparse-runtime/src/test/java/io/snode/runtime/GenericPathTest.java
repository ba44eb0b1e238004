package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GenericPathTest {
    private SparseRuntime runtime;

    private SparseRuntime open(String layout) {
        runtime = SparseRuntime.create(Layout.parse(layout));
        return runtime;
    }

    @AfterEach
    void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void writeActivatesThePathAndReadsBack() {
        SparseRuntime rt = open(PlanTest.L1);
        SNode outer = rt.layout().snode(1);
        SNode inner = rt.layout().snode(2);
        assertThat(rt.getFloat("phi", 1000, 7, 1029)).isZero();
        assertThat(rt.isActive(inner, 125, 0, 128)).isFalse();
        rt.setFloat("phi", 2.5f, 1000, 7, 1029);
        assertThat(rt.getFloat("phi", 1000, 7, 1029)).isEqualTo(2.5f);
        assertThat(rt.getFloat("phi", 1000, 7, 1028)).isZero();
        assertThat(rt.isActive(outer, 7, 0, 8)).isTrue();
        assertThat(rt.isActive(inner, 125, 0, 128)).isTrue();
        assertThat(rt.isActive(inner, 125, 0, 129)).isFalse();
        assertThat(rt.memoryStats().of(outer).cells().cellsInUse()).isEqualTo(1);
        assertThat(rt.memoryStats().of(inner).cells().cellsInUse()).isEqualTo(1);
    }

    @Test
    void everyFieldTypeStoresAndAddsItsOwnValues() {
        SparseRuntime rt = open("pointer(ij,4).dense(ij,[3,5]){ place(i32 a, i64 b, f32 c, f64 d) }");
        rt.setInt("a", -7, 11, 19);
        rt.setLong("b", Long.MIN_VALUE + 3, 11, 19);
        rt.setFloat("c", 1.25f, 11, 19);
        rt.setDouble("d", Math.PI, 11, 19);
        assertThat(rt.addInt("a", 10, 11, 19)).isEqualTo(-7);
        assertThat(rt.addLong("b", -3, 11, 19)).isEqualTo(Long.MIN_VALUE + 3);
        assertThat(rt.addFloat("c", 0.5f, 11, 19)).isEqualTo(1.25f);
        assertThat(rt.addDouble("d", 1.0, 11, 19)).isEqualTo(Math.PI);
        assertThat(rt.getInt("a", 11, 19)).isEqualTo(3);
        assertThat(rt.getLong("b", 11, 19)).isEqualTo(Long.MIN_VALUE);
        assertThat(rt.getFloat("c", 11, 19)).isEqualTo(1.75f);
        assertThat(rt.getDouble("d", 11, 19)).isEqualTo(Math.PI + 1.0);
        assertThat(rt.addInt("a", 5, 0, 0)).isZero();
        assertThat(rt.getInt("a", 0, 0)).isEqualTo(5);
    }

    @Test
    void rootFieldsAreScalars() {
        SparseRuntime rt = open("pointer(i,128).dense(i,128).place(f32 x); place(i32 s)");
        rt.setInt("s", 42);
        rt.addInt("s", 1);
        assertThat(rt.getInt("s")).isEqualTo(43);
        assertThat(rt.isActive(rt.layout().root())).isTrue();
    }

    @Test
    void x19LiesInPointerCell1() {
        SparseRuntime rt = open("pointer(i,16).dense(i,16).place(f32 x)");
        rt.setFloat("x", 1f, 19);
        SNode pointer = rt.layout().snode(1);
        assertThat(rt.isActive(pointer, 1)).isTrue();
        assertThat(rt.isActive(pointer, 0)).isFalse();
        assertThat(rt.getFloat("x", 16)).isZero();
    }

    @Test
    void deactivatingAPointerCellRecyclesItsSubtreeAndReuseReadsZero() {
        SparseRuntime rt = open(PlanTest.L1);
        SNode outer = rt.layout().snode(1);
        SNode inner = rt.layout().snode(2);
        rt.setFloat("phi", 3f, 0, 0, 0);
        rt.setFloat("phi", 4f, 8, 0, 0); // same outer cell, second inner cell
        assertThat(rt.deactivate(outer, 0, 0, 0)).isTrue();
        assertThat(rt.deactivate(outer, 0, 0, 0)).isFalse();
        assertThat(rt.getFloat("phi", 0, 0, 0)).isZero();
        assertThat(rt.getFloat("phi", 8, 0, 0)).isZero();
        assertThat(rt.isActive(inner, 1, 0, 0)).isFalse();
        NodeManagerMetric innerCells = rt.memoryStats().of(inner).cells();
        assertThat(innerCells.cellsInUse()).isZero();
        assertThat(innerCells.cellsRecycled()).isEqualTo(2);

        rt.collect();
        NodeManagerMetric collected = rt.memoryStats().of(inner).cells();
        assertThat(collected.cellsRecycled()).isZero();
        assertThat(collected.cellsFree()).isEqualTo(innerCells.cellsFree() + 2);

        long allocatedBefore = collected.cellsAllocated();
        rt.setFloat("phi", 5f, 0, 0, 1);
        assertThat(rt.memoryStats().of(inner).cells().cellsAllocated()).isEqualTo(allocatedBefore);
        assertThat(rt.getFloat("phi", 0, 0, 0)).isZero();
        assertThat(rt.getFloat("phi", 0, 0, 1)).isEqualTo(5f);
    }

    @Test
    void bitmaskedCellsReadZeroWhenInactiveAndRestartAtZero() {
        SparseRuntime rt = open("dense(i,4).bitmasked(i,8){ place(f32 v, i32 n) }");
        SNode mask = rt.layout().snode(2);
        rt.setFloat("v", 9f, 13);
        rt.setInt("n", 2, 13);
        assertThat(rt.isActive(mask, 13)).isTrue();
        assertThat(rt.isActive(mask, 12)).isFalse();
        assertThat(rt.deactivate(mask, 13)).isTrue();
        assertThat(rt.getFloat("v", 13)).isZero();
        rt.activate(mask, 13);
        assertThat(rt.isActive(mask, 13)).isTrue();
        assertThat(rt.getFloat("v", 13)).isZero();
        assertThat(rt.getInt("n", 13)).isZero();
    }

    @Test
    void deactivatingAnInactiveCellOrUnderAnInactiveAncestorDoesNothing() {
        SparseRuntime rt = open(PlanTest.L2);
        SNode leaf = rt.layout().snode(3);
        assertThat(rt.deactivate(leaf, 5, 5, 5)).isFalse();
        assertThat(rt.isActive(leaf, 5, 5, 5)).isFalse();
        rt.setFloat("phi", 1f, 5, 5, 5);
        assertThat(rt.deactivate(leaf, 5, 5, 6)).isFalse();
        assertThat(rt.getFloat("phi", 5, 5, 5)).isEqualTo(1f);
    }

    @Test
    void denseCellsCannotBeDeactivated() {
        SparseRuntime rt = open(PlanTest.L1);
        assertThatThrownBy(() -> rt.deactivate(rt.layout().snode(3), 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("always active");
    }

    @Test
    void dynamicListsAppendReadAndClear() {
        SparseRuntime rt = open("pointer(i,4).dynamic(j,10,3).place(i32 p)");
        SNode list = rt.layout().snode(2);
        assertThat(rt.length(list, 2)).isZero();
        for (int n = 0; n < 10; n++) {
            assertThat(rt.appendInt("p", 100 + n, 2)).isEqualTo(n);
        }
        assertThat(rt.length(list, 2)).isEqualTo(10);
        assertThat(rt.getInt("p", 2, 9)).isEqualTo(109);
        assertThatThrownBy(() -> rt.appendInt("p", 1, 2)).isInstanceOf(DynamicListFullException.class)
                .hasMessageContaining("capacity=10");
        assertThat(rt.length(list, 2)).isEqualTo(10);
        assertThat(rt.isActive(list, 2, 9)).isTrue();
        assertThat(rt.deactivate(list, 2)).isTrue(); // the list's coordinates, as append and length take
        assertThat(rt.length(list, 2)).isZero();
        assertThat(rt.getInt("p", 2, 0)).isZero();
        assertThat(rt.memoryStats().of(list).cells().cellsRecycled()).isEqualTo(4);
        rt.collect();
        assertThat(rt.appendInt("p", 7, 2)).isZero();
        assertThat(rt.getInt("p", 2, 1)).isZero();
        assertThat(rt.getInt("p", 2, 0)).isEqualTo(7);
    }

    @Test
    void dynamicReadsAtOrPastTheLengthReadZeroAndWritesRaiseTheLength() {
        SparseRuntime rt = open("dynamic(i,1000,8).place(f64 x)");
        SNode list = rt.layout().snode(1);
        rt.appendDouble("x", 1.5);
        assertThat(rt.getDouble("x", 1)).isZero();
        rt.setDouble("x", 2.5, 500);
        assertThat(rt.length(list)).isEqualTo(501);
        assertThat(rt.getDouble("x", 500)).isEqualTo(2.5);
        assertThat(rt.getDouble("x", 100)).isZero();
        assertThat(rt.getDouble("x", 0)).isEqualTo(1.5);
        assertThat(rt.appendDouble("x", 3.5)).isEqualTo(501);
    }

    @Test
    void dynamicListsGrowThroughTheDirectory() {
        SparseRuntime rt = open("dynamic(i,100000,4).place(i32 x)");
        SNode list = rt.layout().snode(1);
        for (int n = 0; n < 100_000; n++) {
            rt.appendInt("x", n);
        }
        for (int n = 0; n < 100_000; n += 997) {
            assertThat(rt.getInt("x", n)).isEqualTo(n);
        }
        assertThat(rt.getInt("x", 99_999)).isEqualTo(99_999);
        rt.deactivate(list);
        assertThat(rt.memoryStats().of(list).cells().cellsInUse()).isZero();
        assertThat(rt.memoryStats().of(list).directories().cellsInUse()).isZero();
    }

    @Test
    void deactivateAllEmptiesTheSNode() {
        SparseRuntime rt = open(PlanTest.L1);
        SNode inner = rt.layout().snode(2);
        for (int n = 0; n < 50; n++) {
            rt.setFloat("phi", n, n * 8, n * 3, 2000);
        }
        assertThat(rt.memoryStats().of(inner).cells().cellsInUse()).isEqualTo(50);
        rt.deactivateAll(inner);
        assertThat(rt.memoryStats().of(inner).cells().cellsInUse()).isZero();
        assertThat(rt.memoryStats().of(rt.layout().snode(1)).cells().cellsInUse()).isPositive();
        assertThat(rt.getFloat("phi", 8, 3, 2000)).isZero();
    }

    @Test
    void deactivatingAListTakesTheListsCoordinatesAsAppendAndLengthDo() {
        SparseRuntime rt = open("pointer(i,4).dense(k,2).dynamic(j,10,3).place(i32 p)");
        SNode list = rt.layout().snode(3);
        rt.appendInt("p", 7, 2, 1);
        rt.appendInt("p", 8, 2, 1);
        rt.appendInt("p", 9, 3, 1);
        assertThat(rt.deactivate(list, 2, 1)).isTrue();
        assertThat(rt.length(list, 2, 1)).isZero();
        assertThat(rt.length(list, 3, 1)).isEqualTo(1);
        assertThat(rt.deactivate(list, 2, 1)).isFalse();
        assertThatThrownBy(() -> rt.deactivate(list, 2, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 2 coordinates");
        assertThatThrownBy(() -> rt.deactivate(list, 4, 1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("index=4");
    }

    @Test
    void deactivateAllOnTheRootClearsEverySparseNodeAndKeepsDenseValues() {
        SparseRuntime rt = open("pointer(ij,4){ dense(ij,4).place(f32 a); bitmasked(ij,4).place(f32 b) };"
                + " dense(k,4).bitmasked(k,4).place(i32 c); dynamic(l,64,4).place(i64 d); dense(m,3).place(f64 e);"
                + " place(f64 t)");
        SNode pointer = rt.layout().snode(1);
        SNode masked = rt.layout().snode(3);
        SNode deepMask = rt.layout().snode(5);
        SNode list = rt.layout().snode(6);
        rt.setFloat("a", 1f, 5, 6);
        rt.setFloat("b", 2f, 9, 1);
        rt.setInt("c", 3, 13);
        rt.appendLong("d", 4L);
        rt.setLong("d", 5L, 40);
        rt.setDouble("e", 6.0, 2);
        rt.setDouble("t", 7.0);
        rt.deactivateAll(rt.layout().root());
        assertThat(rt.isActive(pointer, 1, 1)).isFalse();
        assertThat(rt.isActive(masked, 9, 1)).isFalse();
        assertThat(rt.isActive(deepMask, 13)).isFalse();
        assertThat(rt.length(list)).isZero();
        assertThat(rt.getFloat("a", 5, 6)).isZero();
        assertThat(rt.getFloat("b", 9, 1)).isZero();
        assertThat(rt.getInt("c", 13)).isZero();
        assertThat(rt.getLong("d", 40)).isZero();
        assertThat(rt.memoryStats().snodes()).allMatch(s -> s.cells().cellsInUse() == 0);
        assertThat(rt.getDouble("e", 2)).as("dense cells are always active: their values stay").isEqualTo(6.0);
        assertThat(rt.getDouble("t")).isEqualTo(7.0);
        rt.collect();
        rt.setFloat("a", 1.5f, 5, 6);
        assertThat(rt.getFloat("a", 5, 6)).isEqualTo(1.5f);
    }

    @Test
    void deactivateAllOnADenseNodeClearsTheSparseNodesBelowIt() {
        SparseRuntime rt = open("dense(i,4){ pointer(i,2).place(f32 a); bitmasked(i,2).place(f32 b); place(f32 c) };"
                + " pointer(j,4).place(f32 d)");
        SNode dense = rt.layout().snode(1);
        rt.setFloat("a", 1f, 3);
        rt.setFloat("b", 2f, 5);
        rt.setFloat("c", 3f, 2);
        rt.setFloat("d", 4f, 1);
        rt.deactivateAll(dense);
        assertThat(rt.getFloat("a", 3)).isZero();
        assertThat(rt.getFloat("b", 5)).isZero();
        assertThat(rt.getFloat("c", 2)).isEqualTo(3f);
        assertThat(rt.getFloat("d", 1)).as("not below the dense node").isEqualTo(4f);
    }

    @Test
    void badCoordinatesNameTheFieldAxisValueAndExtent() {
        SparseRuntime rt = open(PlanTest.L1);
        assertThatThrownBy(() -> rt.getFloat("phi", 0, 2048, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("field=phi").hasMessageContaining("axis j")
                .hasMessageContaining("index=2048").hasMessageContaining("[0, 2048)");
        assertThatThrownBy(() -> rt.setFloat("phi", 1f, -1, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("index=-1");
        assertThatThrownBy(() -> rt.getFloat("phi", 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 3 coordinates");
        assertThat(rt.memoryStats().snodes()).allMatch(s -> s.cells().cellsInUse() == 0);
    }

    @Test
    void wrongFieldTypeIsRejected() {
        SparseRuntime rt = open(PlanTest.L1);
        assertThatThrownBy(() -> rt.getInt("phi", 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field=phi is f32, not i32");
        assertThatThrownBy(() -> rt.setDouble("phi", 1, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(rt.isActive(rt.layout().snode(1), 0, 0, 0)).isFalse();
    }

    @Test
    void useAfterCloseIsAnIllegalStateException() {
        SparseRuntime rt = open(PlanTest.L1);
        rt.setFloat("phi", 1f, 1, 1, 1);
        rt.close();
        assertThatThrownBy(() -> rt.getFloat("phi", 1, 1, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> rt.setFloat("phi", 1f, 1, 1, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(rt::collect).isInstanceOf(IllegalStateException.class);
        rt.close(); // idempotent
    }
}
