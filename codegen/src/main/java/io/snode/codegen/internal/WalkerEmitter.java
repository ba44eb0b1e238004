package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IADD;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.IUSHR;
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
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.Plan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Emits the first phase of a snapshot ({@link ActiveBlocks}) for a target whose parent is the
 * deepest pointer node above it (leaf blocks under a pointer, as in Taichi's and OpenVDB's
 * layouts): a walk from the root that records every active cell of the parent by cell index.
 * The generic walk does the same with the plan in arrays; here every level is its own loop with
 * the plan's numbers as literals and the coordinates in locals.
 *
 * <pre>{@code
 * public static int walk(int[] byCell, long[] present, int capacity)    // visit0(ROOT, 0, ..., 0); fence
 * static int visitL(MemorySegment segment, long cell, int[] byCell, long[] present, int capacity,
 *                   int c0, ...)                                        // a cell of chain[L]
 * }</pre>
 *
 * {@code visitL} loops over the container of chain[L + 1] in the cell: dense cells all, bitmasked
 * cells by their mask words, pointer cells whose word is active (read plainly; an acquire fence
 * before a child container is read, and one at the end of the walk for the recorded cells). At the parent level it records cell {@code c} (if below
 * {@code capacity}): coordinates into {@code byCell[c * W ...]} ({@code W} coordinate slots: the
 * axes the chain uses, in order of first use) and bit {@code c} of {@code present}. Returns the
 * number of cells recorded. The root segment and the cell managers of the pointer levels are
 * static finals loaded from the class data.
 */
public final class WalkerEmitter {
    static final String SEGMENT = "java/lang/foreign/MemorySegment";
    static final String D_SEGMENT = "L" + SEGMENT + ";";
    static final String CELLS = "io/snode/runtime/internal/CellManager";
    static final String D_CELLS = "L" + CELLS + ";";

    private final Plan plan;
    private final String className;
    private final SNode[] chain;
    private final SNodePlan[] plans;
    private final int keyLevel;
    private final int width;
    /**
     * Locals of visitL after its parameters (segment, cell, byCell, present, capacity and the
     * {@link #width} coordinates): the record count, the container offset (long), the cell index
     * (int), the pointer word (long) or mask word index (int), the mask bits (long), the child
     * cell (long), then the child's coordinates.
     */
    private final int countLocal;
    private final int containerLocal;
    private final int indexLocal;
    private final int wordLocal;
    private final int bitsLocal;
    private final int childLocal;
    private final int childCoordsLocal;
    private final int[] slotOf = new int[Axis.MAX_AXES];
    private final List<Object> classData = new ArrayList<>();
    private final List<String[]> staticFields = new ArrayList<>();

    /**
     * @param target a node whose parent is a pointer node below the root (see {@link #applies})
     */
    public WalkerEmitter(Plan plan, String className, SNode target) {
        if (!applies(target)) {
            throw new IllegalArgumentException("snode=" + target.path() + " does not sit under a pointer parent");
        }
        this.plan = plan;
        this.className = className;
        this.chain = target.ancestry().toArray(new SNode[0]);
        this.plans = new SNodePlan[chain.length];
        for (int level = 0; level < chain.length; level++) {
            plans[level] = plan.node(chain[level]);
        }
        this.keyLevel = chain.length - 2;
        int slots = ActiveBlocks.numberSlots(chain, slotOf);
        this.width = slots;
        this.countLocal = COORDS + slots;
        this.containerLocal = countLocal + 1;
        this.indexLocal = countLocal + 3;
        this.wordLocal = countLocal + 5;
        this.bitsLocal = countLocal + 7;
        this.childLocal = countLocal + 9;
        this.childCoordsLocal = countLocal + 11;
    }

    /** Whether the target's parent is a pointer node (not the root): then this walker applies. */
    public static boolean applies(SNode target) {
        SNode parent = target.parent();
        if (parent == null || parent.kind() != NodeKind.POINTER) {
            return false;
        }
        for (SNode node : target.ancestry()) {
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

    /**
     * @param root  the structure's root segment
     * @param cells the cell manager of each chain level (entries of non-pointer levels unused)
     */
    public byte[] emit(Object root, Object[] cells) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String first, String second) {
                return "java/lang/Object";
            }
        };
        writer.visit(Opcodes.V25, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object", null);
        writer.visitSource("active-block walk of " + chain[chain.length - 1].path(), null);
        classData.clear();
        staticFields.clear();
        constant(writer, "ROOT", D_SEGMENT, root);
        for (int level = 1; level <= keyLevel; level++) {
            if (chain[level].kind() == NodeKind.POINTER) {
                constant(writer, "CELLS_" + chain[level].id(), D_CELLS, cells[level]);
            }
        }
        LayoutEmitter.emitClassDataInitializer(writer, className, staticFields);
        emitWalk(writer);
        for (int level = 0; level < keyLevel; level++) {
            emitVisit(writer, level);
        }
        writer.visitEnd();
        return writer.toByteArray();
    }

