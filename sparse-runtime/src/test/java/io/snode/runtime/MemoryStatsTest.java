package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Memory statistics are API: a user reads them without importing an internal package. */
class MemoryStatsTest {

    /** {@code of} says why it has nothing for an SNode: another layout's (it said "has no node manager"), or a kind without one. */
    @Test
    void ofNamesWhyItHasNothingForAnSNode() {
        String text = "pointer(i,8).dense(i,4).place(f32 x)";
        Layout layout = Layout.parse(text);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            MemoryStats stats = rt.memoryStats();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stats.of(Layout.parse(text).snode(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not from this runtime's layout");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stats.of(layout.snode(2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("has no node manager (only pointer, hash and dynamic SNodes have one)");
            assertThat(stats.of(layout.snode(1)).snode()).isSameAs(layout.snode(1));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stats.of(Layout.parse("hash(i,8).place(f32 y)").snode(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not from this runtime's layout");
        }
    }

    @Test
    void thePublicSurfaceOfMemoryStatsNamesNoInternalType() {
        List<String> leaks = new ArrayList<>();
        List<Class<?>> reached = new ArrayList<>(List.of(MemoryStats.class));
        for (int n = 0; n < reached.size(); n++) {
            Class<?> type = reached.get(n);
            for (Method method : type.getMethods()) {
                if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())) {
                    continue;
                }
                for (Class<?> used : typesIn(method.getGenericReturnType())) {
                    if (used.getPackageName().contains(".internal")) {
                        leaks.add(type.getSimpleName() + "." + method.getName() + " returns " + used.getName());
                    } else if (used.getPackageName().startsWith("io.snode.runtime") && !reached.contains(used)) {
                        reached.add(used);
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void cellCountsAfterAScriptedCycleAreExact() {
        try (SparseRuntime rt = SparseRuntime.create(Layout.parse("pointer(i,8).pointer(i,4).dense(i,2).place(f32 x)"))) {
            SNode outer = rt.layout().snode(1);
            SNode inner = rt.layout().snode(2);
            for (int i = 0; i < 64; i += 2) {
                rt.setFloat("x", 1f, i); // every inner cell (2 cells each) once: 32 of them, under 8 outer cells
            }
            NodeManagerMetric cells = rt.memoryStats().of(inner).cells();
            assertThat(cells.cellsInUse()).isEqualTo(32);
            assertThat(rt.memoryStats().of(outer).cells().cellsInUse()).isEqualTo(8);
            assertThat(rt.deactivate(outer, 0)).isTrue();
            NodeManagerMetric recycled = rt.memoryStats().of(inner).cells();
            assertThat(recycled.cellsInUse()).isEqualTo(28);
            assertThat(recycled.cellsRecycled()).isEqualTo(4);
            rt.collect();
            NodeManagerMetric collected = rt.memoryStats().of(inner).cells();
            assertThat(collected.cellsRecycled()).isZero();
            assertThat(collected.cellsAllocated()).isEqualTo(collected.cellsInUse() + collected.cellsFree());
            MemoryPoolMetric pool = rt.memoryStats().pool();
            assertThat(pool.capBytes()).isEqualTo(RuntimeOptions.DEFAULT.memoryCapBytes());
            assertThat(pool.bytesReserved()).isEqualTo(rt.memoryStats().bytesReserved()).isPositive();
        }
    }

    private static List<Class<?>> typesIn(Type type) {
        List<Class<?>> types = new ArrayList<>();
        if (type instanceof Class<?> plain) {
            types.add(plain.isArray() ? plain.getComponentType() : plain);
        } else if (type instanceof ParameterizedType parameterized) {
            types.addAll(typesIn(parameterized.getRawType()));
            for (Type argument : parameterized.getActualTypeArguments()) {
                types.addAll(typesIn(argument));
            }
        }
        return types;
    }
}
