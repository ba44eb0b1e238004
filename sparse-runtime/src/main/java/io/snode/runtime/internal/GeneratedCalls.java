package io.snode.runtime.internal;

import io.snode.api.SNode;
import io.snode.runtime.BitmaskWords;
import io.snode.runtime.PointerWord;
import io.snode.runtime.internal.node.DynamicUnit;
import java.lang.foreign.MemorySegment;

/**
 * The node algorithms as the small static methods that generated code calls: each does one step
 * of a walk and inlines into the caller, where the plan's constants (offsets, cell sizes,
 * fan-outs) are already literals. Activation and the rarer operations go to {@link NodeTree}.
 */
public final class GeneratedCalls {
    private GeneratedCalls() {
    }

    /** The pointer word at (segment, offset), read with acquire ordering. */
    public static long pointerWord(MemorySegment segment, long offset) {
        return Atomics.getAcquire(segment, offset);
    }

    /** The child's chunk for an active word, or the SNode's ambient cell for any other word. */
    public static MemorySegment childOrAmbient(CheckedCells cells, long word, MemorySegment ambient) {
        return PointerWord.isActive(word) ? cells.segment(PointerWord.cellIndex(word)) : ambient;
    }

    /** The child's offset in its chunk for an active word, 0 (the ambient cell) otherwise. */
    public static long childOrAmbientOffset(CheckedCells cells, long word) {
        return PointerWord.isActive(word) ? cells.offset(PointerWord.cellIndex(word)) : 0;
    }

    /** The offset in its manager's region of the child an active word refers to ({@code cellIndex * stride}), checked. */
    public static long regionOffset(long word, long stride) {
        return CheckedCells.regionOffset(PointerWord.cellIndex(word), stride);
    }

    /**
     * The child's offset in its manager's region for an active word, else {@code zeroCell}, the
     * offset of the region's zero cell ({@code NodeManager.zeroCellOffset}): a read of an inactive
     * pointer stays in the same region, so the segment it reads is the region constant.
     */
    public static long regionOrZeroCell(long word, long stride, long zeroCell) {
        return PointerWord.isActive(word) ? regionOffset(word, stride) : zeroCell;
    }

    /** The chunk of the child an active word refers to. */
    public static MemorySegment child(CheckedCells cells, long word) {
        return cells.segment(PointerWord.cellIndex(word));
    }

    /** The offset of the child an active word refers to. */
    public static long childOffset(CheckedCells cells, long word) {
        return cells.offset(PointerWord.cellIndex(word));
    }

    /** Whether bit {@code index & 63} of the mask word at (segment, offset) is set. */
    public static boolean maskBit(MemorySegment segment, long offset, long index) {
        return (Atomics.getAcquire(segment, offset) & BitmaskWords.bit(index)) != 0;
    }

    /**
     * Unless bit {@code index & 63} of the mask word at (segment, offset) is set (read with
     * acquire ordering, as {@link #maskBit} reads it), sets it with an atomic OR and, when this
     * call is the one that set it, counts an activation of {@code structure}: the in-place
     * activation of a write whose path needs no memory from here on (only dense and bitmasked
     * steps below, every pointer above active), the same store and count that {@link NodeTree}'s
     * inline activation makes, and nothing that can fail. The test comes first so that a write to
     * an active cell makes no atomic operation; it is in here, not in the generated method, so
     * that the method computes the word's address once and stays small enough to inline.
     */
    public static void activateBit(NodeTree structure, MemorySegment segment, long offset, long index) {
        long bit = BitmaskWords.bit(index);
        if ((Atomics.getAcquire(segment, offset) & bit) == 0
                && (Atomics.getAndBitwiseOr(segment, offset, bit) & bit) == 0) {
            structure.countActivation();
        }
    }

    /**
     * An append of generated code to an existing list of {@code list}, header at
     * ({@code segment}, {@code header}): the element's index, its activation counted, or
     * {@code -1} with nothing of its own published when the runtime's append must run (the list
     * is full, or retired). When the next element's chunk exists ({@link DynamicUnit#tryAppend})
     * that is one compare-and-set on the length; when it is missing,
     * {@link NodeTree#appendToNewChunk} publishes it, allocating nothing on the Java heap.
     */
    public static long tryAppend(NodeTree structure, SNode list, MemorySegment segment, long header, int chunkSize,
                                 int capacity, CheckedCells blocks, int leafFanout) {
        long element = DynamicUnit.tryAppend(segment, header, chunkSize, capacity, blocks, leafFanout);
        if (element < 0) {
            return structure.appendToNewChunk(list, segment, header);
        }
        structure.countActivation();
        return element;
    }

    /**
     * The first try of an append whose walk found the word at ({@code segment},
     * {@code wordOffset}) of the pointer step whose cell holds its list (just above it, or above
     * only dense steps) not active:
     * {@link NodeTree#activateListBlock}, which publishes a new block there, its list holding a
     * first chunk (the list's header {@code headerOffset} bytes into the block), unless the word
     * is no longer {@link PointerWord#NULL}; allocates nothing on the Java heap, and returns the
     * word to go on with (active: enter its cell and append; else the runtime's append).
     */
    public static long activateListBlock(NodeTree structure, SNode pointer, SNode list, MemorySegment segment,
                                         long wordOffset, long headerOffset) {
        return structure.activateListBlock(pointer, list, segment, wordOffset, headerOffset);
    }

