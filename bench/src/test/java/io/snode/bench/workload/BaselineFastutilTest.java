package io.snode.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BaselineFastutilTest extends ContenderContract {
    @Override
    Contender contender() {
        return new BaselineFastutil();
    }

    @Override
    Set<Workload> workloads() {
        return EnumSet.allOf(Workload.class);
    }

    @Test
    void mergeMovesMissingBlocksAndAddsSharedOnes() {
        Long2ObjectOpenHashMap<float[]> first = new Long2ObjectOpenHashMap<>();
        Long2ObjectOpenHashMap<float[]> second = new Long2ObjectOpenHashMap<>();
        first.put(1, block(0, 1.5f));
        second.put(1, block(7, -2.25f));
        float[] moved = block(3, 4f);
        second.put(2, moved);
        BaselineFastutil.merge(List.of(first, second));
        assertThat(first.keySet()).containsExactlyInAnyOrder(1L, 2L);
        assertThat(first.get(1)[0]).isEqualTo(1.5f);
        assertThat(first.get(1)[7]).isEqualTo(-2.25f);
        assertThat(first.get(2)).isSameAs(moved);
    }

    private static float[] block(int cell, float value) {
        float[] block = new float[512];
        block[cell] = value;
        return block;
    }
}
