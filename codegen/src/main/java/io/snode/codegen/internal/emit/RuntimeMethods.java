package io.snode.codegen.internal.emit;

import io.snode.api.SNode;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.ClosedRuntime;
import io.snode.codegen.internal.PointerScan;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.BlockReducer;
import io.snode.codegen.kernel.Kernel1;
import io.snode.codegen.kernel.Kernel2;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import io.snode.codegen.kernel.Kernel5;
import io.snode.codegen.kernel.Kernel6;
import io.snode.codegen.kernel.Kernel7;
import io.snode.codegen.kernel.Kernel8;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.codegen.kernel.ViewKernel1;
import io.snode.codegen.kernel.ViewKernel2;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.kernel.ViewKernel4;
import io.snode.codegen.kernel.ViewKernel5;
import io.snode.codegen.kernel.ViewKernel6;
import io.snode.codegen.kernel.ViewKernel7;
import io.snode.codegen.kernel.ViewKernel8;
import io.snode.runtime.internal.Atomics;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.memory.HashTables;
import io.snode.runtime.internal.node.HashUnit;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;

/**
 * Every method that generated code calls, one {@link RuntimeMethod} each, resolved from the real
 * classes when this table loads (before any class is emitted): a helper renamed in the runtime
 * fails here, naming it. The emitters call nothing by a string.
 */
public final class RuntimeMethods {
    // The path walk and the per-node operations of the layout class (io.snode.runtime.internal.GeneratedCalls).
    public static final RuntimeMethod POINTER_WORD = of(GeneratedCalls.class, "pointerWord", MemorySegment.class, long.class);
    public static final RuntimeMethod CHILD = of(GeneratedCalls.class, "child", CheckedCells.class, long.class);
    public static final RuntimeMethod REGION_OFFSET = of(GeneratedCalls.class, "regionOffset", long.class, long.class);
    public static final RuntimeMethod REGION_OR_ZERO_CELL = of(GeneratedCalls.class, "regionOrZeroCell", long.class,
            long.class, long.class);
    public static final RuntimeMethod CHILD_OFFSET = of(GeneratedCalls.class, "childOffset", CheckedCells.class, long.class);
    public static final RuntimeMethod CHILD_OR_AMBIENT = of(GeneratedCalls.class, "childOrAmbient", CheckedCells.class,
            long.class, MemorySegment.class);
    public static final RuntimeMethod CHILD_OR_AMBIENT_OFFSET = of(GeneratedCalls.class, "childOrAmbientOffset",
            CheckedCells.class, long.class);
    public static final RuntimeMethod MASK_BIT = of(GeneratedCalls.class, "maskBit", MemorySegment.class, long.class,
            long.class);
    public static final RuntimeMethod ACTIVATE_BIT = of(GeneratedCalls.class, "activateBit", NodeTree.class,
            MemorySegment.class, long.class, long.class);
    public static final RuntimeMethod HASH_WORD = of(HashUnit.class, "word", HashTables.class, MemorySegment.class,
            long.class, long.class);
    public static final RuntimeMethod TRY_APPEND = of(GeneratedCalls.class, "tryAppend", NodeTree.class, SNode.class,
            MemorySegment.class, long.class, int.class, int.class, CheckedCells.class, int.class);
    public static final RuntimeMethod ACTIVATE_LIST_BLOCK = of(GeneratedCalls.class, "activateListBlock",
            NodeTree.class, SNode.class, SNode.class, MemorySegment.class, long.class, long.class);
    public static final RuntimeMethod ACTIVATE_LIST_CELL_BLOCK = of(GeneratedCalls.class, "activateListCellBlock",
            NodeTree.class, SNode.class, SNode.class, MemorySegment.class, long.class, long.class, long.class, long.class);
    public static final RuntimeMethod ACTIVATE_LIST_CELL = of(GeneratedCalls.class, "activateListCell",
            NodeTree.class, SNode.class, MemorySegment.class, long.class, long.class, long.class);
    public static final RuntimeMethod LIST_LENGTH = of(GeneratedCalls.class, "listLength", MemorySegment.class, long.class);
    public static final RuntimeMethod CHUNK_REFERENCE = of(GeneratedCalls.class, "chunkReference", MemorySegment.class,
            long.class, long.class, CheckedCells.class, int.class);
    public static final RuntimeMethod EPOCH = of(GeneratedCalls.class, "epoch", NodeTree.class);
    /** The epoch read plainly, for views, which are used only inside a launch. */
    public static final RuntimeMethod EPOCH_IN_LAUNCH = of(GeneratedCalls.class, "epochInLaunch", NodeTree.class);
    public static final RuntimeMethod ACTIVATE = of(GeneratedCalls.class, "activate", NodeTree.class, SNode.class,
            int[].class);
    public static final RuntimeMethod ACTIVATE_FROM = of(GeneratedCalls.class, "activateFrom", NodeTree.class,
            SNode.class, int[].class, MemorySegment.class, long.class);
    public static final RuntimeMethod ACTIVATE_POINTER = of(GeneratedCalls.class, "activatePointer", NodeTree.class,
            SNode.class, MemorySegment.class, long.class);
    public static final RuntimeMethod DEACTIVATE = of(GeneratedCalls.class, "deactivate", NodeTree.class, SNode.class,
            int[].class);
    public static final RuntimeMethod DEACTIVATE_CELL = of(GeneratedCalls.class, "deactivateCell", NodeTree.class,
            SNode.class, MemorySegment.class, long.class, long.class);
    public static final RuntimeMethod APPEND = of(GeneratedCalls.class, "append", NodeTree.class, SNode.class, int[].class);
    public static final RuntimeMethod APPEND_AT = of(GeneratedCalls.class, "appendAt", NodeTree.class, SNode.class,
            int[].class);
    public static final RuntimeMethod LENGTH = of(GeneratedCalls.class, "length", NodeTree.class, SNode.class, int[].class);
    public static final RuntimeMethod DEACTIVATE_ALL = of(GeneratedCalls.class, "deactivateAll", NodeTree.class,
            SNode.class);
    public static final RuntimeMethod OUTSIDE = of(GeneratedCalls.class, "outside", String.class, char.class, int.class,
            int.class);
    public static final RuntimeMethod CLOSED_RUNTIME = of(ClosedRuntime.class, "translate",
            IllegalStateException.class, MemorySegment.class, String.class);
    public static final RuntimeMethod CHECK_ALIVE = of(ClosedRuntime.class, "checkAlive", MemorySegment.class);