    private void constant(ClassWriter writer, String name, String descriptor, Object value) {
        writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, name, descriptor, null, null).visitEnd();
        staticFields.add(new String[] {name, descriptor});
        classData.add(value);
    }

    private String visitDescriptor() {
        return "(" + D_SEGMENT + "J[I[JI" + "I".repeat(width) + ")I";
    }

    /** walk(byCell, present, capacity) = visit0(ROOT, 0, byCell, present, capacity, 0, ..., 0) */
    private void emitWalk(ClassWriter writer) {
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC | ACC_STATIC, "walk", "([I[JI)I", null, null);
        for (String name : new String[] {"byCell", "present", "capacity"}) {
            mv.visitParameter(name, 0);
        }
        mv.visitCode();
        mv.visitFieldInsn(GETSTATIC, className, "ROOT", D_SEGMENT);
        mv.visitInsn(LCONST_0);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, 1);
        mv.visitVarInsn(ILOAD, 2);
        for (int slot = 0; slot < width; slot++) {
            mv.visitInsn(ICONST_0);
        }
        mv.visitMethodInsn(INVOKESTATIC, className, "visit0", visitDescriptor(), false);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/VarHandle", "acquireFence", "()V", false);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    // Locals of visitL.
    private static final int SEGMENT_ARG = 0;
    private static final int CELL_ARG = 1;
    private static final int BY_CELL = 3;
    private static final int PRESENT = 4;
    private static final int CAPACITY = 5;
    private static final int COORDS = 6;

    /** visitL: the cells of chain[L + 1] in the cell of chain[L] at {@code cell}. */
    private void emitVisit(ClassWriter writer, int level) {
        MethodVisitor mv = writer.visitMethod(ACC_STATIC, "visit" + level, visitDescriptor(), null, null);
        mv.visitParameter("segment", 0);
        mv.visitParameter("cell", 0);
        mv.visitParameter("byCell", 0);
        mv.visitParameter("present", 0);
        mv.visitParameter("capacity", 0);
        for (int slot = 0; slot < width; slot++) {
            mv.visitParameter("c" + slot, 0);
        }
        mv.visitCode();
        int childLevel = level + 1;
        SNodePlan childPlan = plans[childLevel];
        // count = 0; container = cell + offset of chain[L + 1]'s container
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, countLocal);
        mv.visitVarInsn(LLOAD, CELL_ARG);
        LayoutEmitter.pushLong(mv, plans[level].childContainerOffset(chain[level].children().indexOf(chain[childLevel])));
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, containerLocal);
        Label done = new Label();
        switch (childPlan.kind()) {
            case DENSE -> emitDenseLoop(mv, childLevel, done);
            case BITMASKED -> emitMaskedLoop(mv, childLevel, done);
            case POINTER -> emitPointerLoop(mv, childLevel, done);
            case DYNAMIC, ROOT -> throw new AssertionError("a dynamic node is terminal; the root is not a child");
        }
        mv.visitLabel(done);
        mv.visitVarInsn(ILOAD, countLocal);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** index = 0; test: if (index >= the container's cell count) goto done */
    private void emitIndexLoopHead(MethodVisitor mv, SNodePlan childPlan, Label test, Label done) {
        emitLoopHead(mv, indexLocal, (int) childPlan.cellCount(), test, done);
    }

    /** local = 0; test: if (local >= limit) goto done */
    private static void emitLoopHead(MethodVisitor mv, int local, int limit, Label test, Label done) {
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, local);
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, local);
        LayoutEmitter.pushInt(mv, limit);
        mv.visitJumpInsn(Opcodes.IF_ICMPGE, done);
    }

    /** Pushes the segment and the offset of word {@code local} of the container: container + local * 8. */
    private void emitWordAddress(MethodVisitor mv, int local) {
        emitWordAddress(mv, local, false);
    }

    /** As {@link #emitWordAddress(MethodVisitor, int)}, with {@code JAVA_LONG} between them when {@code layout}. */
    private void emitWordAddress(MethodVisitor mv, int local, boolean layout) {
        mv.visitVarInsn(ALOAD, SEGMENT_ARG);
        if (layout) {
            mv.visitFieldInsn(GETSTATIC, "java/lang/foreign/ValueLayout", "JAVA_LONG",
                    "Ljava/lang/foreign/ValueLayout$OfLong;");
        }
        mv.visitVarInsn(LLOAD, containerLocal);
        mv.visitVarInsn(ILOAD, local);
        mv.visitInsn(I2L);
        LayoutEmitter.pushInt(mv, 3);
        mv.visitInsn(LSHL);
        mv.visitInsn(LADD);
    }

    /** for (index = 0; index < cells; index++) count += visit(L + 1)(segment, container + index * cellBytes, ...) */
    private void emitDenseLoop(MethodVisitor mv, int childLevel, Label done) {
        SNodePlan childPlan = plans[childLevel];
        Label test = new Label();
        emitIndexLoopHead(mv, childPlan, test, done);
        emitChildCoordinates(mv, childLevel);
        mv.visitVarInsn(ALOAD, SEGMENT_ARG);
        mv.visitVarInsn(LLOAD, containerLocal);
        mv.visitVarInsn(ILOAD, indexLocal);
        mv.visitInsn(I2L);
        LayoutEmitter.pushLong(mv, childPlan.cellBytes());
        mv.visitInsn(LMUL);
        mv.visitInsn(LADD);
        emitDescend(mv, childLevel);
        mv.visitIincInsn(indexLocal, 1);
        mv.visitJumpInsn(GOTO, test);
    }

    /**
     * for (word = 0; word < words; word++)
     *   for (bits = getAcquire(mask word); bits != 0; bits &= bits - 1)
     *     index = word * 64 + tz(bits); count += visit(L + 1)(segment, cells + index * cellBytes, ...)
     */
    private void emitMaskedLoop(MethodVisitor mv, int childLevel, Label done) {
        SNodePlan childPlan = plans[childLevel];
        long words = (childPlan.cellCount() + 63) / 64;
        Label wordTest = new Label();
        Label bitsTest = new Label();
        Label nextWord = new Label();
        emitLoopHead(mv, wordLocal, (int) words, wordTest, done);
        emitWordAddress(mv, wordLocal);
        mv.visitMethodInsn(INVOKESTATIC, "io/snode/runtime/internal/Atomics", "getAcquire", "(" + D_SEGMENT + "J)J", false);
        mv.visitVarInsn(LSTORE, bitsLocal);
        mv.visitLabel(bitsTest);
        mv.visitVarInsn(LLOAD, bitsLocal);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, nextWord);
        // index = word << 6 + numberOfTrailingZeros(bits); bits &= bits - 1
        mv.visitVarInsn(ILOAD, wordLocal);
        LayoutEmitter.pushInt(mv, 6);
        mv.visitInsn(Opcodes.ISHL);
        emitTakeLowestBit(mv);
        emitChildCoordinates(mv, childLevel);
        mv.visitVarInsn(ALOAD, SEGMENT_ARG);
        mv.visitVarInsn(LLOAD, containerLocal);
        LayoutEmitter.pushLong(mv, childPlan.cellsOffset());
        mv.visitInsn(LADD);
        mv.visitVarInsn(ILOAD, indexLocal);
        mv.visitInsn(I2L);
        LayoutEmitter.pushLong(mv, childPlan.cellBytes());
        mv.visitInsn(LMUL);
        mv.visitInsn(LADD);
        emitDescend(mv, childLevel);
        mv.visitJumpInsn(GOTO, bitsTest);
        mv.visitLabel(nextWord);
        mv.visitIincInsn(wordLocal, 1);
        mv.visitJumpInsn(GOTO, wordTest);
    }

    /**
     * for (index = 0; index < cells; index++) {
     *   word = segment.get(JAVA_LONG, container + index * 8); if (word <= 0) continue;
     *   acquireFence(); child = word - 1;
     *   at the parent level: record(child); else count += visit(L + 1)(CELLS.segment(child), CELLS.offset(child), ...)
     * }
     * or, when the Vector API is in use ({@link PointerScan#LANES} {@code > 1}) and the cell count
     * is a multiple of {@code LANES}, the same a vector of words at a time
     * ({@link #emitGroupedPointerLoop}).
     */
    private void emitPointerLoop(MethodVisitor mv, int childLevel, Label done) {
        SNodePlan childPlan = plans[childLevel];
        if (PointerScan.LANES > 1 && childPlan.cellCount() % PointerScan.LANES == 0) {
            emitGroupedPointerLoop(mv, childLevel, done);
            return;
        }
        Label test = new Label();
        Label next = new Label();
        emitIndexLoopHead(mv, childPlan, test, done);
        emitFollowWord(mv, childLevel, next);
        mv.visitLabel(next);
        mv.visitIincInsn(indexLocal, 1);
        mv.visitJumpInsn(GOTO, test);
    }

    /**
     * The pointer loop a vector of {@code LANES} words at a time (the container's cell count is
     * a multiple of it):
     * <pre>{@code
     * for (group = 0; group < cells; group += LANES)
     *   for (bits = PointerScan.activeWords(segment, container + group * 8); bits != 0; bits &= bits - 1) {
     *     index = group + tz(bits); <the word at index, as in the loop a word at a time>
     *   }
     * }</pre>
     */
    private void emitGroupedPointerLoop(MethodVisitor mv, int childLevel, Label done) {
        SNodePlan childPlan = plans[childLevel];
        int group = childCoordsLocal + width;
        Label groupTest = new Label();
        Label bitsTest = new Label();
        Label nextGroup = new Label();
        emitLoopHead(mv, group, (int) childPlan.cellCount(), groupTest, done);
        emitWordAddress(mv, group);
        mv.visitMethodInsn(INVOKESTATIC, "io/snode/codegen/internal/PointerScan", "activeWords",
                "(" + D_SEGMENT + "J)J", false);
        mv.visitVarInsn(LSTORE, bitsLocal);
        mv.visitLabel(bitsTest);
        mv.visitVarInsn(LLOAD, bitsLocal);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, nextGroup);
        // index = group + numberOfTrailingZeros(bits); bits &= bits - 1
        mv.visitVarInsn(ILOAD, group);
        emitTakeLowestBit(mv);
        emitFollowWord(mv, childLevel, bitsTest);
        mv.visitJumpInsn(GOTO, bitsTest);
        mv.visitLabel(nextGroup);
        mv.visitIincInsn(group, PointerScan.LANES);
        mv.visitJumpInsn(GOTO, groupTest);
    }

    /** Stack: base -> (nothing); index = base + numberOfTrailingZeros(bits); bits &= bits - 1 */
    private void emitTakeLowestBit(MethodVisitor mv) {
        mv.visitVarInsn(LLOAD, bitsLocal);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "numberOfTrailingZeros", "(J)I", false);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, indexLocal);
        mv.visitVarInsn(LLOAD, bitsLocal);
        mv.visitVarInsn(LLOAD, bitsLocal);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitInsn(LAND);
        mv.visitVarInsn(LSTORE, bitsLocal);
    }

    /**
     * The pointer word at {@code index}: read plainly; if it is not active, goto {@code next};
     * else {@code child = word - 1} and the child is recorded (at the parent level) or visited,
     * after an acquire fence, as {@code count += visit(L + 1)(CELLS.segment(child),
     * CELLS.offset(child), ...)}. Falls through when done.
     */
    private void emitFollowWord(MethodVisitor mv, int childLevel, Label next) {
        emitWordAddress(mv, indexLocal, true);
        mv.visitMethodInsn(INVOKEINTERFACE, SEGMENT, "get", "(Ljava/lang/foreign/ValueLayout$OfLong;J)J", true);
        mv.visitInsn(DUP2);
        mv.visitVarInsn(LSTORE, wordLocal);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFLE, next);
        if (childLevel != keyLevel) {
            // The child's container is read next. Recorded cells are read only after the walk,
            // which ends with one fence: a fence here would keep the JIT from hoisting the
            // segment's checks out of the scan.
            mv.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/VarHandle", "acquireFence", "()V", false);
        }
        mv.visitVarInsn(LLOAD, wordLocal);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LSUB);
        mv.visitVarInsn(LSTORE, childLocal);
        emitChildCoordinates(mv, childLevel);
        if (childLevel == keyLevel) {
            emitRecord(mv, next);
        } else {
            String cells = "CELLS_" + chain[childLevel].id();
            mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
            mv.visitVarInsn(LLOAD, childLocal);
            mv.visitMethodInsn(INVOKEINTERFACE, CELLS, "segment", "(J)" + D_SEGMENT, true);
            mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
            mv.visitVarInsn(LLOAD, childLocal);
            mv.visitMethodInsn(INVOKEINTERFACE, CELLS, "offset", "(J)J", true);
            emitDescend(mv, childLevel);
        }
    }

    /**
     * if (child < capacity) { byCell[child * W + s] = child coordinate s (every s);
     * present[child >>> 6] |= 1L << child; count++; }
     */
    private void emitRecord(MethodVisitor mv, Label next) {
        mv.visitVarInsn(LLOAD, childLocal);
        mv.visitVarInsn(ILOAD, CAPACITY);
        mv.visitInsn(I2L);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFGE, next);
        for (int slot = 0; slot < width; slot++) {
            mv.visitVarInsn(ALOAD, BY_CELL);
            mv.visitVarInsn(LLOAD, childLocal);
            mv.visitInsn(L2I);
            LayoutEmitter.pushInt(mv, width);
            mv.visitInsn(IMUL);
            if (slot > 0) {
                LayoutEmitter.pushInt(mv, slot);
                mv.visitInsn(IADD);
            }
            mv.visitVarInsn(ILOAD, childCoordsLocal + slot);
            mv.visitInsn(IASTORE);
        }
        // present[(int) (child >>> 6)] |= 1L << child
        mv.visitVarInsn(ALOAD, PRESENT);
        mv.visitVarInsn(LLOAD, childLocal);
        LayoutEmitter.pushInt(mv, 6);
        mv.visitInsn(LUSHR);
        mv.visitInsn(L2I);
        mv.visitInsn(DUP2);
        mv.visitInsn(LALOAD);
        mv.visitInsn(LCONST_1);
        mv.visitVarInsn(LLOAD, childLocal);
        mv.visitInsn(L2I);
        mv.visitInsn(Opcodes.LSHL);
        mv.visitInsn(LOR);
        mv.visitInsn(LASTORE);
        mv.visitIincInsn(countLocal, 1);
    }

    /** Stack: segment, cell offset -> count += visit(L)(segment, cell, byCell, present, capacity, child coordinates) */
    private void emitDescend(MethodVisitor mv, int childLevel) {
        mv.visitVarInsn(ALOAD, BY_CELL);
        mv.visitVarInsn(ALOAD, PRESENT);
        mv.visitVarInsn(ILOAD, CAPACITY);
        for (int slot = 0; slot < width; slot++) {
            mv.visitVarInsn(ILOAD, childCoordsLocal + slot);
        }
        mv.visitMethodInsn(INVOKESTATIC, className, "visit" + childLevel, visitDescriptor(), false);
        mv.visitVarInsn(ILOAD, countLocal);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, countLocal);
    }

    /**
     * Child coordinate slots from index: {@code c * size + local} on the axes chain[L + 1]
     * consumes ({@code local = (index >>> shift) & (size - 1)} for powers of two, else
     * {@code (index / stride) % size}), {@code c} on the others.
     */
    private void emitChildCoordinates(MethodVisitor mv, int childLevel) {
        SNode node = chain[childLevel];
        SNodePlan nodePlan = plans[childLevel];
        int[] positionOfSlot = new int[width];
        Arrays.fill(positionOfSlot, -1);
        List<Axis> axes = node.axes().list();
        for (int n = 0; n < axes.size(); n++) {
            positionOfSlot[slotOf[axes.get(n).ordinal()]] = n;
        }
        for (int slot = 0; slot < width; slot++) {
            mv.visitVarInsn(ILOAD, COORDS + slot);
            int n = positionOfSlot[slot];
            if (n >= 0) {
                int size = node.sizes()[n];
                long stride = nodePlan.stride(n);
                LayoutEmitter.pushInt(mv, size);
                mv.visitInsn(IMUL);
                mv.visitVarInsn(ILOAD, indexLocal);
                if (Long.bitCount(stride) == 1 && Integer.bitCount(size) == 1) {
                    if (stride > 1) {
                        LayoutEmitter.pushInt(mv, Long.numberOfTrailingZeros(stride));
                        mv.visitInsn(IUSHR);
                    }
                    LayoutEmitter.pushInt(mv, size - 1);
                    mv.visitInsn(Opcodes.IAND);
                } else {
                    if (stride > 1) {
                        LayoutEmitter.pushInt(mv, (int) stride);
                        mv.visitInsn(Opcodes.IDIV);
                    }
                    LayoutEmitter.pushInt(mv, size);
                    mv.visitInsn(Opcodes.IREM);
                }
                mv.visitInsn(IADD);
            }
            mv.visitVarInsn(ISTORE, childCoordsLocal + slot);
        }
    }

}
