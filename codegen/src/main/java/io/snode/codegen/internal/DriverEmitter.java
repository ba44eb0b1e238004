package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.ATHROW;
import static org.objectweb.asm.Opcodes.CHECKCAST;
import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.IADD;
import static org.objectweb.asm.Opcodes.IALOAD;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.IF_ICMPLT;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.INSTANCEOF;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.ISUB;
import static org.objectweb.asm.Opcodes.L2I;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LALOAD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.NEW;
import static org.objectweb.asm.Opcodes.NEWARRAY;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.T_INT;

import io.snode.api.SNode;
import io.snode.codegen.internal.emit.CellArithmetic;
import io.snode.codegen.internal.emit.CellLoop;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.NodeEmitUnit;
import io.snode.codegen.internal.emit.RuntimeMethod;
import io.snode.codegen.internal.emit.RuntimeMethods;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.ViewKernel;
import io.snode.runtime.SNodePlan;
import java.util.List;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * Emits the struct-for drivers: one class per kernel class and SNode, whose static {@code run}
 * visits blocks {@code [from, to)} of an {@link ActiveBlocks} snapshot and calls the kernel. One
 * class per kernel class keeps the call site monomorphic, so the JIT inlines the kernel into the
 * loop; the target's sizes, strides, cell count and mask words are literals.
 *
 * <ul>
 *   <li>Per cell, {@code run(KernelN kernel, ActiveBlocks blocks, int from, int to)}: for every
 *       active cell of every block (the loop of the target's kind,
 *       {@link NodeEmitUnit#emitBlockCells}), {@code kernel.apply(coordinates)}. Coordinate
 *       {@code n} is {@code bases[baseAt + n] * size + local} on axes the target consumes, where
 *       {@code local} comes from the cell index with the plan's stride and size, and
 *       {@code bases[baseAt + n]} on the others. A throwing kernel stops the launch with a
 *       {@link KernelException} that carries the cell's coordinates.</li>
 *   <li>Per cell with a view ({@link #emitView}), an instance method
 *       {@code run(ViewKernel kernel, ActiveBlocks blocks, int from, int to)} of a class that is
 *       also a caching accessor ({@link io.snode.codegen.internal.structfor.ViewDriver}): the same
 *       loops, but on entering a block it lets the accessor remember that block
 *       ({@link BlockEntry}), and it calls {@code kernel.apply(this, coordinates)}. Passing
 *       {@code this} is the point: the JIT knows the view's exact class where it inlines the
 *       kernel, so the kernel's calls on the view bind and inline without a type profile
 *       (a kernel compiled in a tier that keeps none left them interface calls).</li>
 *   <li>Per block, {@code run(BlockKernel kernel, ActiveBlocks blocks, int from, int to)}:
 *       {@code kernel.apply(blocks.leaf(block, CELLS_OFFSET, CELL_BYTES, CELL_COUNT))} (the plan's
 *       numbers as literals, so an inlined kernel loops over a block of constant size), or for a
 *       dynamic target {@code blocks.list(block, CHUNK_SIZE, CELL_BYTES)} (a list: full chunks of
 *       constant size; {@link NodeEmitUnit#emitLeafBlock}); and for
 *       reductions {@code run(BlockReducer reducer, Object accumulator, ActiveBlocks blocks, int
 *       from, int to)}: {@code reducer.accumulate(accumulator, blocks.leaf(...))}. {@code run}
 *       hands the blocks to that loop ({@code batch}) {@value #BLOCKS_PER_BATCH} at a time, so
 *       that the JIT compiles it early (see {@code emitBatches}). A throwing kernel stops the
 *       launch with the block's origin ({@link ActiveBlocks#failure}).</li>
 * </ul>
 */
public final class DriverEmitter {
    private static final String BLOCKS = Type.getDescriptor(ActiveBlocks.class);
    /** The block drivers' loop over blocks, called by {@code run} per {@link #BLOCKS_PER_BATCH} blocks. */
    private static final String BATCH = "batch";
    static final int BLOCKS_PER_BATCH = 16;

    private DriverEmitter() {
    }

    /** The per-cell driver of a KernelN ({@code arity} coordinates) over {@code target}. */
    public static byte[] emit(String className, SNodePlan target, int arity) {
        ClassEmitter owner = owner(className, target);
        new CellDriver(owner, target, arity).emit();
        return owner.finish();
    }

    /**
     * What a view driver emits on entering block {@code block} (after {@code baseAt}, the
     * block's first slot in {@code bases}, is set): the accessor's remembered blocks become this
     * one. The arguments are the driver's local slots.
     */
    @FunctionalInterface
    public interface BlockEntry {
        void enter(MethodEmitter mv, int blocks, int block, int bases, int baseAt);

        /**
         * What the driver emits before each call of the kernel, with the cell's index in the block
         * (a list's element index) in local {@code index} and the block in {@code block} of {@code blocks}.
         */
        default void cell(MethodEmitter mv, int blocks, int block, int index) {
        }
    }

    /** Pushes {@code bases[baseAt + n]}: coordinate {@code n} of the block's base (locals {@code bases}, {@code baseAt}). */
    static void pushBase(MethodEmitter mv, int bases, int baseAt, int n) {
        mv.visitVarInsn(ALOAD, bases);
        mv.visitVarInsn(ILOAD, baseAt);
        if (n > 0) {
            mv.pushInt(n);
            mv.visitInsn(IADD);
        }
        mv.visitInsn(IALOAD);
    }

    /** The position in {@code target}'s own axes of its index axis {@code n}, or -1 where it does not consume it. */
    private static int position(SNodePlan target, int n) {
        SNode node = target.snode();
        return node.axes().list().indexOf(node.indexAxes().get(n));
    }

    /**
     * Pushes coordinate {@code n} of the block's origin: {@code bases[baseAt + n] * SIZE} on an
     * axis {@code target} consumes, {@code bases[baseAt + n]} on the others.
     */
    static void pushOrigin(MethodEmitter mv, SNodePlan target, int bases, int baseAt, int n) {
        pushBase(mv, bases, baseAt, n);
        int position = position(target, n);
        if (position >= 0) {
            mv.pushInt(target.snode().sizes()[position]);
            mv.visitInsn(IMUL);
        }
    }

    /**
     * Adds to the int on the stack the local coordinate {@code n} of the cell index (a long) that
     * {@code pushIndex} pushes, with the plan's stride and size, where {@code target} consumes
     * the axis (nothing on the others): origin plus local is the cell's coordinate.
     */
    static void addLocal(MethodEmitter mv, SNodePlan target, int n, Runnable pushIndex) {
        int position = position(target, n);
        if (position < 0) {
            return;
        }
        int size = target.snode().sizes()[position];
        long stride = target.stride(position);
        pushIndex.run();
        CellArithmetic.longSplit(mv, stride, size, stride * size == target.cellCount());
        mv.visitInsn(L2I);
        mv.visitInsn(IADD);
    }

    /**
     * The per-cell driver of a ViewKernelN ({@code arity} coordinates) over {@code target}, as an
     * instance method {@code run} of {@code owner}, a class that implements the view's
     * interface; {@code entry} primes the view at every block.
     */
    public static void emitView(ClassEmitter owner, SNodePlan target, int arity, BlockEntry entry) {
        new CellDriver(owner, target, arity, entry).emit();
    }

    /**
     * The per-block driver over {@code target}: of a BlockKernel, or with {@code reducer} of a
     * BlockReducer that takes the task's accumulator.
     */
    public static byte[] emitBlock(String className, SNodePlan target, boolean reducer) {
        ClassEmitter owner = owner(className, target);
        String descriptor = reducer
                ? "(" + Type.getDescriptor(BlockReducer.class) + Type.getDescriptor(Object.class) + BLOCKS + "II)V"
                : "(" + Type.getDescriptor(BlockKernel.class) + BLOCKS + "II)V";
        List<String> names = reducer
                ? List.of("reducer", "accumulator", "blocks", "from", "to")
                : List.of("kernel", "blocks", "from", "to");
        int shift = reducer ? 1 : 0;
        emitBatches(owner, descriptor, names, shift);
        MethodEmitter mv = owner.method(BATCH, descriptor, true, names);
        int blocks = mv.parameter(1 + shift);
        int block = mv.newLocal("block", Type.INT_TYPE);
        int failure = mv.newLocal("failure", Type.getType(Throwable.class));
        Label handler = new Label();
        Label test = new Label();
        Label body = new Label();
        Label end = firstBlock(mv, mv.parameter(2 + shift), block, handler, test, body);
        mv.visitVarInsn(ALOAD, mv.parameter(0));
        if (reducer) {
            mv.visitVarInsn(ALOAD, mv.parameter(1));
        }
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        NodeEmitUnit.of(target.kind()).emitLeafBlock(mv, target);
        mv.invoke(reducer ? RuntimeMethods.BLOCK_REDUCER_ACCUMULATE : RuntimeMethods.BLOCK_KERNEL_APPLY);
        nextBlock(mv, block, mv.parameter(3 + shift), test, body, end);
        // handler: throw blocks.failure(block, failure)
        mv.visitLabel(handler);
        mv.visitVarInsn(ASTORE, failure);
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ALOAD, failure);
        mv.invoke(RuntimeMethods.BLOCK_FAILURE);
        mv.visitInsn(ATHROW);
        mv.end();
        return owner.finish();
    }

    /**
     * {@code run(kernel[, accumulator], blocks, from, to)}: {@code for (b = from; b < to; b = end)
     * { end = b + min(to - b, BLOCKS_PER_BATCH); batch(kernel[, accumulator], blocks, b, end); }},
     * where {@code batch} is the loop over blocks. The JIT compiles a method once it has been
     * called often enough (hundreds of times) besides its loops' iterations; {@code run} is called
     * once per range, about a hundred times per launch, and a driver without batches stayed in
     * its profiling tier for five launches over W6's lists. Batches are called per few blocks, so
     * the loop with the kernel inlined is compiled during the first launch.
     */
    private static void emitBatches(ClassEmitter owner, String descriptor, List<String> names, int shift) {
        List<String> locals = new java.util.ArrayList<>(names);
        MethodEmitter mv = owner.method("run", descriptor, true, locals);
        int from = mv.parameter(2 + shift);
        int to = mv.parameter(3 + shift);
        int block = mv.newLocal("block", Type.INT_TYPE);
        int end = mv.newLocal("end", Type.INT_TYPE);
        Label test = new Label();
        Label body = new Label();
        mv.visitVarInsn(ILOAD, from);
        mv.visitVarInsn(ISTORE, block);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(body);
        // end = block + min(to - block, BLOCKS_PER_BATCH): never past to, never overflows
        mv.visitVarInsn(ILOAD, to);
        mv.visitVarInsn(ILOAD, block);
        mv.visitInsn(ISUB);
        mv.pushInt(BLOCKS_PER_BATCH);
        mv.invoke(RuntimeMethods.MIN_INT);
        mv.visitVarInsn(ILOAD, block);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, end);
        for (int n = 0; n <= 1 + shift; n++) {
            mv.visitVarInsn(ALOAD, mv.parameter(n));
        }
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ILOAD, end);
        mv.visitMethodInsn(INVOKESTATIC, owner.className(), BATCH, descriptor, false);
        mv.visitVarInsn(ILOAD, end);
        mv.visitVarInsn(ISTORE, block);
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ILOAD, to);
        mv.visitJumpInsn(IF_ICMPLT, body);
        mv.visitInsn(RETURN);
        mv.end();
    }

    /**
     * The start of a loop over blocks: {@code block = from; start: (the try range of handler)
     * goto test; body:}. Returns the end label of the try range.
     */
    private static Label firstBlock(MethodEmitter mv, int from, int block, Label handler, Label test, Label body) {
        Label start = new Label();
        Label end = new Label();
        mv.visitTryCatchBlock(start, end, handler, Type.getInternalName(Throwable.class));
        mv.visitVarInsn(ILOAD, from);
        mv.visitVarInsn(ISTORE, block);
        mv.visitLabel(start);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(body);
        return end;
    }

    /** The end of a loop over blocks: block++; test: if (block < to) goto body; end: return */
    private static void nextBlock(MethodEmitter mv, int block, int to, Label test, Label body, Label end) {
        mv.visitIincInsn(block, 1);
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(ILOAD, to);
        mv.visitJumpInsn(IF_ICMPLT, body);
        mv.visitLabel(end);
        mv.visitInsn(RETURN);
    }

    private static ClassEmitter owner(String className, SNodePlan target) {
        return new ClassEmitter(className, "driver of " + target.snode().path());
    }

    /** The per-cell driver's {@code run}, with its named locals. */
    private static final class CellDriver implements CellLoop {
        private final SNodePlan target;
        private final int arity;
        private final RuntimeMethod apply;
        /** With a view: primes it per block; null for a plain KernelN driver. */
        private final BlockEntry entry;
        /** With a view: the local holding the kernel cast to its ViewKernelN; else the kernel parameter. */
        private final int kernel;
        private final MethodEmitter mv;
        private final int blocks;
        private final int bases;
        private final int masks;
        private final int block;
        private final int baseAt;
        private final int index;
        private final int word;
        private final int bits;
        private final int left;
        private final int length;
        private final int maskAt;
        private final int failure;

        CellDriver(ClassEmitter owner, SNodePlan target, int arity) {
            this(owner, target, arity, null);
        }

        CellDriver(ClassEmitter owner, SNodePlan target, int arity, BlockEntry entry) {
            this.target = target;
            this.arity = arity;
            this.entry = entry;
            List<String> names = List.of("kernel", "blocks", "from", "to");
            if (entry == null) {
                this.apply = RuntimeMethods.kernelApply(arity);
                mv = owner.method("run", "(L" + apply.owner() + ";" + BLOCKS + "II)V", true, names);
                kernel = mv.parameter(0);
            } else {
                this.apply = RuntimeMethods.viewKernelApply(arity);
                mv = owner.method("run", "(" + Type.getDescriptor(ViewKernel.class) + BLOCKS + "II)V", false, names);
                kernel = mv.newLocal("kernel" + arity, Type.getObjectType(apply.owner()));
            }
            blocks = mv.parameter(1);
            bases = mv.newLocal("bases", Type.getType(int[].class));
            masks = mv.newLocal("masks", Type.getType(long[].class));
            block = mv.newLocal("block", Type.INT_TYPE);
            baseAt = mv.newLocal("baseAt", Type.INT_TYPE);
            index = mv.newLocal("index", Type.LONG_TYPE);
            word = mv.newLocal("word", Type.INT_TYPE);
            bits = mv.newLocal("bits", Type.LONG_TYPE);
            left = mv.newLocal("left", Type.INT_TYPE);
            length = mv.newLocal("length", Type.LONG_TYPE);
            maskAt = mv.newLocal("maskAt", Type.INT_TYPE);
            failure = mv.newLocal("failure", Type.getType(Throwable.class));
        }

        /** Set by {@link #single}: coordinates are the bases as they are. */
        private boolean basesAreCells;

        void emit() {
            Label handler = new Label();
            if (entry != null) {
                // kernelN = (ViewKernelN) kernel
                mv.visitVarInsn(ALOAD, mv.parameter(0));
                mv.visitTypeInsn(CHECKCAST, apply.owner());
                mv.visitVarInsn(ASTORE, kernel);
            }
            // bases = blocks.bases(); masks = blocks.masks(); locals the handler reads start at 0
            mv.visitVarInsn(ALOAD, blocks);
            mv.invoke(RuntimeMethods.BLOCK_BASES);
            mv.visitVarInsn(ASTORE, bases);
            mv.visitVarInsn(ALOAD, blocks);
            mv.invoke(RuntimeMethods.BLOCK_MASKS);
            mv.visitVarInsn(ASTORE, masks);
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, baseAt);
            mv.visitInsn(LCONST_0);
            mv.visitVarInsn(LSTORE, index);
            // for (block = from; block < to; block++) { baseAt = block * arity; <cells of the block> }
            Label blockTest = new Label();
            Label blockBody = new Label();
            Label end = firstBlock(mv, mv.parameter(2), block, handler, blockTest, blockBody);
            mv.visitVarInsn(ILOAD, block);
            mv.pushInt(arity);
            mv.visitInsn(IMUL);
            mv.visitVarInsn(ISTORE, baseAt);
            if (entry != null) {
                entry.enter(mv, blocks, block, bases, baseAt);
            }
            NodeEmitUnit.of(target.kind()).emitBlockCells(this);
            nextBlock(mv, block, mv.parameter(3), blockTest, blockBody, end);

            // handler: a nested launch's KernelException passes through (as ActiveBlocks.failure
            // does for block kernels); else throw new KernelException(path, coordinates of index
            // in block, failure)
            mv.visitLabel(handler);
            mv.visitVarInsn(ASTORE, failure);
            Label wrap = new Label();
            mv.visitVarInsn(ALOAD, failure);
            mv.visitTypeInsn(INSTANCEOF, RuntimeMethods.KERNEL_EXCEPTION.owner());
            mv.visitJumpInsn(IFEQ, wrap);
            mv.visitVarInsn(ALOAD, failure);
            mv.visitInsn(ATHROW);
            mv.visitLabel(wrap);
            mv.visitTypeInsn(NEW, RuntimeMethods.KERNEL_EXCEPTION.owner());
            mv.visitInsn(DUP);
            mv.visitLdcInsn(target.snode().path());
            mv.pushInt(arity);
            mv.visitIntInsn(NEWARRAY, T_INT);
            for (int n = 0; n < arity; n++) {
                mv.visitInsn(DUP);
                mv.pushInt(n);
                coordinate(n);
                mv.visitInsn(IASTORE);
            }
            mv.visitVarInsn(ALOAD, failure);
            mv.invoke(RuntimeMethods.KERNEL_EXCEPTION);
            mv.visitInsn(ATHROW);
            mv.end();
        }

        /** length = cell count (or blocks.length(block) for a list); for (index = 0; index < length; index++) call(index) */
        @Override
        public void byCount(boolean perBlockLength) {
            if (perBlockLength) {
                mv.visitVarInsn(ALOAD, blocks);
                mv.visitVarInsn(ILOAD, block);
                mv.invoke(RuntimeMethods.BLOCK_LENGTH);
            } else {
                mv.pushLong(target.cellCount());
            }
            mv.visitVarInsn(LSTORE, length);
            mv.visitInsn(LCONST_0);
            mv.visitVarInsn(LSTORE, index);
            Label test = new Label();
            Label body = new Label();
            mv.visitJumpInsn(GOTO, test);
            mv.visitLabel(body);
            call();
            mv.visitVarInsn(LLOAD, index);
            mv.visitInsn(LCONST_1);
            mv.visitInsn(LADD);
            mv.visitVarInsn(LSTORE, index);
            mv.visitLabel(test);
            mv.visitVarInsn(LLOAD, index);
            mv.visitVarInsn(LLOAD, length);
            mv.visitInsn(LCMP);
            Label done = new Label();
            mv.visitJumpInsn(IFGE, done);
            mv.visitJumpInsn(GOTO, body);
            mv.visitLabel(done);
        }

        /**
         * maskAt = block * WORDS;
         * for (word = maskAt; word < maskAt + WORDS; word++)
         *   for (bits = masks[word], left = bitCount(bits); left > 0; left--) {
         *     index = (word - maskAt) * 64 + tz(bits); bits &= bits - 1; call(index) }
         *
         * The inner loop counts down the word's set bits instead of testing {@code bits != 0}:
         * the same cells in the same order, and C2 compiles the counted form far better (W3's
         * per-cell launch over L2's 8.05 M active cells through a view reading the visited cell:
         * 34.4-34.6 -> 20.6-20.9 ms in a probe, one thread, both forms alternating).
         */
        @Override
        public void byMask() {
            int words = (int) ((target.cellCount() + 63) >>> CellArithmetic.CELLS_PER_WORD_SHIFT);
            mv.visitVarInsn(ILOAD, block);
            mv.pushInt(words);
            mv.visitInsn(IMUL);
            mv.visitInsn(DUP);
            mv.visitVarInsn(ISTORE, maskAt);
            mv.visitVarInsn(ISTORE, word);
            Label wordTest = new Label();
            Label wordBody = new Label();
            Label bitsTest = new Label();
            Label bitsBody = new Label();
            Label done = new Label();
            mv.visitJumpInsn(GOTO, wordTest);
            mv.visitLabel(wordBody);
            mv.visitVarInsn(ALOAD, masks);
            mv.visitVarInsn(ILOAD, word);
            mv.visitInsn(LALOAD);
            mv.visitInsn(DUP2);
            mv.visitVarInsn(LSTORE, bits);
            mv.invoke(RuntimeMethods.BIT_COUNT);
            mv.visitVarInsn(ISTORE, left);
            mv.visitJumpInsn(GOTO, bitsTest);
            mv.visitLabel(bitsBody);
            // index = (word - maskAt) << 6 + numberOfTrailingZeros(bits)
            mv.visitVarInsn(ILOAD, word);
            mv.visitVarInsn(ILOAD, maskAt);
            mv.visitInsn(ISUB);
            mv.visitInsn(I2L);
            mv.pushInt(CellArithmetic.CELLS_PER_WORD_SHIFT);
            mv.visitInsn(LSHL);
            CellArithmetic.lowestBit(mv, bits);
            mv.visitInsn(I2L);
            mv.visitInsn(LADD);
            mv.visitVarInsn(LSTORE, index);
            CellArithmetic.clearLowestBit(mv, bits); // bits &= bits - 1
            call();
            mv.visitIincInsn(left, -1);
            mv.visitLabel(bitsTest);
            Label nextWord = new Label();
            mv.visitVarInsn(ILOAD, left);
            mv.visitJumpInsn(IFLE, nextWord);
            mv.visitJumpInsn(GOTO, bitsBody);
            mv.visitLabel(nextWord);
            mv.visitIincInsn(word, 1);
            mv.visitLabel(wordTest);
            mv.visitVarInsn(ILOAD, word);
            mv.visitVarInsn(ILOAD, maskAt);
            mv.pushInt(words);
            mv.visitInsn(IADD);
            mv.visitJumpInsn(IF_ICMPGE, done);
            mv.visitJumpInsn(GOTO, wordBody);
            mv.visitLabel(done);
        }

        /** kernel.apply(bases[baseAt ..]): the block's base coordinates are the cell's. */
        @Override
        public void single() {
            basesAreCells = true;
            call();
        }

        /** kernel.apply(coordinates of index), or with a view kernel.apply(this, coordinates of index) */
        private void call() {
            if (entry != null) {
                entry.cell(mv, blocks, block, index);
            }
            mv.visitVarInsn(ALOAD, kernel);
            if (entry != null) {
                mv.visitVarInsn(ALOAD, 0);
            }
            for (int n = 0; n < arity; n++) {
                coordinate(n);
            }
            mv.invoke(apply);
        }

        /** Pushes coordinate {@code n} of cell index: bases[baseAt + n] * size + local, or bases[baseAt + n]. */
        private void coordinate(int n) {
            if (basesAreCells) {
                pushBase(mv, bases, baseAt, n);
                return;
            }
            pushOrigin(mv, target, bases, baseAt, n);
            addLocal(mv, target, n, () -> mv.visitVarInsn(LLOAD, index));
        }
    }
}
