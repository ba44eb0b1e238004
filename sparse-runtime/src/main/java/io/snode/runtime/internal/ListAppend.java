package io.snode.runtime.internal;

import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.node.DynamicUnit;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Appends a run of values of one field to one list of a dynamic SNode, as that many single
 * appends in order would, taking the indices a chunk at a time: where the list exists and its
 * next element's chunk too, one compare-and-set on the length takes every index up to the end of
 * that chunk ({@link DynamicUnit#tryAppendRun}), and the values are copied into the chunk in one
 * piece (or one per element when the element holds other fields). A new list whose block is a
 * pointer's cell (its parent step is a pointer, or only dense steps lie between them) gets its
 * block, with a first chunk, at once ({@link
 * NodeTree#locateOrActivateListBlock}), and a missing chunk of an existing list is published
 * first ({@link NodeTree#publishNextChunk}: allocated, then published under the header lock),
 * both with nothing allocated on the Java heap; then the runs go on. Anything else (a level
 * further up inactive, a full or retired list) goes to the runtime's append for one element
 * ({@link NodeTree#append}: the activation protocol).
 *
 * <p><b>Shared state and failure.</b> This publishes only what single appends publish: a run's
 * indices appear with one compare-and-set of the length after their chunk exists, so a reader
 * that sees the new length finds the chunk of every index below it (the values are stored after,
 * as a single append stores its one; other threads' appends to the same list take indices before,
 * between or after the runs). When the new block's or the next chunk's allocation or the
 * runtime's append refuses an element (the list is full, the memory cap, an allocator fault) it
 * has published nothing of its own (a chunk published for the next element that other appends
 * then filled was theirs to need; a new block appears only with its first chunk, which the next
 * run fills unless other appends did), and this stops there:
 * every element before it is appended, it and the ones after are not, and
 * {@link #refusal()} holds the exception. Nothing is taken back. A deactivation that empties the
 * list while a run is stored makes the run's values go with the list, as a single append's
 * value does (no collection can run meanwhile: the caller holds the phase lock shared).
 */
public final class ListAppend {
    private final NodeTree structure;
    private final SNode list;
    private final int chunkSize;
    private final int capacity;
    private final int leafFanout;
    private final CheckedCells chunks;
    private final CheckedCells blocks;
    private final long cellBytes;
    private final long fieldOffset;
    private final long fieldBytes;
    private final Location location = new Location();
    private Throwable refusal;

    /**
     * @param field a field of a dynamic SNode (a list element's field)
     */
    public ListAppend(NodeTree structure, PlacedField field) {
        this.structure = Objects.requireNonNull(structure, "structure");
        this.list = field.snode();
        if (list.kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("field " + field.name() + " lies in " + list.description()
                    + ", not in a dynamic node's elements");
        }
        SNodePlan plan = structure.plan().node(list);
        this.chunkSize = plan.chunkSize();
        this.capacity = plan.capacity();
        this.leafFanout = plan.directoryLeafFanout();
        DynamicUnit unit = (DynamicUnit) structure.unit(list);
        this.chunks = unit.chunks();
        this.blocks = unit.blocks();
        this.cellBytes = plan.cellBytes();
        this.fieldOffset = plan.fieldOffset(field.slot());
        this.fieldBytes = field.type().byteSize();
    }

    /**
     * Appends elements {@code [from, to)} of {@code values} (the field's values, {@code
     * fieldBytes} each, in native order) to the list at {@code listCoordinates} (the parent's
     * coordinates, checked by the caller), in order.
     *
     * @return the elements appended: {@code to - from}, or fewer when one was refused ({@link #refusal()})
     */
    public long append(int[] listCoordinates, MemorySegment values, long from, long to) {
        refusal = null;
        int[] element = elementCoordinates(list, listCoordinates, 0);
        long n = from;
        boolean header = false;
        MemorySegment headerSegment = null;
        long headerOffset = 0;
        while (n < to) {
            if (!header) {
                try {
                    header = structure.locateOrActivateListBlock(list, element, location);
                } catch (RuntimeException | Error refused) { // an Error too: Arena.allocate's OutOfMemoryError
                    refusal = refused;
                    return n - from;
                }
                headerSegment = location.segment;
                headerOffset = location.offset;
            }
            if (header) {
                long first = DynamicUnit.tryAppendRun(headerSegment, headerOffset, chunkSize, capacity, blocks,
                        leafFanout, to - n);
                if (first >= 0) {
                    structure.countActivation();
                    long run = DynamicUnit.runLength(first, to - n, chunkSize, capacity);
                    long reference = DynamicUnit.chunkReference(headerSegment, headerOffset, first / chunkSize,
                            blocks, leafFanout);
                    if (reference != PointerWord.NULL) { // else emptied meanwhile: the run went with the list
                        long cell = PointerWord.cellIndex(reference);
                        store(values, n, run, chunks.segment(cell),
                                chunks.offset(cell) + (first % chunkSize) * cellBytes + fieldOffset);
                    }
                    n += run;
                    continue;
                }
                try {
                    if (structure.publishNextChunk(list, headerSegment, headerOffset)) {
                        continue; // the next chunk exists: the next run takes its indices
                    }
                } catch (RuntimeException | Error refused) { // an Error too: Arena.allocate's OutOfMemoryError
                    refusal = refused;
                    return n - from;
                }
            }
            try {
                structure.append(list, element, location);
            } catch (RuntimeException | Error refused) { // an Error too: Arena.allocate's OutOfMemoryError
                refusal = refused;
                return n - from;
            }
            MemorySegment.copy(values, n * fieldBytes, location.segment, location.offset + fieldOffset, fieldBytes);
            n++;
            header = false; // the path or the chunk is new: find the header again for the next run
        }
        return n - from;
    }

    /**
     * What refused the element the last {@link #append} stopped at, or null when it appended every
     * one: a RuntimeException (a full list, the memory cap) or an Error (an allocator fault: the
     * default allocator's {@code Arena.allocate} throws {@link OutOfMemoryError} when the system
     * has no memory left).
     */
    public Throwable refusal() {
        return refusal;
    }

    /** Values {@code [n, n + run)} into consecutive elements from {@code offset} of {@code chunk}. */
    private void store(MemorySegment values, long n, long run, MemorySegment chunk, long offset) {
        if (cellBytes == fieldBytes) {
            MemorySegment.copy(values, n * fieldBytes, chunk, offset, run * fieldBytes);
            return;
        }
        for (long m = 0; m < run; m++) {
            MemorySegment.copy(values, (n + m) * fieldBytes, chunk, offset + m * cellBytes, fieldBytes);
        }
    }

    /**
     * The coordinates of element {@code index} of the list of {@code dynamic} at
     * {@code listCoordinates} (its parent's coordinates): the index inserted at the list axis's
     * position among the node's index axes.
     */
    public static int[] elementCoordinates(SNode dynamic, int[] listCoordinates, int index) {
        int position = dynamic.indexAxes().indexOf(dynamic.axes().get(0));
        int[] element = new int[listCoordinates.length + 1];
        System.arraycopy(listCoordinates, 0, element, 0, position);
        element[position] = index;
        System.arraycopy(listCoordinates, position, element, position + 1, listCoordinates.length - position);
        return element;
    }
}
