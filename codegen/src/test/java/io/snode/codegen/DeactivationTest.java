package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import org.junit.jupiter.api.Test;

/** Deactivation through the generated methods: Taichi's conventions for the root and for lists. */
class DeactivationTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,4){ dense(ij,4).place(f32 a); dynamic(k,32,4).place(i32 p) };"
            + " bitmasked(l,8).place(f64 b); place(f64 t)");

    @Test
    void deactivateAllOfTheRootClearsEverySparseNode() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            rt.generic().setFloat("a", 1f, 5, 6);
            rt.generic().appendInt("p", 2, 1, 1);
            rt.generic().setDouble("b", 3.0, 7);
            rt.generic().setDouble("t", 4.0);
            rt.nodeHandle("deactivateAll", LAYOUT.root()).invoke();
            assertThat(rt.count("a")).isZero();
            assertThat(rt.count("p")).isZero();
            assertThat(rt.count("b")).isZero();
            assertThat(rt.generic().getDouble("t")).isEqualTo(4.0);
            assertThat(rt.memoryStats().snodes()).allMatch(s -> s.cells().cellsInUse() == 0);
        }
    }

    @Test
    void theRuntimesDeactivateAllOfTheRootClearsEverythingSparseAndCollects() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            rt.generic().setFloat("a", 1f, 5, 6);
            rt.generic().setInt("p", 2, 1, 1, 9);
            rt.generic().setDouble("b", 3.0, 7);
            rt.generic().setDouble("t", 4.0);
            rt.deactivateAll(LAYOUT.root());
            assertThat(rt.count("a") + rt.count("p") + rt.count("b")).isZero();
            assertThat(rt.generic().getDouble("t")).isEqualTo(4.0);
            assertThat(rt.memoryStats().snodes()).as("collected after it")
                    .allMatch(s -> s.cells().cellsInUse() == 0 && s.cells().cellsRecycled() == 0);
            assertThat(rt.lastGcStatistics().cellsReclaimed()).isPositive();
        }
    }

    @Test
    void theRuntimesDeactivateTakesAListsCoordinates() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            SNode list = LAYOUT.snode(3);
            rt.generic().appendInt("p", 2, 1, 1);
            assertThat(rt.deactivate(list, 1, 1)).isTrue();
            assertThat(rt.deactivate(list, 1, 1)).isFalse();
            assertThat(rt.generic().length(list, 1, 1)).isZero();
            assertThat(rt.deactivate(LAYOUT.snode(1), 1, 1)).as("the pointer cell that held the list").isTrue();
        }
    }

    @Test
    void deactivatingAListTakesTheListsCoordinatesAsAppendAndLengthDo() throws Throwable {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            SNode list = LAYOUT.snode(3);
            rt.generic().appendInt("p", 2, 1, 1);
            rt.generic().appendInt("p", 3, 1, 1);
            rt.generic().appendInt("p", 4, 2, 1);
            assertThat(rt.nodeHandle("deactivate", list).type().parameterCount())
                    .isEqualTo(rt.nodeHandle("length", list).type().parameterCount()).isEqualTo(2);
            assertThat((boolean) rt.nodeHandle("deactivate", list).invoke(1, 1)).isTrue();
            assertThat((long) rt.nodeHandle("length", list).invoke(1, 1)).isZero();
            assertThat((long) rt.nodeHandle("length", list).invoke(2, 1)).isEqualTo(1);
            assertThat((boolean) rt.nodeHandle("deactivate", list).invoke(1, 1)).isFalse();
        }
    }
}
