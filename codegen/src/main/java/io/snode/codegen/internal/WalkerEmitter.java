package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IALOAD;
import static org.objectweb.asm.Opcodes.IADD;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.L2I;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LALOAD;
import static org.objectweb.asm.Opcodes.LAND;
import static org.objectweb.asm.Opcodes.LASTORE;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LMUL;
import static org.objectweb.asm.Opcodes.LOR;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LSUB;
import static org.objectweb.asm.Opcodes.LUSHR;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.internal.emit.CellArithmetic;
import io.snode.codegen.internal.emit.ChildLoop;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.NodeEmitUnit;
import io.snode.codegen.internal.emit.RuntimeMethods;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * Emits the first phase of a snapshot ({@link ActiveBlocks}) for a target whose parent is the
 * deepest pointer node above it (leaf blocks under a pointer, as in Taichi's and OpenVDB's
 * layouts): a walk from the root that records every active cell of the parent by cell index.
 * The generic walk does the same with the plan in arrays; here every level is its own loop with
 * the plan's numbers as literals and the coordinates in locals.
 *
 * <pre>{@code
 * public static int walk(int[] byCell, long[] present, int capacity)    // visit0(ROOT, 0, ..., 0); fence
 * public static int walkBelow(MemorySegment segment, long cell, int[] at, int[] byCell, long[] present,
 *                             int capacity)                             // visit1(segment, cell, ..., at[0], ...); fence
 * static int visitL(MemorySegment segment, long cell, int[] byCell, long[] present, int capacity,
 *                   int c0, ...)                                        // a cell of chain[L]
 * }</pre>
 *
 * {@code visitL} loops over the container of chain[L + 1] in the cell, the loop of that node's
 * kind ({@link NodeEmitUnit#emitChildLoop}): dense cells all, bitmasked cells by their mask
 * words, pointer cells whose word is active (read plainly; an acquire fence before a child
 * container is read, and one at the end of the walk for the recorded cells). At the parent level
 * it records cell {@code c} (if below {@code capacity}): coordinates into
 * {@code byCell[c * W ...]} ({@code W} coordinate slots: the axes the chain uses, in order of
 * first use) and bit {@code c} of {@code present}. Returns the number of cells recorded.
 * {@code walkBelow}, emitted when a level lies between the root's children and the parent
 * ({@link #splitsBelowTop}), does the same below one active cell of the root's child container
 * (its memory and its coordinates {@code at}, by slot): the parallel walk hands each task some of
 * those cells, each with a bitmap of its own. The
 * root segment and the cell managers of the pointer levels (and their regions, where they have
 * one: a child is then at {@code cell * cellBytes} of {@code REGION_<id>}) are static finals
 * loaded from the class data.
 */
public final class WalkerEmitter {
    private static final Type SEGMENT = Type.getType(MemorySegment.class);

    private final String className;
    private final SNode[] chain;
    private final SNodePlan[] plans;
    private final int keyLevel;
    private final int width;
    private final int[] slotOf = new int[Axis.MAX_AXES];
    private List<Object> classData = new ArrayList<>();
    private List<String> constantNotes = List.of();

    /**
     * @param target a node whose parent is a pointer node below the root (see {@link #applies})
     */
    public WalkerEmitter(Plan plan, String className, SNode target) {
        if (!applies(target)) {
            throw new IllegalArgumentException("snode=" + target.path() + " does not sit under a pointer parent");
        }
        this.className = className;
        this.chain = target.ancestry().toArray(new SNode[0]);
        this.plans = new SNodePlan[chain.length];
        for (int level = 0; level < chain.length; level++) {
            plans[level] = plan.node(chain[level]);
        }
        this.keyLevel = chain.length - 2;
        this.width = ActiveBlocks.numberSlots(chain, slotOf);
    }

    /**
     * Whether the target's parent is a pointer node (not the root) and no node on the way is a
     * hash node (the node units' snapshot walk iterates their tables): then this walker applies.
     */
    public static boolean applies(SNode target) {
        SNode parent = target.parent();
        if (parent == null || parent.kind() != NodeKind.POINTER) {
            return false;
        }
        for (SNode node : target.ancestry()) {
            if (node.kind() == NodeKind.HASH) {
                return false;
            }
            long cells = 1;
            for (int size : node.sizes()) {
                cells *= size;
            }
            if (cells > Integer.MAX_VALUE / 64) {
                return false; // indices are ints in the generated loops
            }
        }
        return true;
    }

    /** Coordinate slots per recorded cell. */
    public int width() {
        return width;
    }

    /** The root segment and the pointer levels' cell managers, in the order {@code <clinit>} loads them. */
    public List<Object> classData() {
        return classData;
    }

    /** What the walk is generated from: its class's source attribute. */
    public String sourceText() {
        return "active-block walk of " + chain[chain.length - 1].path();
    }

    /** What each constant of the emitted class is ({@link ClassEmitter#constantNotes}). */
    public List<String> constantNotes() {
        return constantNotes;
    }

    /**
     * @param root  the structure's root segment
     * @param cells the cell manager of each chain level (entries of non-pointer levels unused)
     */
    public byte[] emit(Object root, Object[] cells) {
        ClassEmitter owner = new ClassEmitter(className, sourceText());
        owner.constant("ROOT", MemorySegment.class, root, RuntimeConstants.root(plans[0]));
        for (int level = 1; level <= keyLevel; level++) {
            if (chain[level].kind() == NodeKind.POINTER) {
                owner.constant("CELLS_" + chain[level].id(), CheckedCells.class, cells[level],
                        RuntimeConstants.cells(plans[level]));
                if (cells[level] instanceof CheckedCells managed && managed.region() != null) {
                    // The level's cells lie in one region: cell c at c * the plan's cell bytes.
                    owner.constant("REGION_" + chain[level].id(), MemorySegment.class, managed.region(),
                            RuntimeConstants.region(plans[level], managed));
                }
            }
        }
        classData = owner.classData();
        constantNotes = owner.constantNotes();
        emitWalk(owner);
        if (splitsBelowTop()) {
            emitWalkBelow(owner);
        }
        for (int level = 0; level < keyLevel; level++) {
            new Visit(owner, level).emit();
        }
        return owner.finish();
    }

    private String visitDescriptor() {
        return "(" + SEGMENT.getDescriptor() + "J[I[JI" + "I".repeat(width) + ")I";
    }

    /** walk(byCell, present, capacity) = visit0(ROOT, 0, byCell, present, capacity, 0, ..., 0) */
    private void emitWalk(ClassEmitter owner) {
        MethodEmitter mv = owner.method("walk", "([I[JI)I", true, List.of("byCell", "present", "capacity"));
        owner.getConstant(mv, "ROOT");
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(ALOAD, mv.parameter(0));
        mv.visitVarInsn(ALOAD, mv.parameter(1));
        mv.visitVarInsn(ILOAD, mv.parameter(2));
        for (int slot = 0; slot < width; slot++) {
            mv.visitInsn(ICONST_0);
        }
        mv.visitMethodInsn(INVOKESTATIC, className, "visit0", visitDescriptor(), false);
        mv.invoke(RuntimeMethods.ACQUIRE_FENCE);
        mv.visitInsn(IRETURN);
        mv.end();
    }

    /**
     * Whether {@code walkBelow} is emitted: the parent lies two or more levels below the root, so
     * that the cells of the root's child container each lead to a walk of their own.
     */
    public boolean splitsBelowTop() {
        return keyLevel >= 2;
    }

    /** walkBelow(segment, cell, at, byCell, present, capacity) = visit1(segment, cell, byCell, present, capacity, at[0], ...) */
    private void emitWalkBelow(ClassEmitter owner) {
        MethodEmitter mv = owner.method("walkBelow", "(" + SEGMENT.getDescriptor() + "J[I[I[JI)I", true,
                List.of("segment", "cell", "at", "byCell", "present", "capacity"));
        mv.visitVarInsn(ALOAD, mv.parameter(0));
        mv.visitVarInsn(LLOAD, mv.parameter(1));
        mv.visitVarInsn(ALOAD, mv.parameter(3));
        mv.visitVarInsn(ALOAD, mv.parameter(4));
        mv.visitVarInsn(ILOAD, mv.parameter(5));
        for (int slot = 0; slot < width; slot++) {
            mv.visitVarInsn(ALOAD, mv.parameter(2));
            mv.pushInt(slot);
            mv.visitInsn(IALOAD);
        }
        mv.visitMethodInsn(INVOKESTATIC, className, "visit1", visitDescriptor(), false);
        mv.invoke(RuntimeMethods.ACQUIRE_FENCE);
        mv.visitInsn(IRETURN);
        mv.end();
    }

    /** visitL: the cells of chain[L + 1] in the cell of chain[L] at {@code cell}, with its named locals. */
    private final class Visit implements ChildLoop {
        private final ClassEmitter owner;
        private final int level;
        private final int childLevel;
        private final MethodEmitter mv;
        private final int count;
        private final int container;
        private final int index;
        private final int wordIndex;
        private final int pointer;
        private final int bits;
        private final int child;
        private final int childCoordinates;
        private final int group;

        Visit(ClassEmitter owner, int level) {
            this.owner = owner;
            this.level = level;
            this.childLevel = level + 1;
            List<String> names = new ArrayList<>(List.of("segment", "cell", "byCell", "present", "capacity"));
            for (int slot = 0; slot < width; slot++) {
                names.add("c" + slot);
            }
            mv = owner.method(ACC_STATIC, "visit" + level, visitDescriptor(), names);
            mv.markLevel(childLevel);
            count = mv.newLocal("count", Type.INT_TYPE);
            container = mv.newLocal("container", Type.LONG_TYPE);
            index = mv.newLocal("index", Type.INT_TYPE);
            wordIndex = mv.newLocal("maskWord", Type.INT_TYPE);
            pointer = mv.newLocal("word", Type.LONG_TYPE);
            bits = mv.newLocal("bits", Type.LONG_TYPE);
            child = mv.newLocal("child", Type.LONG_TYPE);
            childCoordinates = mv.newLocal("child_c0", Type.INT_TYPE);
            for (int slot = 1; slot < width; slot++) {
                mv.newLocal("child_c" + slot, Type.INT_TYPE);
            }
            group = mv.newLocal("group", Type.INT_TYPE);
        }

        /** count = 0; container = cell + offset of chain[L + 1]'s container; <the loop>; return count */
        void emit() {
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, count);
            mv.visitVarInsn(LLOAD, mv.parameter(1));
            mv.pushLong(plans[level].childContainerOffset(chain[level].children().indexOf(chain[childLevel])));
            mv.visitInsn(LADD);
            mv.visitVarInsn(LSTORE, container);
            Label done = new Label();
            NodeEmitUnit.of(plans[childLevel].kind()).emitChildLoop(this, plans[childLevel], done);
            mv.visitLabel(done);
            mv.visitVarInsn(ILOAD, count);
            mv.visitInsn(IRETURN);
            mv.end();
        }

        @Override
        public MethodEmitter mv() {
            return mv;
        }

        @Override
        public int index() {
            return index;
        }

        @Override
        public int wordIndex() {
            return wordIndex;
        }

        @Override
        public int group() {
            return group;
        }

        @Override
        public int pointer() {
            return pointer;
        }

        @Override
        public int child() {
            return child;
        }

        @Override
        public void loopHead(int local, int limit, Label test, Label done) {
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, local);
            mv.visitLabel(test);
            mv.visitVarInsn(ILOAD, local);
            mv.pushInt(limit);
            mv.visitJumpInsn(IF_ICMPGE, done);
        }

        @Override
        public void bitLoop(int outer, int limit, int step, Runnable words, Runnable base, Consumer<Label> body,
                            Label done) {
            Label outerTest = new Label();
            Label bitsTest = new Label();
            Label nextOuter = new Label();
            loopHead(outer, limit, outerTest, done);
            words.run();
            mv.visitVarInsn(LSTORE, bits);
            mv.visitLabel(bitsTest);
            CellArithmetic.ifNoBits(mv, bits, nextOuter);
            // index = base + numberOfTrailingZeros(bits); bits &= bits - 1
            base.run();
            CellArithmetic.lowestBit(mv, bits);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, index);
            CellArithmetic.clearLowestBit(mv, bits);
            body.accept(bitsTest);
            mv.visitJumpInsn(GOTO, bitsTest);
            mv.visitLabel(nextOuter);
            mv.visitIincInsn(outer, step);
            mv.visitJumpInsn(GOTO, outerTest);
        }

        @Override
        public void wordAddress(int local, boolean layout) {
            mv.visitVarInsn(ALOAD, mv.parameter(0));
            if (layout) {
                ValueType.I64.pushLayout(mv);
            }
            mv.visitVarInsn(LLOAD, container);
            mv.visitVarInsn(ILOAD, local);
            CellArithmetic.wordOffset(mv);
            mv.visitInsn(LADD);
        }

        @Override
        public void visitCell(long cellsOffset, long cellBytes) {
            childCoordinates();
            mv.visitVarInsn(ALOAD, mv.parameter(0));
            mv.visitVarInsn(LLOAD, container);
            mv.addLong(cellsOffset);
            mv.visitVarInsn(ILOAD, index);
            mv.visitInsn(I2L);
            mv.pushLong(cellBytes);
            mv.visitInsn(LMUL);
            mv.visitInsn(LADD);
            descend();
        }

        @Override
        public boolean atRecordLevel() {
            return childLevel == keyLevel;
        }

        @Override
        public void visitChild() {
            String region = "REGION_" + chain[childLevel].id();
            if (owner.hasConstant(region)) { // segment := REGION; offset := regionOffset(child, cell bytes)
                owner.getConstant(mv, region);
                mv.visitVarInsn(LLOAD, child);
                mv.pushLong(plans[childLevel].cellBytes());
                mv.invoke(RuntimeMethods.CELL_REGION_OFFSET);
                descend();
                return;
            }
            String cells = "CELLS_" + chain[childLevel].id();
            owner.getConstant(mv, cells);
            mv.visitVarInsn(LLOAD, child);
            mv.invoke(RuntimeMethods.CELL_SEGMENT);
            owner.getConstant(mv, cells);
            mv.visitVarInsn(LLOAD, child);
            mv.invoke(RuntimeMethods.CELL_OFFSET);
            descend();
        }

        /**
         * if (child < capacity) { byCell[child * W + s] = child coordinate s (every s);
         * present[child >>> 6] |= 1L << child; count++; }
         */
        @Override
        public void record(Label next) {
            mv.visitVarInsn(LLOAD, child);
            mv.visitVarInsn(ILOAD, mv.parameter(4));
            mv.visitInsn(I2L);
            mv.visitInsn(LCMP);
            mv.visitJumpInsn(IFGE, next);
            for (int slot = 0; slot < width; slot++) {
                mv.visitVarInsn(ALOAD, mv.parameter(2));
                mv.visitVarInsn(LLOAD, child);
                mv.visitInsn(L2I);
                mv.pushInt(width);
                mv.visitInsn(IMUL);
                if (slot > 0) {
                    mv.pushInt(slot);
                    mv.visitInsn(IADD);
                }
                mv.visitVarInsn(ILOAD, childCoordinates + slot);
                mv.visitInsn(IASTORE);
            }
            // present[(int) (child >>> 6)] |= 1L << child
            mv.visitVarInsn(ALOAD, mv.parameter(3));
            mv.visitVarInsn(LLOAD, child);
            mv.pushInt(CellArithmetic.CELLS_PER_WORD_SHIFT);
            mv.visitInsn(LUSHR);
            mv.visitInsn(L2I);
            mv.visitInsn(DUP2);
            mv.visitInsn(LALOAD);
            mv.visitInsn(LCONST_1);
            mv.visitVarInsn(LLOAD, child);
            mv.visitInsn(L2I);
            mv.visitInsn(LSHL);
            mv.visitInsn(LOR);
            mv.visitInsn(LASTORE);
            mv.visitIincInsn(count, 1);
        }

        /** Stack: segment, cell offset -> count += visit(L + 1)(segment, cell, byCell, present, capacity, child coordinates) */
        private void descend() {
            for (int parameter = 2; parameter <= 4; parameter++) {
                mv.visitVarInsn(parameter == 4 ? ILOAD : ALOAD, mv.parameter(parameter));
            }
            for (int slot = 0; slot < width; slot++) {
                mv.visitVarInsn(ILOAD, childCoordinates + slot);
            }
            mv.visitMethodInsn(INVOKESTATIC, className, "visit" + childLevel, visitDescriptor(), false);
            mv.visitVarInsn(ILOAD, count);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, count);
        }

        /**
         * Child coordinate slots from the index: {@code c * size + local} on the axes chain[L + 1]
         * consumes ({@code local} its axis split of the index), {@code c} on the others.
         */
        @Override
        public void childCoordinates() {
            SNode node = chain[childLevel];
            int[] positionOfSlot = new int[width];
            Arrays.fill(positionOfSlot, -1);
            List<Axis> axes = node.axes().list();
            for (int n = 0; n < axes.size(); n++) {
                positionOfSlot[slotOf[axes.get(n).ordinal()]] = n;
            }
            for (int slot = 0; slot < width; slot++) {
                mv.visitVarInsn(ILOAD, mv.parameter(5 + slot));
                int n = positionOfSlot[slot];
                if (n >= 0) {
                    int size = node.sizes()[n];
                    mv.pushInt(size);
                    mv.visitInsn(IMUL);
                    mv.visitVarInsn(ILOAD, index);
                    CellArithmetic.intSplit(mv, plans[childLevel].stride(n), size, false);
                    mv.visitInsn(IADD);
                }
                mv.visitVarInsn(ISTORE, childCoordinates + slot);
            }
        }
    }
}