    // Field values: plain access through the segment, atomic adds through the runtime.
    public static final RuntimeMethod GET_INT = of(MemorySegment.class, "get", ValueLayout.OfInt.class, long.class);
    public static final RuntimeMethod GET_LONG = of(MemorySegment.class, "get", ValueLayout.OfLong.class,
            long.class);
    public static final RuntimeMethod GET_FLOAT = of(MemorySegment.class, "get", ValueLayout.OfFloat.class,
            long.class);
    public static final RuntimeMethod GET_DOUBLE = of(MemorySegment.class, "get", ValueLayout.OfDouble.class,
            long.class);
    public static final RuntimeMethod SET_INT = of(MemorySegment.class, "set", ValueLayout.OfInt.class, long.class,
            int.class);
    public static final RuntimeMethod SET_LONG = of(MemorySegment.class, "set", ValueLayout.OfLong.class,
            long.class, long.class);
    public static final RuntimeMethod SET_FLOAT = of(MemorySegment.class, "set", ValueLayout.OfFloat.class,
            long.class, float.class);
    public static final RuntimeMethod SET_DOUBLE = of(MemorySegment.class, "set", ValueLayout.OfDouble.class,
            long.class, double.class);
    public static final RuntimeMethod ADD_INT = of(Atomics.class, "getAndAddInt", MemorySegment.class, long.class,
            int.class);
    public static final RuntimeMethod ADD_LONG = of(Atomics.class, "getAndAddLong", MemorySegment.class,
            long.class, long.class);
    public static final RuntimeMethod ADD_FLOAT = of(Atomics.class, "getAndAddFloat", MemorySegment.class,
            long.class, float.class);
    public static final RuntimeMethod ADD_DOUBLE = of(Atomics.class, "getAndAddDouble", MemorySegment.class,
            long.class, double.class);

    // The snapshot walk.
    public static final RuntimeMethod GET_ACQUIRE = of(Atomics.class, "getAcquire", MemorySegment.class, long.class);
    public static final RuntimeMethod ACTIVE_WORDS = of(PointerScan.class, "activeWords", MemorySegment.class,
            long.class);
    public static final RuntimeMethod CELL_SEGMENT = of(CheckedCells.class, "segment", long.class);
    public static final RuntimeMethod CELL_OFFSET = of(CheckedCells.class, "offset", long.class);
    public static final RuntimeMethod CELL_REGION_OFFSET = of(CheckedCells.class, "regionOffset", long.class, long.class);
    public static final RuntimeMethod ACQUIRE_FENCE = of(VarHandle.class, "acquireFence");

