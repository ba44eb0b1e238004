package io.snode.runtime.internal.memory;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** NodeManager against a model: the set of cells in use and the set of cells recycled since the last collection. */
class NodeManagerModelTest {

    @Property(tries = 200)
    void behavesLikeASetOfCellsInUse(@ForAll @IntRange(min = 1, max = 8) int cacheBatch,
                                     @ForAll @Size(max = 300) List<@IntRange(min = 0, max = 99) Integer> script) {
        checkAgainstModel(cacheBatch, script);
    }

    /** The same check over seeded random scripts, independent of jqwik's generators and reporting. */
    @Test
    void behavesLikeASetOfCellsInUseOverSeededRandomScripts() {
        Random random = new Random(20260101);
        for (int run = 0; run < 200; run++) {
            int cacheBatch = 1 + random.nextInt(8);
            List<Integer> script = new ArrayList<>();
            int length = random.nextInt(400);
            for (int i = 0; i < length; i++) {
                script.add(random.nextInt(100));
            }
            checkAgainstModel(cacheBatch, script);
        }
    }

    /**
     * Runs a script against a NodeManager and the model. Op codes: 0-49 allocate, 50-74 recycle the
     * in-use cell chosen by the code, 75-87 unallocate the cell allocated by the previous op (if it
     * was an allocation), 88-99 collect.
     */
    static void checkAgainstModel(int cacheBatch, List<Integer> script) {
        try (MemoryPool pool = new MemoryPool(MemoryPool.UNLIMITED)) {
            NodeManager cells = new NodeManager(pool, "root.model", 24, 8, cacheBatch);
            List<Integer> inUse = new ArrayList<>();
            Set<Integer> recycled = new HashSet<>();
            int lastAllocated = -1;
            NodeManagerMetrics beforeLastAllocate = null;

            for (int op : script) {
                if (op < 50) {
                    NodeManagerMetrics before = cells.metrics();
                    int cell = cells.allocate();
                    assertThat(inUse.contains(cell)).as("cell %d is in use", cell).isFalse();
                    assertThat(recycled.contains(cell)).as("cell %d is recycled", cell).isFalse();
                    assertThat(NodeManagerTest.readsZero(cells, cell)).isTrue();
                    cells.cellChunk(cell).set(ValueLayout.JAVA_INT, cells.cellOffset(cell), cell + 1);
                    inUse.add(cell);
                    if (before.cellsFree() > 0) {
                        assertThat(cells.metrics().cellsAllocated()).as("reuse before growth")
                                .isEqualTo(before.cellsAllocated());
                    }
                    lastAllocated = cell;
                    beforeLastAllocate = before;
                } else if (op < 75) {
                    if (!inUse.isEmpty()) {
                        int cell = inUse.remove(op % inUse.size());
                        cells.recycle(cell);
                        recycled.add(cell);
                    }
                    lastAllocated = -1;
                } else if (op < 88) {
                    if (lastAllocated >= 0) {
                        cells.unallocate(lastAllocated);
                        inUse.remove(Integer.valueOf(lastAllocated));
                        assertThat(cells.metrics()).as("unallocate reverses allocate").isEqualTo(beforeLastAllocate);
                    }
                    lastAllocated = -1;
                } else {
                    cells.collect();
                    recycled.clear();
                    lastAllocated = -1;
                }

                NodeManagerMetrics m = cells.metrics();
                assertThat(m.cellsInUse()).isEqualTo(inUse.size());
                assertThat(m.cellsRecycled()).isEqualTo(recycled.size());
                assertThat(m.cellsAllocated()).isEqualTo(m.cellsInUse() + m.cellsFree() + m.cellsRecycled());
                assertThat(m.bytesReserved()).isEqualTo(pool.bytesReserved());
                for (int cell : inUse) {
                    assertThat(cells.cellChunk(cell).get(ValueLayout.JAVA_INT, cells.cellOffset(cell)))
                            .as("cell %d keeps its contents", cell).isEqualTo(cell + 1);
                }
            }
        }
    }
}
