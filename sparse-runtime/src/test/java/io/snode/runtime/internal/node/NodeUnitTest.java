package io.snode.runtime.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.DynamicHeader;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Location;
import io.snode.runtime.internal.NodeTree;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each node unit's container descriptor and its iteration over the active cells of one
 * container: exactly the active cells, in increasing index, at the offsets the descriptor gives,
 * with the caller's level passed through.
 */
class NodeUnitTest {
    /** One visit, as the iteration reported it. */
    private record Visit(int level, long index, MemorySegment segment, long cell, long managed) {
    }

    private static final class Recorder implements ActiveCellVisitor {
        final List<Visit> visits = new ArrayList<>();

        @Override
        public void visit(int level, long index, MemorySegment segment, long cell, long managed) {
            visits.add(new Visit(level, index, segment, cell, managed));
        }

        List<Long> indices() {
            return visits.stream().map(Visit::index).toList();
        }
    }

    private static long rootContainer(NodeTree structure, SNode snode) {
        return structure.plan().path(snode).getFirst().containerOffset();
    }

    @Test
    void bitmaskWordsPlaceEachIndexInItsWordAndBit() {
        assertThat(BitmaskWords.wordOffset(0)).isZero();
        assertThat(BitmaskWords.wordOffset(63)).isZero();
        assertThat(BitmaskWords.wordOffset(64)).isEqualTo(8);
        assertThat(BitmaskWords.wordOffset(129)).isEqualTo(16);
        assertThat(BitmaskWords.bit(0)).isEqualTo(1L);
        assertThat(BitmaskWords.bit(63)).isEqualTo(Long.MIN_VALUE);
        assertThat(BitmaskWords.bit(65)).isEqualTo(2L);
        assertThat(BitmaskWords.words(0)).isZero();
        assertThat(BitmaskWords.words(64)).isEqualTo(1);
        assertThat(BitmaskWords.words(65)).isEqualTo(2);
        assertThat(BitmaskWords.words(Long.MAX_VALUE)).as("no overflow near 2^63").isEqualTo(1L << 57);
        assertThat(BitmaskWords.offsetOfWord(3)).isEqualTo(24);
        assertThat(BitmaskWords.lowestIndex(2, 0b1000L)).isEqualTo(131);
        assertThat(PointerWord.wordOffset(5)).isEqualTo(40);
        assertThat(PointerWord.activeBit(PointerWord.encode(0))).isEqualTo(1);
        assertThat(PointerWord.activeBit(Long.MAX_VALUE)).isEqualTo(1);
        assertThat(PointerWord.activeBit(PointerWord.NULL)).isZero();
        assertThat(PointerWord.activeBit(PointerWord.BUSY)).isZero();
        assertThat(PointerWord.activeBit(PointerWord.RETIRED)).isZero();
        for (long word : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -3, 1, 2, Long.MAX_VALUE - 1}) {
            assertThat(PointerWord.activeBit(word)).as("word=%d", word).isEqualTo(PointerWord.isActive(word) ? 1 : 0);
        }
        long[] set = new long[3];
        BitmaskWords.set(set, 1, 65);
        BitmaskWords.set(set, 1, 0);
        assertThat(set).containsExactly(0, 1, 2);
        assertThat(BitmaskWords.isSet(set, 1, 65)).isTrue();
        assertThat(BitmaskWords.isSet(set, 1, 64)).isFalse();
        assertThat(BitmaskWords.isSet(set, 0, 0)).isFalse();
    }

    @Test
    void aBitmaskedContainerVisitsExactlyItsSetBitsInOrder() {
        Layout layout = Layout.parse("bitmasked(i,130).place(i32 v)");
        SNode leaf = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            long[] chosen = {129, 0, 64, 5, 63};
            for (long i : chosen) {
                rt.setInt("v", (int) i + 1000, (int) i);
            }
            rt.deactivate(leaf, 5);
            NodeTree structure = rt.internalTree();
            BitmaskedUnit unit = (BitmaskedUnit) structure.unit(leaf);
            SNodePlan plan = unit.node();
            long container = rootContainer(structure, leaf);
            Recorder recorder = new Recorder();
            long visited = unit.forEachActive(structure.root(), container, recorder, 7);
            assertThat(recorder.indices()).containsExactly(0L, 63L, 64L, 129L);
            assertThat(visited).isEqualTo(4);
            for (Visit visit : recorder.visits) {
                assertThat(visit.level()).isEqualTo(7);
                assertThat(visit.managed()).isEqualTo(-1);
                assertThat(visit.cell()).isEqualTo(container + plan.cellsOffset() + visit.index() * plan.cellBytes());
                assertThat(unit.cellOffset(visit.index())).isEqualTo(visit.cell() - container);
                assertThat(visit.segment().get(ValueLayout.JAVA_INT, visit.cell())).isEqualTo((int) visit.index() + 1000);
                assertThat(unit.isActive(structure.root(), container, visit.index())).isTrue();
            }
            assertThat(unit.isActive(structure.root(), container, 5)).isFalse();
            Location at = new Location().set(structure.root(), 0);
            assertThat(unit.lookup(at, container, 5)).isFalse();
            assertThat(unit.lookup(at, container, 64)).isTrue();
            assertThat(at.offset).isEqualTo(container + unit.cellOffset(64));
        }
    }

    @Test
    void releasingABitmaskedContainerDeactivatesItsActiveCellsAndRecyclesWhatLiesBelow() {
        Layout layout = Layout.parse("bitmasked(i,130).pointer(j,4).place(i32 v)");
        SNode masked = layout.snode(1);
        SNode pointer = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.setInt("v", 1, 3, 1);
            rt.setInt("v", 2, 100, 2);
            rt.setInt("v", 3, 129, 0);
            assertThat(rt.memoryStats().of(pointer).cells().cellsInUse()).isEqualTo(3);
            rt.deactivateAll(masked);
            assertThat(rt.memoryStats().of(pointer).cells().cellsInUse()).isZero();
            for (int i : new int[] {3, 100, 129}) {
                assertThat(rt.isActive(masked, i)).isFalse();
            }
            NodeTree structure = rt.internalTree();
            Recorder recorder = new Recorder();
            assertThat(structure.unit(masked).forEachActive(structure.root(), rootContainer(structure, masked),
                    recorder, 0)).isZero();
            rt.setInt("v", 4, 100, 2);
            assertThat(rt.getInt("v", 100, 2)).isEqualTo(4);
            assertThat(rt.getInt("v", 3, 1)).isZero();
        }
    }

    @Test
    void aPointerContainerVisitsOnlyItsActiveWords() {
        Layout layout = Layout.parse("pointer(i,8).place(i32 v)");
        SNode node = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout); Arena arena = Arena.ofConfined()) {
            PointerUnit unit = (PointerUnit) rt.internalTree().unit(node);
            CheckedCells cells = unit.cells();
            MemorySegment words = arena.allocate(8L * PointerWord.BYTES, 8);
            long first = cells.allocate();
            long second = cells.allocate();
            words.set(ValueLayout.JAVA_LONG, PointerWord.wordOffset(0), PointerWord.BUSY);
            words.set(ValueLayout.JAVA_LONG, PointerWord.wordOffset(2), PointerWord.encode(second));
            words.set(ValueLayout.JAVA_LONG, PointerWord.wordOffset(5), PointerWord.encode(first));
            words.set(ValueLayout.JAVA_LONG, PointerWord.wordOffset(7), PointerWord.RETIRED);
            Recorder recorder = new Recorder();
            assertThat(unit.forEachActive(words, 0, recorder, 3)).isEqualTo(2);
            assertThat(recorder.visits).containsExactly(
                    new Visit(3, 2, cells.segment(second), cells.offset(second), second),
                    new Visit(3, 5, cells.segment(first), cells.offset(first), first));
            assertThat(unit.isActive(words, 0, 0)).as("a busy word is not active").isFalse();
            assertThat(unit.isActive(words, 0, 5)).isTrue();
        }
    }

    @Test
    void aPointerContainerOfSeveralMaskBlocksVisitsItsActiveWordsInOrder() {
        Layout layout = Layout.parse("pointer(i,130).place(i32 v)");
        SNode node = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            for (int i : new int[] {129, 64, 0, 63, 100}) {
                rt.setInt("v", i, i);
            }
            rt.deactivate(node, 100);
            NodeTree structure = rt.internalTree();
            PointerUnit unit = (PointerUnit) structure.unit(node);
            Recorder recorder = new Recorder();
            assertThat(unit.forEachActive(structure.root(), rootContainer(structure, node), recorder, 0)).isEqualTo(4);
            assertThat(recorder.indices()).containsExactly(0L, 63L, 64L, 129L);
            for (Visit visit : recorder.visits) {
                assertThat(visit.segment().get(ValueLayout.JAVA_INT, visit.cell())).isEqualTo((int) visit.index());
                assertThat(unit.cells().offset(visit.managed())).isEqualTo(visit.cell());
            }
        }
    }

    @Test
    void aDenseContainerVisitsEveryCellAtItsOffset() {
        Layout layout = Layout.parse("dense(i,3).place(i64 v)");
        SNode node = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            DenseUnit unit = (DenseUnit) rt.internalTree().unit(node);
            Recorder recorder = new Recorder();
            assertThat(unit.forEachActive(rt.internalTree().root(), 16, recorder, 0)).isEqualTo(3);
            assertThat(recorder.indices()).containsExactly(0L, 1L, 2L);
            assertThat(recorder.visits.get(2).cell()).isEqualTo(16 + 2 * unit.node().cellBytes());
            assertThat(unit.cellOffset(2)).isEqualTo(2 * unit.node().cellBytes());
        }
    }

    @Test
    void aDynamicContainerVisitsTheIndicesBelowItsLengthWhoseChunkExists() {
        Layout layout = Layout.parse("pointer(i,2).dynamic(j,4,2).place(i32 p)");
        SNode list = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout); Arena arena = Arena.ofConfined()) {
            DynamicUnit unit = (DynamicUnit) rt.internalTree().unit(list);
            CheckedCells chunks = unit.chunks();
            long cellBytes = unit.node().cellBytes();
            MemorySegment header = arena.allocate(DynamicHeader.BYTES, 8);
            long chunk0 = chunks.allocate();
            header.set(ValueLayout.JAVA_LONG, DynamicHeader.LENGTH_OFFSET, 3);
            header.set(ValueLayout.JAVA_LONG, DynamicHeader.inlineChunkOffset(0), PointerWord.encode(chunk0));
            Recorder recorder = new Recorder();
            assertThat(unit.forEachActive(header, 0, recorder, 1)).isEqualTo(2);
            assertThat(recorder.visits).as("index 2's chunk does not exist").containsExactly(
                    new Visit(1, 0, chunks.segment(chunk0), chunks.offset(chunk0), chunk0),
                    new Visit(1, 1, chunks.segment(chunk0), chunks.offset(chunk0) + cellBytes, chunk0));
            long chunk1 = chunks.allocate();
            header.set(ValueLayout.JAVA_LONG, DynamicHeader.inlineChunkOffset(1), PointerWord.encode(chunk1));
            recorder.visits.clear();
            assertThat(unit.forEachActive(header, 0, recorder, 1)).isEqualTo(3);
            assertThat(recorder.indices()).as("index 3 lies past the length").containsExactly(0L, 1L, 2L);
            assertThat(recorder.visits.get(2).cell()).isEqualTo(chunks.offset(chunk1) + unit.elementOffset(2));
            assertThat(unit.elementOffset(3)).isEqualTo(cellBytes);
            assertThat(DynamicUnit.length(header, 0)).isEqualTo(3);
            assertThat(unit.isActive(header, 0, 2)).isTrue();
            assertThat(unit.isActive(header, 0, 3)).isFalse();
        }
    }
}