    /**
     * {@link #activateListBlock} where the append's list lies in a bitmasked cell of the new block
     * (with only dense steps between the pointer and the bitmasked step, and between that and the
     * list): {@link NodeTree#activateListCellBlock}, whose new block also has that cell's bit set
     * (cell {@code index} of the mask word {@code maskWordOffset} bytes into the block) before it
     * is published; allocates nothing on the Java heap, and returns the word to go on with.
     */
    public static long activateListCellBlock(NodeTree structure, SNode pointer, SNode list, MemorySegment segment,
                                             long wordOffset, long headerOffset, long maskWordOffset, long index) {
        return structure.activateListCellBlock(pointer, list, segment, wordOffset, headerOffset, maskWordOffset, index);
    }

    /**
     * The first try of an append whose walk found the bit of the bitmasked cell that holds its
     * list (just above it, or above only dense steps) clear: {@link NodeTree#activateListCell},
     * which publishes the list's first chunk where it is missing and then sets the bit; true when
     * the caller appends there, false (nothing changed) when the list is retired and the runtime's
     * append must run. Allocates nothing on the Java heap.
     */
    public static boolean activateListCell(NodeTree structure, SNode list, MemorySegment segment, long maskWord,
                                           long index, long header) {
        return structure.activateListCell(list, segment, maskWord, index, header);
    }

    /** The length of the dynamic list whose header is at (segment, header). */
    public static long listLength(MemorySegment segment, long header) {
        return DynamicUnit.length(segment, header);
    }

    /**
     * The reference word of chunk {@code chunk} of the list at (segment, header), or
     * {@link PointerWord#NULL} when the chunk does not exist; never locks.
     */
    public static long chunkReference(MemorySegment segment, long header, long chunk, CheckedCells blocks,
                                      int leafFanout) {
        return DynamicUnit.chunkReference(segment, header, chunk, blocks, leafFanout);
    }

    /** The structure's epoch, which caching accessors compare before using a cached cell. */
    public static long epoch(NodeTree structure) {
        return structure.epoch();
    }

    /**
     * The structure's epoch read plainly ({@link NodeTree#epochInLaunch}), which a launch's views
     * compare before using the cell that the launch visits.
     */
    public static long epochInLaunch(NodeTree structure) {
        return structure.epochInLaunch();
    }

    /** The slow path of a write: activates the path to the cell and returns where it is. */
    public static Location activate(NodeTree structure, SNode target, int[] coordinates) {
        Location location = new Location();
        structure.locate(target, coordinates, true, location);
        return location;
    }

    /**
     * {@link #activate} for a write whose walk found the word of the target's last pointer step
     * not active, standing in that step's parent cell ({@code segment}, {@code offset}):
     * {@link NodeTree#activateFrom}.
     */
    public static Location activateFrom(NodeTree structure, SNode target, int[] coordinates, MemorySegment segment,
                                        long offset) {
        Location location = new Location();
        structure.activateFrom(target, coordinates, segment, offset, location);
        return location;
    }

    /**
     * The first try of a write whose walk found the word at ({@code segment}, {@code wordOffset})
     * of its path's last pointer step not active: {@link NodeTree#activatePointer}, which
     * publishes a new, empty cell there unless the word is no longer {@link PointerWord#NULL},
     * allocates nothing on the Java heap, and returns the word to go on with (active: enter its
     * cell; else the runtime's activation).
     */
    public static long activatePointer(NodeTree structure, SNode pointer, MemorySegment segment, long wordOffset) {
        return structure.activatePointer(pointer, segment, wordOffset);
    }

    public static boolean isActive(NodeTree structure, SNode target, int[] coordinates) {
        return structure.isActive(target, coordinates, new Location());
    }

    public static boolean deactivate(NodeTree structure, SNode target, int[] coordinates) {
        return structure.deactivate(target, coordinates, new Location());
    }

    /**
     * The deactivation of a generated {@code deactivate_} method, whose walk found the cell's
     * container at ({@code segment}, {@code container}) with every level above active: see
     * {@link NodeTree#deactivateCell}. Allocates nothing on the Java heap.
     */
    public static boolean deactivateCell(NodeTree structure, SNode target, MemorySegment segment, long container,
                                         long index) {
        return structure.deactivateCell(target, segment, container, index);
    }

    public static long append(NodeTree structure, SNode dynamic, int[] coordinates) {
        return structure.append(dynamic, coordinates, new Location());
    }

    /** Appends an element and returns where it is, for a store of one field. */
    public static Location appendAt(NodeTree structure, SNode dynamic, int[] coordinates) {
        Location location = new Location();
        structure.append(dynamic, coordinates, location);
        return location;
    }

    public static long length(NodeTree structure, SNode dynamic, int[] coordinates) {
        return structure.length(dynamic, coordinates, new Location());
    }

    public static void deactivateAll(NodeTree structure, SNode target) {
        structure.deactivateAll(target);
    }

    /**
     * The exception for a box's corner outside {@code [0, extent]} (a high corner may equal the
     * extent): the range named as such, so an extent of 2^31 - 1 does not overflow into it.
     */
    public static IndexOutOfBoundsException cornerOutside(String what, char axis, int value, int extent) {
        return new IndexOutOfBoundsException(what + ": axis " + axis + " index=" + value
                + " is outside [0, " + extent + "]");
    }

    /** The exception for a coordinate outside its extent, the same from every path. */
    public static IndexOutOfBoundsException outside(String what, char axis, int value, int extent) {
        return new IndexOutOfBoundsException(what + ": axis " + axis + " index=" + value
                + " is outside [0, " + extent + ")");
    }
}