    // The struct-for drivers.
    public static final RuntimeMethod BLOCK_BASES = of(ActiveBlocks.class, "bases");
    public static final RuntimeMethod BLOCK_MASKS = of(ActiveBlocks.class, "masks");
    public static final RuntimeMethod BLOCK_LENGTH = of(ActiveBlocks.class, "length", int.class);
    public static final RuntimeMethod BLOCK_LEAF = of(ActiveBlocks.class, "leaf", int.class, long.class, long.class,
            long.class);
    public static final RuntimeMethod BLOCK_LIST = of(ActiveBlocks.class, "list", int.class, long.class, long.class);
    public static final RuntimeMethod BLOCK_FAILURE = of(ActiveBlocks.class, "failure", int.class, Throwable.class);
    public static final RuntimeMethod BLOCK_SEGMENT = of(ActiveBlocks.class, "segment", int.class);
    public static final RuntimeMethod BLOCK_CONTAINER = of(ActiveBlocks.class, "container", int.class);
    public static final RuntimeMethod BLOCK_EPOCH_STAMP = of(ActiveBlocks.class, "epochStamp");
    public static final RuntimeMethod BLOCK_CHUNK_SEGMENT = of(ActiveBlocks.class, "chunkSegment", int.class, long.class);
    public static final RuntimeMethod BLOCK_CHUNK_OFFSET = of(ActiveBlocks.class, "chunkOffset", int.class, long.class);
    public static final RuntimeMethod BLOCK_KERNEL_APPLY = of(BlockKernel.class, "apply", LeafBlock.class);
    public static final RuntimeMethod BLOCK_REDUCER_ACCUMULATE = of(BlockReducer.class, "accumulate", Object.class,
            LeafBlock.class);
    public static final RuntimeMethod KERNEL_EXCEPTION = RuntimeMethod.constructor(KernelException.class,
            String.class, int[].class, Throwable.class);
    /** {@code KernelN.apply(int...)}, at index N (index 0 unused). */
    private static final List<RuntimeMethod> KERNEL_APPLY = List.of(
            kernelApply(Kernel1.class, 1), kernelApply(Kernel2.class, 2), kernelApply(Kernel3.class, 3),
            kernelApply(Kernel4.class, 4), kernelApply(Kernel5.class, 5), kernelApply(Kernel6.class, 6),
            kernelApply(Kernel7.class, 7), kernelApply(Kernel8.class, 8));
    /** {@code ViewKernelN.apply(Object view, int...)} (the view's type erased), at index N - 1. */
    private static final List<RuntimeMethod> VIEW_KERNEL_APPLY = List.of(
            viewKernelApply(ViewKernel1.class, 1), viewKernelApply(ViewKernel2.class, 2),
            viewKernelApply(ViewKernel3.class, 3), viewKernelApply(ViewKernel4.class, 4),
            viewKernelApply(ViewKernel5.class, 5), viewKernelApply(ViewKernel6.class, 6),
            viewKernelApply(ViewKernel7.class, 7), viewKernelApply(ViewKernel8.class, 8));

    // The bootstrap of every invokedynamic of a bound interface.
    public static final RuntimeMethod BIND = of(Anchor.class, "bind", MethodHandles.Lookup.class, String.class,
            MethodType.class, int.class);

    // Plain Java the generated code uses.
    public static final RuntimeMethod COMPARE_UNSIGNED = of(Integer.class, "compareUnsigned", int.class, int.class);
    public static final RuntimeMethod MIN_INT = of(Math.class, "min", int.class, int.class);
    public static final RuntimeMethod TRAILING_ZEROS = of(Long.class, "numberOfTrailingZeros", long.class);
    public static final RuntimeMethod BIT_COUNT = of(Long.class, "bitCount", long.class);
    public static final RuntimeMethod LOOKUP = of(MethodHandles.class, "lookup");
    public static final RuntimeMethod CLASS_DATA = of(MethodHandles.class, "classData", MethodHandles.Lookup.class,
            String.class, Class.class);
    public static final RuntimeMethod LIST_GET = of(List.class, "get", int.class);
    public static final RuntimeMethod OBJECT_INIT = RuntimeMethod.constructor(Object.class);

    private RuntimeMethods() {
    }

    /** {@code KernelN.apply} for {@code arity} N, 1 to 8. */
    public static RuntimeMethod kernelApply(int arity) {
        return KERNEL_APPLY.get(arity - 1);
    }

    /** {@code ViewKernelN.apply} for {@code arity} N, 1 to 8. */
    public static RuntimeMethod viewKernelApply(int arity) {
        return VIEW_KERNEL_APPLY.get(arity - 1);
    }

    private static RuntimeMethod viewKernelApply(Class<?> kernel, int arity) {
        Class<?>[] parameters = new Class<?>[arity + 1];
        Arrays.fill(parameters, int.class);
        parameters[0] = Object.class;
        return of(kernel, "apply", parameters);
    }

    private static RuntimeMethod kernelApply(Class<?> kernel, int arity) {
        Class<?>[] coordinates = new Class<?>[arity];
        Arrays.fill(coordinates, int.class);
        return of(kernel, "apply", coordinates);
    }

    private static RuntimeMethod of(Class<?> owner, String name, Class<?>... parameters) {
        return RuntimeMethod.of(owner, name, parameters);
    }
}
