package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.POP;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.runtime.AxisSplit;
import io.snode.runtime.PathStep;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * The walk of a generated accessor from the root cell down a path, in four named locals of its
 * method: {@code segment} and {@code offset} (the cell reached), {@code word} (a pointer word or
 * chunk reference) and {@code index} (the cell index in the current level's container). Each
 * level computes its cell index from the coordinate parameters and hands the step to its kind's
 * {@link NodeEmitUnit}; a line-number entry marks where each level starts.
 */
public final class PathWalk {
    private final ClassEmitter owner;
    private final MethodEmitter mv;
    private final int segment;
    private final int offset;
    private final int word;
    private final int index;
    /** {@link #resumeFrom}: the step whose inactive word jumps to {@code resume} (-1: none), and whether one did. */
    private int resumeStep = -1;
    private Label resume;
    private boolean resumed;
    /**
     * {@link #walkToAppend} to the list of a bitmasked cell: the pointer step above that step
     * whose inactive word jumps to {@code blockResume} (-1: none), and whether one did.
     */
    private int blockResumeStep = -1;
    private Label blockResume;
    private boolean blockResumed;

    /** What the method's object remembers of the list a dynamic step enters ({@link #rememberList}), or null. */
    private ListMemo listMemo;

    /**
     * Fields of the generated object (in {@code owner}, of type long, and of type
     * {@code MemorySegment} for {@code chunkSegment}) that remember, for the list of the block a
     * caching accessor remembers, a length it had ({@code length}: elements below it are
     * active), the number of a chunk ({@code chunk}, -1: none) and where that chunk lies
     * ({@code chunkOffset}, and {@code chunkSegment} where the node's chunks do not lie in a
     * region: null then). The accessor forgets them whenever it remembers another block: they
     * hold while the block does, since a list only grows and its chunks stay where they are
     * until a deactivation, which starts a new epoch.
     */
    public record ListMemo(String owner, String length, String chunk, String chunkOffset, String chunkSegment) {
    }

    /**
     * Makes the dynamic steps of later walks of this method use (and update) what {@code memo}
     * remembers instead of reading the list's length and finding its chunk each time; null
     * stops it.
     */
    public void rememberList(ListMemo memo) {
        this.listMemo = memo;
    }

    /** What {@link #rememberList} set, or null. */
    ListMemo listMemo() {
        return listMemo;
    }

    /** Allocates the walk's locals in {@code mv}. */
    public PathWalk(ClassEmitter owner, MethodEmitter mv) {
        this.owner = owner;
        this.mv = mv;
        this.segment = mv.newLocal("segment", Type.getType(MemorySegment.class));
        this.offset = mv.newLocal("offset", Type.LONG_TYPE);
        this.word = mv.newLocal("word", Type.LONG_TYPE);
        this.index = mv.newLocal("index", Type.LONG_TYPE);
    }

    public MethodEmitter mv() {
        return mv;
    }

    public ClassEmitter owner() {
        return owner;
    }

    public int segment() {
        return segment;
    }

    public int offset() {
        return offset;
    }

    public int word() {
        return word;
    }

    public int index() {
        return index;
    }

    /**
     * Steps {@code [from, to)} of {@code steps}: from the root cell when {@code from == 0}, else
     * from the cell in the locals. Reads ({@code ambient}) step through inactive pointers into
     * the ambient cell and into bitmasked cells without testing their bits (an inactive one holds
     * zero); other walks jump to {@code inactive}, as do reads past a list's length.
     *
     * @return whether any level can jump to {@code inactive}
     */
    public boolean walk(List<PathStep> steps, int from, int to, Label inactive, boolean ambient) {
        return walk(steps, from, to, inactive, ambient, Integer.MAX_VALUE);
    }

    /**
     * Steps {@code [from, to)} of a write's walk: as {@link #walk}, except that the steps from
     * the path's {@link #inPlaceTail} on activate an inactive cell in place (a clear mask bit is
     * set with an atomic OR, counted as the runtime's inline activation counts it) rather than
     * jump to {@code inactive}, since nothing after them can fail. Every earlier step (a pointer,
     * hash or list step, or a bitmasked step above one) still jumps, to the runtime's protocol.
     *
     * @return whether any level can jump to {@code inactive}
     */
    public boolean walkToWrite(List<PathStep> steps, int from, int to, Label inactive) {
        return walk(steps, from, to, inactive, false, inPlaceTail(steps));
    }

    /**
     * The step of a write's path at which an inactive word jumps to {@link #resumeFrom}'s label
     * instead of the walk's {@code inactive} label: the last pointer step, where only dense and
     * bitmasked steps follow (the runtime's {@code NodeTree.onePointer}); -1 when the path has
     * none. There the walk's segment and offset still hold that step's parent cell.
     */
    public static int resumeStep(List<PathStep> steps) {
        int step = inPlaceTail(steps) - 1;
        return step >= 0 && steps.get(step).node().kind() == NodeKind.POINTER ? step : -1;
    }

    /**
     * Makes later non-reading walks of this method jump to {@code label} where the word of
     * {@code steps}' {@link #resumeStep} is not active (nothing changes when it has none), so
     * that the write can activate that one pointer cell from its parent cell
     * ({@link #activatePointer}, then {@code GeneratedCalls.activateFrom}) instead of from the root.
     */
    public void resumeFrom(List<PathStep> steps, Label label) {
        this.resumeStep = resumeStep(steps);
        this.resume = label;
    }

    /** Makes later walks of this method jump to their own {@code inactive} label again, as before {@link #resumeFrom}. */
    private void stopResuming() {
        this.resumeStep = -1;
        this.resume = null;
        this.blockResumeStep = -1;
        this.blockResume = null;
    }

    /**
     * Step {@code step} (level {@code level} of the path) of a write, a pointer step whose parent
     * cell the walk stands in and whose word was found not active: {@code word =
     * GeneratedCalls.activatePointer(STRUCTURE, SNODE_<pointer>, segment, <the word's offset>)}
     * (the runtime publishes a new, empty cell there unless the word is no longer null,
     * allocating nothing on the Java heap, and returns the word published or found);
     * {@code if (word <= 0) goto inactive}; then the walk enters the word's cell, as
     * {@link #walk} does at an active word. {@code target} is the path's last SNode (for the cell
     * index, as {@link #walk} computes it). With {@code list} (the step of a list below this
     * pointer, {@code between} the steps between them, in order: dense steps, possibly none), the
     * call is {@code GeneratedCalls.activateListBlock(STRUCTURE, SNODE_<pointer>, SNODE_<list>,
     * segment, <the word's offset>, <the list header's offset in the block>)}, whose new block
     * holds the list's first chunk; the header's offset is the list's container offset plus, per
     * step between, its container offset and its cell index times its cell bytes (where the
     * walk will put it), and for a bitmasked step between (at most one, with dense steps above
     * and below it) its cells' offset as well. With such a step the call is
     * {@code GeneratedCalls.activateListCellBlock(..., <the header's offset>, maskWord, bit)}:
     * {@code maskWord} the offset in the block of the cell's mask word, {@code bit} its index,
     * set in the block before it is published.
     */
    private void activatePointer(int level, PathStep step, SNode target, Label inactive, PathStep list,
                                 List<PathStep> between) {
        mv.markLevel(level + 1);
        storeCellIndex(step, target);
        owner.getConstant(mv, "STRUCTURE");
        owner.getConstant(mv, "SNODE_" + step.node().snode().id());
        if (list != null) {
            owner.getConstant(mv, "SNODE_" + list.node().snode().id());
        }
        pointerWordAddress(step);
        int maskWord = -1;
        int bit = -1;
        if (list != null) {
            mv.pushLong(list.containerOffset());
            for (PathStep cell : between) {
                // index is free again: the word's offset is on the stack
                storeCellIndex(cell, target);
                if (cell.node().kind() == NodeKind.BITMASKED) {
                    // maskWord := <the offsets so far> + container offset + the index's mask word; bit := index
                    maskWord = mv.newLocal("maskWord", Type.LONG_TYPE);
                    bit = mv.newLocal("bit", Type.LONG_TYPE);
                    mv.visitInsn(DUP2);
                    mv.addLong(cell.containerOffset() - list.containerOffset());
                    mv.visitVarInsn(LLOAD, index);
                    CellArithmetic.maskWordOffsetOfCell(mv);
                    mv.visitInsn(LADD);
                    mv.visitVarInsn(LSTORE, maskWord);
                    mv.visitVarInsn(LLOAD, index);
                    mv.visitVarInsn(LSTORE, bit);
                    mv.addLong(cell.node().cellsOffset());
                }
                mv.visitVarInsn(LLOAD, index);
                mv.multiply(cell.node().cellBytes());
                mv.visitInsn(LADD);
                mv.addLong(cell.containerOffset());
            }
        }
        if (maskWord >= 0) {
            mv.visitVarInsn(LLOAD, maskWord);
            mv.visitVarInsn(LLOAD, bit);
            mv.invoke(RuntimeMethods.ACTIVATE_LIST_CELL_BLOCK);
        } else {
            mv.invoke(list != null ? RuntimeMethods.ACTIVATE_LIST_BLOCK : RuntimeMethods.ACTIVATE_POINTER);
        }
        mv.visitVarInsn(LSTORE, word);
        jumpUnlessActiveWord(inactive);
        child(step.node());
    }

    /**
     * A write's walk that publishes the cell of its path's last pointer step itself
     * ({@link #resumeStep}) where that word is inactive: the walk from the root ({@link
     * #walkToWrite}), then {@code atCell} (which ends with a return); at that step's inactive word,
     * {@link #activatePointer}, the steps below in place, and {@code atCell} again. With
     * {@code fromParentCell}, the walk already stands in that step's parent cell (segment and
     * offset set; the path must have the step) and only the second part is emitted. Every other
     * inactive level, and a word that is busy or retired, jumps to {@code inactive}.
     *
     * @return whether any level can jump to {@code inactive}
     */
    public boolean walkToWriteActivatingLastPointer(List<PathStep> steps, boolean fromParentCell, Label inactive,
                                                    Runnable atCell) {
        int step = resumeStep(steps);
        if (!fromParentCell) {
            Label resumed = new Label();
            resumeFrom(steps, resumed);
            boolean jumps = walkToWrite(steps, 0, steps.size(), inactive);
            atCell.run();
            stopResuming();
            if (!resumes()) {
                return jumps;
            }
            mv.visitLabel(resumed);
        }
        activatePointer(step, steps.get(step), steps.getLast().node().snode(), inactive, null, List.of());
        walkToWrite(steps, step + 1, steps.size(), inactive);
        atCell.run();
        return true;
    }

    /**
     * The walk of an append to the list of {@code path}'s last step: from the root to the list's
     * parent cell (reads' lookups: every inactive level jumps to {@code inactive}), then
     * {@code atList} (which ends with a return). Where the list's block is a pointer's cell
     * ({@link #listBlockStep}: the list's parent step is a pointer, or only dense steps lie
     * between the list and a pointer), that pointer's inactive word (a new block) does not jump:
     * {@code word = GeneratedCalls.activateListBlock(STRUCTURE, SNODE_<pointer>, SNODE_<list>,
     * segment, <the word's offset>, <the list header's offset in the block>)} (the runtime
     * publishes a new block whose list holds a first chunk, unless the word is no longer null,
     * allocating nothing on the Java heap, and returns the word published or found);
     * {@code if (word <= 0) goto inactive}; the walk enters the word's cell and the dense steps
     * below it, and goes to {@code atList}, emitted once. Where the list lies in a bitmasked cell
     * instead ({@link #listCellStep}), its clear bit goes to {@link #activateListCell}, and, when
     * a pointer lies above that step with only dense steps between ({@link #listCellBlockStep}),
     * that pointer's inactive word to {@code GeneratedCalls.activateListCellBlock}, whose new
     * block holds the cell with its bit set and its list's first chunk; the walk then goes on
     * from the block as from an existing one (a winner's block whose cell is still inactive
     * takes {@link #activateListCell}).
     */
    public void walkToAppend(List<PathStep> path, Label inactive, Runnable atList) {
        int list = path.size() - 1;
        int block = listBlockStep(path);
        int cell = listCellStep(path);
        int cellBlock = listCellBlockStep(path);
        blockResumed = false;
        Label resumed = new Label();
        Label newBlock = new Label();
        if (block >= 0) {
            resumeFrom(path.subList(0, list), resumed); // only dense steps follow the block's pointer
        } else if (cell >= 0) {
            this.resumeStep = cell;
            this.resume = resumed;
            if (cellBlock >= 0) {
                this.blockResumeStep = cellBlock;
                this.blockResume = newBlock;
            }
        }
        walk(path, 0, list, inactive, false);
        Label inList = new Label();
        mv.visitLabel(inList);
        atList.run();
        if (blockResumed) {
            mv.visitLabel(newBlock);
            this.blockResumeStep = -1;
            this.blockResume = null;
            activatePointer(cellBlock, path.get(cellBlock), path.getLast().node().snode(), inactive, path.get(list),
                    path.subList(cellBlock + 1, list));
            walk(path, cellBlock + 1, list, inactive, false); // a clear bit (a winner's block) still resumes
            mv.visitJumpInsn(GOTO, inList);
        }
        stopResuming();
        if (!resumes()) {
            return;
        }
        mv.visitLabel(resumed);
        if (block >= 0) {
            activatePointer(block, path.get(block), path.getLast().node().snode(), inactive, path.get(list),
                    path.subList(block + 1, list));
            walk(path, block + 1, list, inactive, false);
        } else {
            activateListCell(path, cell, inactive);
        }
        mv.visitJumpInsn(GOTO, inList);
    }

    /**
     * The pointer step above {@code path}'s {@link #listCellStep} with only dense steps between
     * them, whose new cell holds the bitmasked cell of the list; -1 when there is none.
     */
    public static int listCellBlockStep(List<PathStep> path) {
        int step = listCellStep(path) - 1;
        if (step < 0) {
            return -1;
        }
        while (step >= 0 && path.get(step).node().kind() == NodeKind.DENSE) {
            step--;
        }
        return step >= 0 && path.get(step).node().kind() == NodeKind.POINTER ? step : -1;
    }

    /**
     * The step of the bitmasked node whose cell holds the list of {@code path}'s last step: the
     * list's parent step when it is bitmasked, or the bitmasked step above a run of dense steps
     * that ends at the list; -1 when there is none.
     */
    public static int listCellStep(List<PathStep> path) {
        return listHolder(path, NodeKind.BITMASKED);
    }

    /** The first step above {@code path}'s list that is not dense, when it is of {@code kind}; else -1. */
    private static int listHolder(List<PathStep> path, NodeKind kind) {
        int step = path.size() - 2;
        while (step >= 0 && path.get(step).node().kind() == NodeKind.DENSE) {
            step--;
        }
        return step >= 0 && path.get(step).node().kind() == kind ? step : -1;
    }

    /**
     * The append's walk at bitmasked step {@code cell} of {@code path} (the container's offset and
     * the cell's index in the locals), whose bit was found clear: {@code maskWord} := the mask
     * word's offset, {@code bit} := the cell's index; the walk enters the cell and the dense
     * steps below it to the list's parent cell; then {@code if
     * (!GeneratedCalls.activateListCell(STRUCTURE, SNODE_<list>, segment, maskWord, bit, offset +
     * <the list's container offset>)) goto inactive} (the runtime publishes the list's first
     * chunk where it is missing, then sets the bit, allocating nothing on the Java heap; false:
     * the list is retired, nothing changed).
     */
    private void activateListCell(List<PathStep> path, int cell, Label inactive) {
        PathStep step = path.get(cell);
        PathStep list = path.getLast();
        int maskWord = mv.newLocal("maskWord", Type.LONG_TYPE);
        int bit = mv.newLocal("bit", Type.LONG_TYPE);
        maskWordAddress(step);
        mv.visitVarInsn(LSTORE, maskWord);
        mv.visitInsn(POP); // the segment maskWordAddress pushed first: the walk's own
        mv.visitVarInsn(LLOAD, index);
        mv.visitVarInsn(LSTORE, bit);
        NodeEmitUnit.of(step.node().kind()).emitEnter(this, step, inactive);
        walk(path, cell + 1, path.size() - 1, inactive, false);
        owner.getConstant(mv, "STRUCTURE");
        owner.getConstant(mv, "SNODE_" + list.node().snode().id());
        mv.visitVarInsn(ALOAD, segment);
        mv.visitVarInsn(LLOAD, maskWord);
        mv.visitVarInsn(LLOAD, bit);
        mv.visitVarInsn(LLOAD, offset);
        mv.addLong(list.containerOffset());
        mv.invoke(RuntimeMethods.ACTIVATE_LIST_CELL);
        mv.visitJumpInsn(IFEQ, inactive);
    }

    /**
     * The step of the pointer whose cell holds the list of {@code path}'s last step: the list's
     * parent step when it is a pointer, or the pointer above a run of dense steps that ends at
     * the list (a new cell of it holds every list below it, their headers at fixed offsets);
     * -1 when there is none (a bitmasked, hash or dynamic step, or the root, comes first).
     */
    public static int listBlockStep(List<PathStep> path) {
        return listHolder(path, NodeKind.POINTER);
    }

    /** Whether a walk of this method has jumped, or can jump, to {@link #resumeFrom}'s label. */
    public boolean resumes() {
        return resumed;
    }

    /**
     * The first step from which every step of {@code steps} activates in place (dense and
     * bitmasked only), as the runtime's {@code NodeTree.inlineTail} computes it; the path's length
     * when the last step does not.
     */
    public static int inPlaceTail(List<PathStep> steps) {
        int tail = steps.size();
        while (tail > 0 && NodeEmitUnit.of(steps.get(tail - 1).node().kind()).activatesInPlace()) {
            tail--;
        }
        return tail;
    }

    private boolean walk(List<PathStep> steps, int from, int to, Label inactive, boolean ambient, int inPlaceFrom) {
        if (from == 0) {
            owner.getConstant(mv, "ROOT");
            mv.visitVarInsn(ASTORE, segment);
            mv.visitInsn(LCONST_0);
            mv.visitVarInsn(LSTORE, offset);
        }
        SNode target = steps.isEmpty() ? null : steps.getLast().node().snode();
        boolean jumps = false;
        for (int level = from; level < to; level++) {
            PathStep step = steps.get(level);
            mv.markLevel(level + 1);
            storeCellIndex(step, target);
            NodeEmitUnit unit = NodeEmitUnit.of(step.node().kind());
            if (level >= inPlaceFrom) {
                unit.activateInPlace(this, step);
            } else if (!ambient && level == resumeStep && resume != null) {
                resumed |= unit.lookup(this, step, resume, false);
            } else if (!ambient && level == blockResumeStep && blockResume != null) {
                blockResumed |= unit.lookup(this, step, blockResume, false);
            } else {
                jumps |= unit.lookup(this, step, inactive, ambient);
            }
        }
        return jumps;
    }

    /**
     * index := the step's cell index: per axis, the coordinate's local index times the axis
     * stride. A remainder is left out where the coordinate cannot exceed it (the level is the
     * outermost on its axis), and a size of 1 contributes nothing.
     */
    public void storeCellIndex(PathStep step, SNode target) {
        boolean first = true;
        for (AxisSplit split : step.splits()) {
            if (split.size() == 1) {
                continue;
            }
            mv.visitVarInsn(ILOAD, mv.parameter(split.coordinate()));
            boolean outermost = target != null && split.divisor() * split.size() == target.extent(split.axis());
            CellArithmetic.intSplit(mv, split.divisor(), split.size(), outermost);
            mv.visitInsn(I2L);
            mv.multiply(split.stride());
            if (!first) {
                mv.visitInsn(LADD);
            }
            first = false;
        }
        if (first) {
            mv.visitInsn(LCONST_0);
        }
        mv.visitVarInsn(LSTORE, index);
    }

    /**
     * The append of generated code at the list of {@code step} (the walk stands in the list's
     * parent cell): index := the element taken without the runtime, segment and offset := its
     * cell; jumps to {@code slow} when the runtime's append must run (nothing changed), to
     * {@code emptied} when the element's chunk went away after its index was taken.
     */
    public void tryAppend(PathStep step, Label slow, Label emptied) {
        DynamicEmitUnit.INSTANCE.emitTryAppend(this, step, slow, emptied);
    }

    /**
     * {@link #tryAppend} without entering the element: index := the element taken; jumps to
     * {@code slow} when the runtime's append must run (nothing changed).
     */
    public void takeIndex(PathStep step, Label slow) {
        DynamicEmitUnit.INSTANCE.emitTakeIndex(this, step, slow);
    }

    /** offset := offset + base + index * cellBytes. */
    void advance(long base, long cellBytes) {
        mv.visitVarInsn(LLOAD, offset);
        mv.addLong(base);
        mv.visitVarInsn(LLOAD, index);
        mv.multiply(cellBytes);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, offset);
    }

    /**
     * segment, offset := the child cell of the active word in {@code word}, a cell of
     * {@code node}'s cell manager: in the manager's region ({@code REGION_<id>}, the cell at
     * {@code cellIndex(word) * stride}) when it has one, else through the manager's chunk lookup.
     */
    void child(SNodePlan node) {
        String region = region(node);
        if (region != null) {
            owner.getConstant(mv, region);
            mv.visitVarInsn(ASTORE, segment);
            regionOffset(node, RuntimeMethods.REGION_OFFSET);
            return;
        }
        enterWord(PointerEmitUnit.cells(node), null, RuntimeMethods.CHILD, RuntimeMethods.CHILD_OFFSET);
    }

    /**
     * segment, offset := the child cell of the word in {@code word} when it is active, else
     * {@code node}'s ambient cell (a pointer or hash node's read of an inactive cell). With a
     * region the ambient cell is the region's zero cell ({@code ZERO_CELL_<id>}), so only the
     * offset is chosen and the segment stays the region constant, whose checks the JIT folds;
     * else the chunk lookup chooses between the child's chunk and {@code AMBIENT_<id>}.
     */
    void childOrAmbient(SNodePlan node) {
        String region = region(node);
        if (region != null) {
            owner.getConstant(mv, region);
            mv.visitVarInsn(ASTORE, segment);
            mv.visitVarInsn(LLOAD, word);
            mv.pushLong(managedCellBytes(node));
            owner.getConstant(mv, "ZERO_CELL_" + node.id());
            mv.invoke(RuntimeMethods.REGION_OR_ZERO_CELL);
            mv.visitVarInsn(LSTORE, offset);
            return;
        }
        enterWord(PointerEmitUnit.cells(node), "AMBIENT_" + node.id(), RuntimeMethods.CHILD_OR_AMBIENT,
                RuntimeMethods.CHILD_OR_AMBIENT_OFFSET);
    }

    /**
     * Bytes of one cell of {@code node}'s cell manager, which is also the stride of its region:
     * the node's cell (pointer, hash) or one list chunk (dynamic).
     */
    public static long managedCellBytes(SNodePlan node) {
        return node.chunkBytes() > 0 ? node.chunkBytes() : node.cellBytes();
    }

    /** The constant naming {@code node}'s cell region, or null when its cells live in chunks. */
    private String region(SNodePlan node) {
        String name = "REGION_" + node.id();
        return owner.hasConstant(name) ? name : null;
    }

    /** offset := toOffset(word, the cell stride), the stride being the plan's bytes per cell of the manager. */
    private void regionOffset(SNodePlan node, RuntimeMethod toOffset) {
        mv.visitVarInsn(LLOAD, word);
        mv.pushLong(managedCellBytes(node));
        mv.invoke(toOffset);
        mv.visitVarInsn(LSTORE, offset);
    }

    /** segment := toSegment(cells, word[, ambient]); offset := toOffset(cells, word). */
    private void enterWord(String cells, String ambient, RuntimeMethod toSegment, RuntimeMethod toOffset) {
        owner.getConstant(mv, cells);
        mv.visitVarInsn(LLOAD, word);
        if (ambient != null) {
            owner.getConstant(mv, ambient);
        }
        mv.invoke(toSegment);
        mv.visitVarInsn(ASTORE, segment);
        owner.getConstant(mv, cells);
        mv.visitVarInsn(LLOAD, word);
        mv.invoke(toOffset);
        mv.visitVarInsn(LSTORE, offset);
    }

    /** {@code if (word <= 0) goto inactive}: the word in {@code word} is no active pointer word. */
    void jumpUnlessActiveWord(Label inactive) {
        mv.visitVarInsn(LLOAD, word);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLE, inactive);
    }

    /** Pushes segment, then offset + container + the byte offset of the mask word of the index. */
    void maskWordAddress(PathStep step) {
        mv.visitVarInsn(ALOAD, segment);
        containerOffset(step);
        mv.visitVarInsn(LLOAD, index);
        CellArithmetic.maskWordOffsetOfCell(mv);
        mv.visitInsn(LADD);
    }

    /** Pushes the pointer word of the index (acquire load). */
    void pointerWord(PathStep step) {
        pointerWordAddress(step);
        mv.invoke(RuntimeMethods.POINTER_WORD);
    }

    /** Pushes segment, then offset + the step's container offset + the byte offset of the index's pointer word. */
    private void pointerWordAddress(PathStep step) {
        mv.visitVarInsn(ALOAD, segment);
        containerOffset(step);
        mv.visitVarInsn(LLOAD, index);
        mv.pushInt(Long.numberOfTrailingZeros(PointerWord.BYTES));
        mv.visitInsn(LSHL);
        mv.visitInsn(LADD);
    }

    /** Pushes the length of the list whose header is this step's container. */
    public void listLength(PathStep step) {
        mv.visitVarInsn(ALOAD, segment);
        containerOffset(step);
        mv.invoke(RuntimeMethods.LIST_LENGTH);
    }

    /** Pushes offset + the step's container offset. */
    public void containerOffset(PathStep step) {
        mv.visitVarInsn(LLOAD, offset);
        mv.addLong(step.containerOffset());
    }
}
