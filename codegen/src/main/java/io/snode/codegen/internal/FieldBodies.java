package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.ATHROW;
import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.GETFIELD;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.IAND;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFLT;
import static org.objectweb.asm.Opcodes.IOR;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LRETURN;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.NEWARRAY;
import static org.objectweb.asm.Opcodes.PUTFIELD;
import static org.objectweb.asm.Opcodes.ARETURN;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.T_INT;

import io.snode.api.Axis;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.PathWalk;
import io.snode.codegen.internal.emit.RuntimeMethod;
import io.snode.codegen.internal.emit.RuntimeMethods;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.internal.Location;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * The bodies of the field and node methods that the layout class and the accessors share:
 * bounds checks, the read, the write or add with its branch to the runtime's activation, the
 * append, the calls into the runtime's node operations. Every method is guarded: its whole body
 * lies in the range of one handler that turns FFM's "Already closed" into
 * {@link ClosedRuntime#translate}'s exception, which names the runtime ({@link #end}); nothing
 * runs on the normal path for it.
 */
final class FieldBodies {
    /** How a read or write reaches its cell when not by the plain walk from the root: the accessor's cache. */
    interface Walk {
        /**
         * Leaves the field's cell in the walk's locals, or jumps to {@code inactive}; returns
         * whether it can. A {@code write} activates in place where {@link PathWalk#walkToWrite} does.
         */
        boolean emit(PathWalk walk, Label inactive, boolean write);
    }

    /** How an append uses the block a caching accessor remembers: the list's parent cell. */
    interface ListBlock {
        /**
         * Jumps to {@code remembered} with the remembered block in the walk's locals when it is
         * the list's (the epoch and the key match); falls through otherwise.
         */
        void test(PathWalk walk, Label remembered);

        /** Remembers the cell in the walk's locals (the list's parent cell, which the walk reached). */
        void remember(PathWalk walk);

        /** What the accessor remembers of the list in that cell (see {@link PathWalk#rememberList}). */
        PathWalk.ListMemo list();
    }

    private final Plan plan;
    private final ClassEmitter owner;
    private final String runtimeName;
    /** The activation methods emitted into this class so far, by name. */
    private final Set<String> activations = new HashSet<>();
    /** The SNodes whose {@link #outsideName thrower} this class has or will have once the method being emitted ends. */
    private final Set<Integer> throwers = new HashSet<>();
    private final List<SNode> pendingThrowers = new ArrayList<>();
    private MethodEmitter guarded;
    private Label guardEnd;
    private Label guardHandler;

    FieldBodies(Plan plan, ClassEmitter owner, String runtimeName) {
        this.plan = plan;
        this.owner = owner;
        this.runtimeName = runtimeName;
    }

    /** A guarded public method; end it with {@link #end}. */
    MethodEmitter begin(String name, String descriptor, boolean isStatic, List<String> parameterNames) {
        return begin(ACC_PUBLIC | (isStatic ? ACC_STATIC : 0), name, descriptor, parameterNames);
    }

    /** {@link #begin(String, String, boolean, List)} with the method's access flags. */
    MethodEmitter begin(int access, String name, String descriptor, List<String> parameterNames) {
        MethodEmitter mv = owner.method(access, name, descriptor, parameterNames);
        Label start = new Label();
        guarded = mv;
        guardEnd = new Label();
        guardHandler = new Label();
        mv.visitTryCatchBlock(start, guardEnd, guardHandler, Type.getInternalName(IllegalStateException.class));
        mv.visitLabel(start);
        return mv;
    }

    /** The handler of the method begun last: {@code throw ClosedRuntime.translate(e, ROOT, name)}; then the method ends. */
    void end(MethodEmitter mv) {
        if (guarded != mv) {
            throw new AssertionError("the method ended is not the one begun last");
        }
        mv.visitLabel(guardEnd);
        mv.visitLabel(guardHandler);
        owner.getConstant(mv, "ROOT");
        mv.visitLdcInsn(runtimeName);
        mv.invoke(RuntimeMethods.CLOSED_RUNTIME);
        mv.visitInsn(ATHROW);
        guarded = null;
        mv.end();
        for (SNode shape : pendingThrowers) {
            emitThrower(shape);
        }
        pendingThrowers.clear();
    }

    /** Parameter names: the axis letters of the coordinates, then the value's name if any. */
    static List<String> names(List<Axis> axes, String value) {
        List<String> names = new ArrayList<>();
        for (Axis axis : axes) {
            names.add(String.valueOf(axis.letter()));
        }
        if (value != null) {
            names.add(value);
        }
        return names;
    }

    /** The parameter names of the method that implements {@code binding}. */
    static List<String> names(LayoutEmitter.Binding binding) {
        PlacedField field = binding.field();
        return switch (binding.operation()) {
            case GET -> names(field.axes(), null);
            case CELL_GET -> List.of();
            case CELL_SET -> List.of("value");
            case SET -> names(field.axes(), "value");
            case ADD -> names(field.axes(), "delta");
            case APPEND -> names(field.snode().parent().indexAxes(), "value");
        };
    }

    /** A read; {@code cached} null: the walk from the root (inactive pointers read the ambient cell). */
    void get(MethodEmitter mv, PlacedField field, Walk cached) {
        ValueType value = ValueType.of(field.type());
        Label zero = new Label();
        PathWalk walk = new PathWalk(owner, mv);
        boolean mayBeInactive = walkToField(walk, field, zero, true, cached);
        fieldAddress(walk, field, value);
        mv.invoke(value.get);
        mv.visitInsn(value.returns());
        if (mayBeInactive) {
            mv.visitLabel(zero);
            mv.visitInsn(value.zero);
            mv.visitInsn(value.returns());
        }
        end(mv);
    }

    /**
     * A plain store, or with {@code add} an atomic add returning the previous value. The walk's
     * path ends in the store. Where the walk can find the cell inactive, it calls the activation
     * method of the field's SNode and the store's kind ({@link #activation}), a private static
     * method shared by the fields of that SNode, with the coordinates, the field's byte offset in
     * the cell and the value, and returns what it returns.
     *
     * <p>Why a method of its own: with the runtime's activation in the write's method, the
     * coordinates and the value were live across its call, so C2 kept them (and its caller's loop
     * variables) in stack slots on the hot path too, and the store after the activation read a
     * segment merged from two paths. Now nothing of the write is live across a call, and on the
     * walk's path the segment is the last level's constant (its region, where the cells lie in
     * one), whose bounds, address and liveness C2 folds. (One method per SNode, not per field,
     * keeps a layout of thousands of fields inside a class file's constant pool.)
     */
    void store(MethodEmitter mv, PlacedField field, boolean add, Walk cached) {
        int dims = field.dimensionality();
        ValueType value = ValueType.of(field.type());
        Label slow = new Label();
        Label resume = new Label();
        PathWalk walk = new PathWalk(owner, mv);
        if (cached == null) {
            // Not in a caching accessor's write: its call would take the write past the 325
            // bytecodes up to which C2 inlines it (an L2 accessor's write: 323 -> 337).
            walk.resumeFrom(plan.path(field), resume);
        }
        boolean mayBeInactive = walkToField(walk, field, slow, false, cached);
        storeValue(walk, field, add, dims);
        String name = activationName(field.snode(), value, add);
        String descriptor = activationDescriptor(dims, value, add, false);
        String fromName = name + "$from";
        String fromDescriptor = activationDescriptor(dims, value, add, true);
        boolean resumes = walk.resumes();
        if (resumes) {
            // resume: return activate<id>$<set|add>_<type>$from(coordinates..., segment, offset, field offset, value)
            mv.visitLabel(resume);
            callActivation(walk, field, add, fromName, fromDescriptor, true);
        }
        if (mayBeInactive) {
            // slow: return activate<id>$<set|add>_<type>(coordinates..., field offset, value)
            mv.visitLabel(slow);
            callActivation(walk, field, add, name, descriptor, false);
        }
        end(mv);
        if (mayBeInactive && activations.add(name)) {
            activation(field, dims, value, add, name, descriptor, false);
        }
        if (resumes && activations.add(fromName)) {
            activation(field, dims, value, add, fromName, fromDescriptor, true);
        }
    }

    /**
     * Returns what the activation method {@code name} returns, called with the coordinates, with
     * {@code cell} the walk's cell (segment and offset), the field's offset and the value.
     */
    private void callActivation(PathWalk walk, PlacedField field, boolean add, String name, String descriptor,
                                boolean cell) {
        MethodEmitter mv = walk.mv();
        int dims = field.dimensionality();
        ValueType value = ValueType.of(field.type());
        for (int n = 0; n < dims; n++) {
            mv.visitVarInsn(ILOAD, mv.parameter(n));
        }
        if (cell) {
            mv.visitVarInsn(ALOAD, walk.segment());
            mv.visitVarInsn(LLOAD, walk.offset());
        }
        mv.pushLong(plan.node(field.snode()).fieldOffset(field.slot()));
        mv.visitVarInsn(value.load(), mv.parameter(dims));
        mv.visitMethodInsn(INVOKESTATIC, owner.className(), name, descriptor, false);
        mv.visitInsn(add ? value.returns() : RETURN);
    }

    private static String activationName(SNode snode, ValueType value, boolean add) {
        return "activate" + snode.id() + "$" + (add ? "add_" : "set_") + value.fieldType.text();
    }

    /** With {@code from}, the parent cell's segment and offset come after the coordinates. */
    private static String activationDescriptor(int dims, ValueType value, boolean add, boolean from) {
        String type = value.type.getDescriptor();
        return "(" + "I".repeat(dims) + (from ? Type.getDescriptor(MemorySegment.class) + "J" : "") + "J" + type + ")"
                + (add ? type : "V");
    }

    /**
     * {@code private static activate<id>$<set|add>_<type>(coordinates..., long fieldOffset, value)}:
     * activates the path to the cell of {@code snode}, then stores (or adds) {@code value} at
     * {@code fieldOffset} in the cell; an add returns the previous value. With {@code from},
     * {@code activate<id>$<set|add>_<type>$from(coordinates..., MemorySegment parent, long
     * parentOffset, long fieldOffset, value)}, called where the write's walk found the word of the
     * path's last pointer step ({@link PathWalk#resumeStep}) not active, standing in that step's
     * parent cell at ({@code parent}, {@code parentOffset}).
     *
     * <p>Where the path has that step: the method without {@code from} walks from the root again
     * (its caller may be a caching accessor, or found a level above inactive) and stores where
     * every level is active; at that step's inactive word, and in the method with {@code from}
     * from the start, {@link PathWalk#activatePointer} publishes a new cell (nothing allocated on
     * the Java heap), the walk enters the word published or found and activates the steps below in
     * place, and the value is stored. A level above that step that is inactive, or that step's word
     * busy or retired, goes to the runtime: {@code GeneratedCalls.activate} with the coordinates
     * in an array (from the root), or {@code GeneratedCalls.activateFrom} (from the parent cell).
     */
    private void activation(PlacedField field, int dims, ValueType value, boolean add, String name, String descriptor,
                            boolean from) {
        List<String> names = names(field.axes(), null);
        if (from) {
            names.add("parent");
            names.add("parentOffset");
        }
        names.add("fieldOffset");
        names.add(add ? "delta" : "value");
        MethodEmitter mv = begin(ACC_PRIVATE | ACC_STATIC, name, descriptor, names);
        int fieldOffset = mv.parameter(dims + (from ? 2 : 0));
        int valueSlot = mv.parameter(dims + (from ? 3 : 1));
        Runnable addFieldOffset = () -> {
            mv.visitVarInsn(LLOAD, fieldOffset);
            mv.visitInsn(LADD);
        };
        PathWalk walk = new PathWalk(owner, mv);
        List<PathStep> path = plan.path(field);
        int step = PathWalk.resumeStep(path);
        Label runtime = new Label();
        if (step >= 0) {
            if (from) {
                mv.visitVarInsn(ALOAD, mv.parameter(dims));
                mv.visitVarInsn(ASTORE, walk.segment());
                mv.visitVarInsn(LLOAD, mv.parameter(dims + 1));
                mv.visitVarInsn(LSTORE, walk.offset());
            }
            // Without from, the whole walk again (the caller may be a caching accessor, or a level
            // above the last pointer step was inactive); at that step's inactive word, a new cell
            // is published there and the walk enters the word published or found.
            walk.walkToWriteActivatingLastPointer(path, from, runtime,
                    () -> storeAt(walk, value, add, addFieldOffset, valueSlot));
            mv.visitLabel(runtime);
        }
        if (from) {
            pushNodes(mv, field.snode(), dims, -1);
            mv.visitVarInsn(ALOAD, mv.parameter(dims));
            mv.visitVarInsn(LLOAD, mv.parameter(dims + 1));
            mv.invoke(RuntimeMethods.ACTIVATE_FROM);
            takeLocation(walk);
        } else {
            slowActivation(walk, field.snode(), dims);
        }
        storeAt(walk, value, add, addFieldOffset, valueSlot);
        end(mv);
    }

    /** The store (or atomic add) of the value parameter at the walk's cell, and the return. */
    private void storeValue(PathWalk walk, PlacedField field, boolean add, int dims) {
        long fieldOffset = plan.node(field.snode()).fieldOffset(field.slot());
        storeAt(walk, ValueType.of(field.type()), add, () -> walk.mv().addLong(fieldOffset), walk.mv().parameter(dims));
    }

    /**
     * The store (or atomic add) of the value in local {@code valueSlot} at the walk's cell, the
     * field's offset added by {@code addFieldOffset}, and the return (an add returns the previous
     * value).
     */
    private static void storeAt(PathWalk walk, ValueType value, boolean add, Runnable addFieldOffset, int valueSlot) {
        MethodEmitter mv = walk.mv();
        mv.visitVarInsn(ALOAD, walk.segment());
        if (!add) {
            value.pushLayout(mv);
        }
        mv.visitVarInsn(LLOAD, walk.offset());
        addFieldOffset.run();
        mv.visitVarInsn(value.load(), valueSlot);
        mv.invoke(add ? value.atomicAdd : value.set);
        mv.visitInsn(add ? value.returns() : RETURN);
    }

    /**
     * {@code append(listCoordinates..., value)}: appends an element holding {@code value}, returns
     * its index. Where the list's axis is the last of its index axes (so the parameters are the
     * parent levels' coordinates), the walk to the list and the append run in the method and its
     * runtime calls ({@link PathWalk#walkToAppend}, {@link PathWalk#tryAppend}), a missing chunk
     * and a new block (where the list's block is a pointer's cell: its parent step is a pointer,
     * or only dense steps lie between them) included, and an inactive bitmasked cell holding the
     * list (in a new block too, where a pointer lies above it with only dense steps between); an inactive level
     * further up, a busy or retired word or list, and a full list go to the runtime's append.
     */
    void append(MethodEmitter mv, PlacedField field) {
        append(mv, field, null);
    }

    /**
     * As {@link #append(MethodEmitter, PlacedField)}; with {@code block} (a caching accessor's,
     * where the list lies right in the cell it remembers), an append to the list of the
     * remembered block goes to the list without the walk, and the walk remembers the block it
     * reaches; the list's chunk is remembered too, and the length the append made known.
     */
    void append(MethodEmitter mv, PlacedField field, ListBlock block) {
        ValueType value = ValueType.of(field.type());
        SNode list = field.snode();
        int dims = list.parent().indexAxes().size();
        int listAxis = list.indexAxes().indexOf(list.axes().get(0));
        boundsChecks(mv, "snode=" + list.parent().path(), list.parent());
        if (listAxis == dims) {
            List<PathStep> path = plan.path(field);
            PathWalk walk = new PathWalk(owner, mv);
            Label slow = new Label();
            Label remembered = new Label();
            if (block != null) {
                block.test(walk, remembered);
            }
            walk.walkToAppend(path, slow, () -> {
                if (block != null) {
                    block.remember(walk);
                    mv.visitLabel(remembered);
                    walk.rememberList(block.list());
                }
                Label emptied = new Label();
                walk.tryAppend(path.getLast(), slow, emptied);
                walk.rememberList(null);
                if (block != null) {
                    // this.<length> = index + 1: the list holds at least that many elements now
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(LLOAD, walk.index());
                    mv.visitInsn(LCONST_1);
                    mv.visitInsn(LADD);
                    mv.visitFieldInsn(PUTFIELD, block.list().owner(), block.list().length(), "J");
                }
                fieldAddress(walk, field, value);
                mv.visitVarInsn(value.load(), mv.parameter(dims));
                mv.invoke(value.set);
                mv.visitLabel(emptied); // a racing deactivation emptied the list: the element is gone with it
                mv.visitVarInsn(LLOAD, walk.index());
                mv.visitInsn(LRETURN);
            });
            mv.visitLabel(slow);
        }
        int location = mv.newLocal("location", Type.getType(Location.class));
        String locationClass = Type.getInternalName(Location.class);
        String segment = Type.getDescriptor(MemorySegment.class);
        callNodes(mv, RuntimeMethods.APPEND_AT, list, dims, list.indexAxes().indexOf(list.axes().get(0)));
        mv.visitVarInsn(ASTORE, location);
        mv.visitVarInsn(ALOAD, location);
        mv.visitFieldInsn(GETFIELD, locationClass, "segment", segment);
        value.pushLayout(mv);
        mv.visitVarInsn(ALOAD, location);
        mv.visitFieldInsn(GETFIELD, locationClass, "offset", "J");
        mv.pushLong(plan.node(list).fieldOffset(field.slot()));
        mv.visitInsn(LADD);
        mv.visitVarInsn(value.load(), mv.parameter(dims));
        mv.invoke(value.set);
        mv.visitVarInsn(ALOAD, location);
        mv.visitFieldInsn(GETFIELD, locationClass, "element", "J");
        mv.visitInsn(LRETURN);
        end(mv);
    }

    /**
     * Checks the coordinates, then leaves the field's cell in the walk's locals: by the walk
     * from the root ({@code cached} null) or the accessor's cache.
     */
    private boolean walkToField(PathWalk walk, PlacedField field, Label inactive, boolean ambient, Walk cached) {
        boundsChecks(walk.mv(), "field=" + field.name(), field.snode());
        List<PathStep> path = plan.path(field);
        boolean write = !ambient;
        if (cached != null) {
            return cached.emit(walk, inactive, write);
        }
        return write ? walk.walkToWrite(path, 0, path.size(), inactive) : walk.walk(path, 0, path.size(), inactive, true);
    }

    /** Pushes the segment, the value layout and the field's byte offset. */
    private void fieldAddress(PathWalk walk, PlacedField field, ValueType value) {
        MethodEmitter mv = walk.mv();
        mv.visitVarInsn(ALOAD, walk.segment());
        value.pushLayout(mv);
        mv.visitVarInsn(LLOAD, walk.offset());
        mv.addLong(plan.node(field.snode()).fieldOffset(field.slot()));
    }

    /** Activates the path to {@code target} through the runtime; leaves segment and offset set. */
    private void slowActivation(PathWalk walk, SNode target, int dims) {
        callNodes(walk.mv(), RuntimeMethods.ACTIVATE, target, dims, -1);
        takeLocation(walk);
    }

    /** Leaves the segment and offset of the {@link Location} on the stack in the walk's locals. */
    private static void takeLocation(PathWalk walk) {
        MethodEmitter mv = walk.mv();
        String location = Type.getInternalName(Location.class);
        mv.visitInsn(DUP);
        mv.visitFieldInsn(GETFIELD, location, "segment", Type.getDescriptor(MemorySegment.class));
        mv.visitVarInsn(ASTORE, walk.segment());
        mv.visitFieldInsn(GETFIELD, location, "offset", "J");
        mv.visitVarInsn(LSTORE, walk.offset());
    }

    /**
     * Calls {@code operation(STRUCTURE, SNODE_<id>, int[] of the coordinate parameters)}; with
     * {@code insertAt >= 0}, a 0 is inserted there (a dynamic list's own axis, for operations on
     * the whole list).
     */
    void callNodes(MethodEmitter mv, RuntimeMethod operation, SNode snode, int params, int insertAt) {
        pushNodes(mv, snode, params, insertAt);
        mv.invoke(operation);
    }

    /** Pushes {@code STRUCTURE, SNODE_<id>, int[] of the coordinate parameters}, as {@link #callNodes} passes them. */
    private void pushNodes(MethodEmitter mv, SNode snode, int params, int insertAt) {
        owner.getConstant(mv, "STRUCTURE");
        owner.getConstant(mv, "SNODE_" + snode.id());
        int length = params + (insertAt >= 0 ? 1 : 0);
        mv.pushInt(length);
        mv.visitIntInsn(NEWARRAY, T_INT);
        int parameter = 0;
        for (int n = 0; n < length; n++) {
            mv.visitInsn(DUP);
            mv.pushInt(n);
            if (n == insertAt) {
                mv.visitInsn(ICONST_0);
            } else {
                mv.visitVarInsn(ILOAD, mv.parameter(parameter++));
            }
            mv.visitInsn(IASTORE);
        }
    }

    /**
     * Throws the runtime's out-of-bounds exception unless 0 <= coordinate < extent, per axis.
     * Where every extent is a power of two (and there are two axes or more), one test serves all:
     * a coordinate in {@code [0, extent)} has no bit of {@code -extent} set (a negative one has its
     * sign bit), so {@code ((i & -extent_i) | (j & -extent_j) | ...) != 0} finds any coordinate
     * outside, with one mask when the extents are equal ({@code (i | j | k) & -extent}); then
     * the SNode's {@code outside<id>} method builds the exception of the first coordinate outside,
     * the same as the test per axis gives. That keeps a caching accessor's write small enough for
     * C2 to inline it into its caller (325 bytecodes, {@code FreqInlineSize}).
     */
    void boundsChecks(MethodEmitter mv, String what, SNode shape) {
        List<Axis> axes = shape.indexAxes();
        int[] extents = shape.indexShape();
        if (axes.size() > 1 && Arrays.stream(extents).allMatch(e -> Integer.bitCount(e) == 1)) {
            boolean equal = Arrays.stream(extents).allMatch(e -> e == extents[0]);
            Label inside = new Label();
            for (int n = 0; n < axes.size(); n++) {
                mv.visitVarInsn(ILOAD, mv.parameter(n));
                if (!equal) {
                    mv.pushInt(-extents[n]);
                    mv.visitInsn(IAND);
                }
                if (n > 0) {
                    mv.visitInsn(IOR);
                }
            }
            if (equal) {
                mv.pushInt(-extents[0]);
                mv.visitInsn(IAND);
            }
            mv.visitJumpInsn(IFEQ, inside);
            mv.visitLdcInsn(what);
            for (int n = 0; n < axes.size(); n++) {
                mv.visitVarInsn(ILOAD, mv.parameter(n));
            }
            mv.visitMethodInsn(INVOKESTATIC, owner.className(), outsideName(shape), outsideDescriptor(axes.size()), false);
            mv.visitInsn(ATHROW);
            mv.visitLabel(inside);
            if (throwers.add(shape.id())) {
                pendingThrowers.add(shape);
            }
            return;
        }
        for (int n = 0; n < axes.size(); n++) {
            axisCheck(mv, () -> mv.visitLdcInsn(what), mv.parameter(n), axes.get(n), extents[n], ATHROW, true);
        }
    }

    /**
     * One axis's check: unless {@code conditional} is false, jumps past unless the int in
     * {@code slot} lies outside {@code [0, extent)}; then {@code GeneratedCalls.outside(what,
     * axis, coordinate, extent)} and {@code terminal} ({@code ATHROW}, or {@code ARETURN} in the
     * thrower).
     */
    private static void axisCheck(MethodEmitter mv, Runnable pushWhat, int slot, Axis axis, int extent, int terminal,
                                  boolean conditional) {
        Label inside = new Label();
        if (conditional) {
            mv.visitVarInsn(ILOAD, slot);
            mv.pushInt(extent);
            mv.invoke(RuntimeMethods.COMPARE_UNSIGNED);
            mv.visitJumpInsn(IFLT, inside);
        }
        pushWhat.run();
        mv.pushInt(axis.letter());
        mv.visitVarInsn(ILOAD, slot);
        mv.pushInt(extent);
        mv.invoke(RuntimeMethods.OUTSIDE);
        mv.visitInsn(terminal);
        if (conditional) {
            mv.visitLabel(inside);
        }
    }

    private static String outsideName(SNode shape) {
        return "outside" + shape.id();
    }

    private static String outsideDescriptor(int dims) {
        return "(Ljava/lang/String;" + "I".repeat(dims) + ")Ljava/lang/IndexOutOfBoundsException;";
    }

    /**
     * {@code private static IndexOutOfBoundsException outside<id>(what, coordinates...)}: the
     * exception of the first coordinate outside its extent, for the one test of
     * {@link #boundsChecks}, which calls it only when one is (the last axis is then the one).
     */
    private void emitThrower(SNode shape) {
        List<Axis> axes = shape.indexAxes();
        int[] extents = shape.indexShape();
        List<String> names = new ArrayList<>();
        names.add("what");
        names.addAll(names(axes, null));
        MethodEmitter mv = owner.method(ACC_PRIVATE | ACC_STATIC, outsideName(shape), outsideDescriptor(axes.size()),
                names);
        for (int n = 0; n < axes.size(); n++) {
            // The last axis needs no test: the one test found a coordinate outside.
            axisCheck(mv, () -> mv.visitVarInsn(ALOAD, mv.parameter(0)), mv.parameter(n + 1), axes.get(n), extents[n],
                    ARETURN, n < axes.size() - 1);
        }
        mv.end();
    }
}
