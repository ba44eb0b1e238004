package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.ICONST_1;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LRETURN;
import static org.objectweb.asm.Opcodes.POP;
import static org.objectweb.asm.Opcodes.RETURN;

import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.NodeEmitUnit;
import io.snode.codegen.internal.emit.PathWalk;
import io.snode.codegen.internal.emit.RuntimeMethod;
import io.snode.codegen.internal.emit.RuntimeMethods;
import io.snode.codegen.internal.structfor.ViewDriver;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.memory.HashTables;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.List;
import org.objectweb.asm.ClassTooLargeException;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.Type;

/**
 * Emits the class of one compiled layout: static methods per field ({@code get_}, {@code set_},
 * {@code add_}, and {@code append_} on dynamic nodes) and per SNode ({@code deactivateAll_} on
 * every node, the root included; {@code isActive_}, {@code activate_} on every other node;
 * {@code deactivate_} on sparse nodes; {@code append_}, {@code length_} on dynamic nodes, which
 * with {@code deactivate_} take the list's coordinates, those of the node's parent). Every
 * constant of the plan is a literal in the code: per-level shifts, masks, divisors and strides,
 * container offsets, cell sizes, field offsets. The objects of the
 * runtime (root segment, node managers, their regions, ambient cells) are {@code static final}
 * fields set in {@code <clinit>} from the class data, in the order {@link #classData()} lists
 * them; a region's zero cell is a {@code static final long} the class file holds. What each
 * constant is, with the numbers it follows from, is in {@link #constantNotes()} (the plan
 * cannot say: it depends on the runtime the layout is compiled into). The
 * caching accessors implementing an application interface come from the same plan
 * ({@link #emitAccessor}, see {@link AccessorEmitter}).
 *
 * <p>Reads walk the path with the runtime's lookups ({@link PathWalk}, one
 * {@link NodeEmitUnit} per level); an inactive pointer cell leads to its SNode's zeroed ambient
 * cell (with a region, the region's zero cell), an inactive bitmasked cell or a list element past
 * the length returns zero. Writes take
 * the same walk and branch, only when some level is inactive, to the runtime's activation
 * (which rolls back on failure), then store.
 */
public final class LayoutEmitter {
    /**
     * Characters of the layout's text that the generated classes' source attribute holds (what
     * stack traces print as the file name); longer texts are cut there. The class file holds at
     * most 65,535 bytes in one string, which a layout of some 6,500 fields passes; the full text
     * is {@link #sourceText()}.
     */
    static final int SOURCE_ATTRIBUTE_TEXT = 200;

    /**
     * The longest field name that the names generated classes derive from it can hold in a
     * class file (at most 65,535 bytes in one string): the longest is an accessor's member
     * {@code NAME$chunkSegment} (the layout's methods add less: {@code append_NAME}).
     */
    public static final int MAX_FIELD_NAME = 65_535 - "$chunkSegment".length();

    private final Plan plan;
    private final String className;
    private ClassEmitter owner;
    private FieldBodies bodies;

    /**
     * @throws IllegalArgumentException when a field's name is longer than {@link #MAX_FIELD_NAME}
     *                                  characters, too long for a method name in a class file
     */
    public LayoutEmitter(Plan plan, String className) {
        this.plan = plan;
        this.className = className;
        for (PlacedField field : plan.layout().fields()) {
            if (field.name().length() > MAX_FIELD_NAME) {
                throw new IllegalArgumentException("field=" + field.name().substring(0, 40) + "... has a name of "
                        + field.name().length() + " characters; the names generated classes derive from it (get_NAME,"
                        + " NAME$chunkSegment) hold at most " + MAX_FIELD_NAME);
            }
        }
    }

    /** What the generated classes were made from: {@code layout: } and the layout's whole text. */
    public String sourceText() {
        return "layout: " + plan.layout();
    }

    /** The source attribute: {@link #sourceText()}, cut after {@link #SOURCE_ATTRIBUTE_TEXT} characters of the layout. */
    static String sourceAttribute(String layoutText) {
        return "layout: " + abbreviated(layoutText);
    }

    /**
     * A layout's text cut after {@link #SOURCE_ATTRIBUTE_TEXT} characters, for every place that
     * names a layout inside generated code or a message (a class-file string holds at most 64 KiB).
     */
    public static String abbreviated(String layoutText) {
        if (layoutText.length() <= SOURCE_ATTRIBUTE_TEXT) {
            return layoutText;
        }
        return layoutText.substring(0, SOURCE_ATTRIBUTE_TEXT) + "... (" + layoutText.length() + " characters)";
    }

    /** Method names, shared with the binder and the runtime. */
    public static String getter(PlacedField field) {
        return "get_" + field.name();
    }

    public static String setter(PlacedField field) {
        return "set_" + field.name();
    }

    public static String adder(PlacedField field) {
        return "add_" + field.name();
    }

    public static String appender(PlacedField field) {
        return "append_" + field.name();
    }

    /**
     * The name of an SNode in method names: {@code s2_pointer}. A field may have such a name
     * too, so no per-node method shares its prefix with a per-field one ({@code get_},
     * {@code set_}, {@code add_}, {@code append_}): every generated method has a name of its own.
     */
    public static String nodeName(SNode node) {
        return "s" + node.id() + "_" + node.kind().text();
    }

    /** The objects the class's static fields are loaded from, in class-data order. */
    public List<Object> classData() {
        return owner == null ? List.of() : owner.classData();
    }

    /** What each constant of the last class emitted is ({@link ClassEmitter#constantNotes}). */
    public List<String> constantNotes() {
        return owner == null ? List.of() : owner.constantNotes();
    }

    /** The runtime objects the generated class refers to. */
    public interface RuntimeObjects {
        Object structure();

        Object root();

        Object cells(SNode snode);

        Object ambient(SNode snode);

        Object directories(SNode snode);

        Object tables(SNode snode);

        /**
         * How messages name the runtime, for example after it was closed; by default
         * {@code "the runtime of layout <text>"}.
         */
        default String runtimeName() {
            return null;
        }
    }

    /** One method of an application interface and the field operation it performs. */
    public record Binding(Method method, PlacedField field, Operation operation) {
    }

    /**
     * The field operations an interface method can stand for. {@code CELL_GET} and
     * {@code CELL_SET}: a read or write without coordinates of a field with some, of the cell a
     * per-cell launch is visiting; only a view ({@link #emitViewDriver}) has them.
     */
    public enum Operation {
        GET, SET, ADD, APPEND, CELL_GET, CELL_SET;

        /** Whether this reads or writes the visited cell (a view's, without coordinates). */
        public boolean ofVisitedCell() {
            return this == CELL_GET || this == CELL_SET;
        }
    }

    /**
     * @param objects per constant the emitter asks for: what {@code <clinit>} should load; see
     *                {@link RuntimeObjects}
     */
    public byte[] emit(RuntimeObjects objects) {
        startClass(objects);
        for (PlacedField field : plan.layout().fields()) {
            emitGet(field);
            emitStore(field, false);
            emitStore(field, true);
            if (field.snode().kind() == NodeKind.DYNAMIC) {
                emitFieldAppend(field);
            }
        }
        for (SNodePlan node : plan.nodes()) {
            SNode snode = node.snode();
            emitDeactivateAll(snode); // on the root and dense nodes: every sparse node below
            if (snode.kind() == NodeKind.ROOT) {
                continue;
            }
            emitIsActive(snode);
            emitActivate(snode);
            if (snode.kind().isSparse()) {
                emitDeactivate(snode);
            }
            if (snode.kind() == NodeKind.DYNAMIC) {
                emitAppend(snode);
                emitLength(snode);
            }
        }
        return finish();
    }

    /**
     * Emits an accessor implementing {@code api}: see {@link AccessorEmitter}. One instance
     * serves one thread.
     */
    public byte[] emitAccessor(Class<?> api, List<Binding> bindings, RuntimeObjects objects) {
        startClass(objects, Type.getInternalName(api));
        new AccessorEmitter(plan, owner, bodies, false).emit(bindings);
        return finish();
    }

    /**
     * Emits a view driver: an accessor implementing {@code api} (as {@link #emitAccessor}) that
     * is also a {@link ViewDriver} of ViewKernels of {@code arity} over {@code target}
     * ({@link DriverEmitter#emitView}), priming its remembered blocks as it enters each block.
     * One instance per task.
     */
    public byte[] emitViewDriver(Class<?> api, List<Binding> bindings, RuntimeObjects objects, SNodePlan target,
                                 int arity) {
        startClass(objects, Type.getInternalName(api), Type.getInternalName(ViewDriver.class));
        AccessorEmitter accessor = new AccessorEmitter(plan, owner, bodies, true);
        accessor.emit(bindings);
        DriverEmitter.BlockEntry primer = accessor.primer(bindings, target);
        DriverEmitter.emitView(owner, target, arity, primer != null ? primer : (mv, blocks, block, bases, baseAt) -> {
        });
        return finish();
    }

    /** The finished class; a layout too large for one class file is a bad argument, not a crash. */
    private byte[] finish() {
        try {
            return owner.finish();
        } catch (ClassTooLargeException | MethodTooLargeException e) {
            throw new IllegalArgumentException("layout=" + abbreviated(plan.layout().toString())
                    + " with " + plan.layout().fields().size() + " fields needs a generated class larger than a class"
                    + " file allows (" + e.getMessage() + "); split it into several layouts", e);
        }
    }

    /** Starts a class (implementing {@code interfaces}) with the plan's runtime objects as constants. */
    private void startClass(RuntimeObjects objects, String... interfaces) {
        owner = new ClassEmitter(className, sourceAttribute(plan.layout().toString()), interfaces);
        String runtimeName = objects.runtimeName() != null ? objects.runtimeName()
                : "the runtime of layout " + abbreviated(plan.layout().toString());
        bodies = new FieldBodies(plan, owner, runtimeName);
        owner.constant("STRUCTURE", NodeTree.class, objects.structure(), RuntimeConstants.structure(runtimeName));
        owner.constant("ROOT", MemorySegment.class, objects.root(), RuntimeConstants.root(plan.node(plan.layout().root())));
        for (SNodePlan node : plan.nodes()) {
            SNode snode = node.snode();
            owner.constant("SNODE_" + snode.id(), SNode.class, snode, RuntimeConstants.snode(snode));
            if (node.hasNodeManager()) {
                owner.constant("CELLS_" + snode.id(), CheckedCells.class, objects.cells(snode), RuntimeConstants.cells(node));
                if (objects.cells(snode) instanceof CheckedCells cells && cells.region() != null) {
                    // The manager's cells lie in one region: cell c at c * the plan's cell bytes.
                    if (cells.cellStride() != PathWalk.managedCellBytes(node)) {
                        throw new AssertionError("cell stride " + cells.cellStride() + " of " + snode.path()
                                + " is not the plan's " + PathWalk.managedCellBytes(node));
                    }
                    owner.constant("REGION_" + snode.id(), MemorySegment.class, cells.region(),
                            RuntimeConstants.region(node, cells));
                }
                // Reads of an inactive pointer or hash cell land on the region's zero cell, past every
                // cell, or without a region on the ambient cell. (No generated read of a list does:
                // it tests the length and the chunk instead.)
                if (readsThroughZeroCell(node, objects.cells(snode))) {
                    CheckedCells cells = (CheckedCells) objects.cells(snode);
                    owner.longConstant("ZERO_CELL_" + snode.id(), cells.zeroCellOffset(), RuntimeConstants.zeroCell(node, cells));
                } else if (node.hasChildCells()) {
                    owner.constant("AMBIENT_" + snode.id(), MemorySegment.class, objects.ambient(snode),
                            RuntimeConstants.ambient(node));
                }
            }
            if (node.kind() == NodeKind.DYNAMIC && node.directoryLeafFanout() > 0) {
                owner.constant("DIRECTORY_" + snode.id(), CheckedCells.class, objects.directories(snode),
                        RuntimeConstants.directories(node));
            }
            if (node.kind() == NodeKind.HASH) {
                owner.constant("TABLES_" + snode.id(), HashTables.class, objects.tables(snode), RuntimeConstants.tables(node));
            }
        }
    }

    /**
     * Whether reads of an inactive cell of {@code node} (a pointer or hash node whose children lie
     * in a region) land on the region's zero cell instead of a separate ambient cell.
     */
    private static boolean readsThroughZeroCell(SNodePlan node, Object cells) {
        return (node.kind() == NodeKind.POINTER || node.kind() == NodeKind.HASH)
                && cells instanceof CheckedCells checked && checked.region() != null;
    }

    // ------------------------------------------------------------------ field methods

    private static String coordinates(int count) {
        return "I".repeat(count);
    }

    private void emitGet(PlacedField field) {
        ValueType value = ValueType.of(field.type());
        int dims = field.dimensionality();
        MethodEmitter mv = bodies.begin(getter(field), "(" + coordinates(dims) + ")" + value.type.getDescriptor(),
                true, FieldBodies.names(field.axes(), null));
        bodies.get(mv, field, null);
    }

    /** {@code set_} (plain store) or {@code add_} (atomic add returning the previous value). */
    private void emitStore(PlacedField field, boolean add) {
        ValueType value = ValueType.of(field.type());
        int dims = field.dimensionality();
        Type returns = add ? value.type : Type.VOID_TYPE;
        String descriptor = "(" + coordinates(dims) + value.type.getDescriptor() + ")" + returns.getDescriptor();
        List<String> names = FieldBodies.names(field.axes(), add ? "delta" : "value");
        MethodEmitter mv = bodies.begin(add ? adder(field) : setter(field), descriptor, true, names);
        bodies.store(mv, field, add, null);
    }

    /** {@code append_f(listCoordinates..., value)}: appends an element holding {@code value}. */
    private void emitFieldAppend(PlacedField field) {
        ValueType value = ValueType.of(field.type());
        SNode list = field.snode();
        int dims = list.parent().indexAxes().size();
        MethodEmitter mv = bodies.begin(appender(field), "(" + coordinates(dims) + value.type.getDescriptor() + ")J",
                true, FieldBodies.names(list.parent().indexAxes(), "value"));
        bodies.append(mv, field);
    }

    // ------------------------------------------------------------------ SNode methods

    /** {@code isActive_}: the walk to the node's container, then its kind's active test of the cell. */
    private void emitIsActive(SNode snode) {
        Label inactive = new Label();
        PathWalk walk = walkToContainer("isActive_", snode, snode, Type.BOOLEAN_TYPE, inactive);
        MethodEmitter mv = walk.mv();
        checkAliveWhereNothingIsLoaded(mv, snode);
        PathStep last = plan.path(snode).getLast();
        walk.storeCellIndex(last, snode);
        NodeEmitUnit.of(last.node().kind()).emitActiveTest(walk, last, inactive);
        mv.visitInsn(ICONST_1);
        mv.visitInsn(IRETURN);
        mv.visitLabel(inactive);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IRETURN);
        bodies.end(mv);
    }

    /**
     * {@code deactivate_<node>(coordinates...)}: the walk to the node's container, reading as
     * {@code isActive_}'s does (an inactive level above: false, nothing changed), then the
     * cell's deactivation by the runtime ({@code GeneratedCalls.deactivateCell}: the epoch
     * advanced around it, the kind's release of the cell and everything below, the count that
     * launches read), with nothing allocated on the Java heap. A list is named by its parent's
     * coordinates, as for {@code append_} and {@code length_}, and goes whole; where the list's
     * axis is not the last of its index axes, the runtime walks ({@code GeneratedCalls.deactivate},
     * with the coordinates in an array).
     */
    private void emitDeactivate(SNode snode) {
        boolean list = snode.kind() == NodeKind.DYNAMIC;
        if (list && !listAxisLast(snode)) {
            emitDelegate(snode, "deactivate_", RuntimeMethods.DEACTIVATE, Type.BOOLEAN_TYPE, true);
            return;
        }
        Label inactive = new Label();
        PathWalk walk = walkToContainer("deactivate_", snode, list ? snode.parent() : snode, Type.BOOLEAN_TYPE, inactive);
        MethodEmitter mv = walk.mv();
        PathStep last = plan.path(snode).getLast();
        if (!list) {
            walk.storeCellIndex(last, snode);
        }
        owner.getConstant(mv, "STRUCTURE");
        owner.getConstant(mv, "SNODE_" + snode.id());
        mv.visitVarInsn(ALOAD, walk.segment());
        walk.containerOffset(last);
        if (list) {
            mv.visitInsn(LCONST_0); // a list's deactivation takes no cell index
        } else {
            mv.visitVarInsn(LLOAD, walk.index());
        }
        mv.invoke(RuntimeMethods.DEACTIVATE_CELL);
        mv.visitInsn(IRETURN);
        mv.visitLabel(inactive);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IRETURN);
        bodies.end(mv);
    }

    /**
     * {@code length_<node>(listCoordinates...)}: the walk to the list's header, reading (an
     * inactive level above: 0), then its length read with acquire ordering; where the list's axis
     * is not the last of its index axes, the runtime walks ({@code GeneratedCalls.length}, with
     * the coordinates in an array).
     */
    private void emitLength(SNode snode) {
        if (!listAxisLast(snode)) {
            emitDelegate(snode, "length_", RuntimeMethods.LENGTH, Type.LONG_TYPE, true);
            return;
        }
        Label inactive = new Label();
        PathWalk walk = walkToContainer("length_", snode, snode.parent(), Type.LONG_TYPE, inactive);
        MethodEmitter mv = walk.mv();
        walk.listLength(plan.path(snode).getLast());
        mv.visitInsn(LRETURN);
        mv.visitLabel(inactive);
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LRETURN);
        bodies.end(mv);
    }

    /**
     * Begins {@code <prefix><node>} of {@code snode}, taking the coordinates of {@code shape} (the
     * node's own, or its parent's for a list) and returning {@code returns}: the coordinates'
     * checks, then the read-only walk to the node's container (every inactive level jumps to
     * {@code inactive}), with the walk's line-number mark of the node's own level.
     */
    private PathWalk walkToContainer(String prefix, SNode snode, SNode shape, Type returns, Label inactive) {
        MethodEmitter mv = bodies.begin(prefix + nodeName(snode), "(" + coordinates(shape.indexAxes().size()) + ")"
                + returns.getDescriptor(), true, FieldBodies.names(shape.indexAxes(), null));
        bodies.boundsChecks(mv, "snode=" + shape.path(), shape);
        List<PathStep> path = plan.path(snode);
        PathWalk walk = new PathWalk(owner, mv);
        walk.walk(path, 0, path.size() - 1, inactive, false);
        mv.markLevel(path.size());
        return walk;
    }

    /**
     * Whether the list axis of dynamic {@code snode} is the last of its index axes, so that the
     * list's coordinates (its parent's) are the first parameters of a path walk to it.
     */
    private static boolean listAxisLast(SNode snode) {
        return snode.indexAxes().indexOf(snode.axes().get(0)) == snode.parent().indexAxes().size();
    }

    /**
     * A method that checks its coordinates and hands them to a {@code GeneratedCalls} operation; for a
     * whole dynamic list ({@code listCoordinates}) it takes the coordinates of the list's parent.
     */
    private void emitDelegate(SNode snode, String prefix, RuntimeMethod operation, Type returns,
                              boolean listCoordinates) {
        SNode shape = listCoordinates ? snode.parent() : snode;
        int dims = shape.indexAxes().size();
        MethodEmitter mv = bodies.begin(prefix + nodeName(snode), "(" + coordinates(dims) + ")"
                + returns.getDescriptor(), true, FieldBodies.names(shape.indexAxes(), null));
        bodies.boundsChecks(mv, "snode=" + shape.path(), shape);
        bodies.callNodes(mv, operation, snode, dims,
                listCoordinates ? snode.indexAxes().indexOf(snode.axes().get(0)) : -1);
        if (returns.getSort() == Type.VOID) {
            mv.visitInsn(POP);
            mv.visitInsn(RETURN);
        } else {
            mv.visitInsn(returns.getOpcode(IRETURN));
        }
        bodies.end(mv);
    }

    /**
     * {@code appendZero_<node>(listCoordinates...)}: appends an element (its fields zero) to the list
     * at the parent's coordinates and returns its index, as a field's append does without the
     * store ({@code FieldBodies.append}): where the list's axis is the last of its index axes, the
     * walk to the list and the append run in the method and its runtime calls
     * ({@link PathWalk#walkToAppend}; a missing chunk and a new block included, with nothing
     * allocated on the Java heap); anything else goes to the runtime's append
     * ({@code GeneratedCalls.append}, with the coordinates in an array).
     */
    private void emitAppend(SNode snode) {
        SNode parent = snode.parent();
        int dims = parent.indexAxes().size();
        int listAxis = snode.indexAxes().indexOf(snode.axes().get(0));
        MethodEmitter mv = bodies.begin("appendZero_" + nodeName(snode), "(" + coordinates(dims) + ")J", true,
                FieldBodies.names(parent.indexAxes(), null));
        bodies.boundsChecks(mv, "snode=" + parent.path(), parent);
        if (listAxisLast(snode)) {
            List<PathStep> path = plan.path(snode);
            PathWalk walk = new PathWalk(owner, mv);
            Label runtime = new Label();
            walk.walkToAppend(path, runtime, () -> {
                walk.takeIndex(path.getLast(), runtime);
                mv.visitVarInsn(LLOAD, walk.index());
                mv.visitInsn(LRETURN);
            });
            mv.visitLabel(runtime);
        }
        bodies.callNodes(mv, RuntimeMethods.APPEND, snode, dims, listAxis);
        mv.visitInsn(LRETURN);
        bodies.end(mv);
    }

    /**
     * {@code activate_<node>(coordinates...)}: the walk of a write to the node's cell, which
     * activates it where every level above is active (a clear mask bit set in place); where the
     * word of the path's last pointer step (only dense and bitmasked steps below it) is inactive,
     * that one cell is published from the parent cell the walk stands in, with nothing allocated
     * on the Java heap ({@link PathWalk#activatePointer}); anything else (an inactive level above,
     * a hash or list step, a busy or retired word) goes to the runtime's activation
     * ({@code GeneratedCalls.activate}, with the coordinates in an array).
     */
    private void emitActivate(SNode snode) {
        int dims = snode.indexAxes().size();
        MethodEmitter mv = bodies.begin("activate_" + nodeName(snode), "(" + coordinates(dims) + ")V", true,
                FieldBodies.names(snode.indexAxes(), null));
        bodies.boundsChecks(mv, "snode=" + snode.path(), snode);
        checkAliveWhereNothingIsLoaded(mv, snode);
        List<PathStep> path = plan.path(snode);
        PathWalk walk = new PathWalk(owner, mv);
        Label runtime = new Label();
        if (walk.walkToWriteActivatingLastPointer(path, false, runtime, () -> mv.visitInsn(RETURN))) {
            mv.visitLabel(runtime);
            bodies.callNodes(mv, RuntimeMethods.ACTIVATE, snode, dims, -1);
            mv.visitInsn(POP);
            mv.visitInsn(RETURN);
        }
        bodies.end(mv);
    }

    private void emitDeactivateAll(SNode snode) {
        MethodEmitter mv = bodies.begin("deactivateAll_" + nodeName(snode), "()V", true, List.of());
        owner.getConstant(mv, "ROOT"); // with no sparse node below, the runtime touches no memory
        mv.invoke(RuntimeMethods.CHECK_ALIVE);
        owner.getConstant(mv, "STRUCTURE");
        owner.getConstant(mv, "SNODE_" + snode.id());
        mv.invoke(RuntimeMethods.DEACTIVATE_ALL);
        mv.visitInsn(RETURN);
        bodies.end(mv);
    }

    /**
     * Where the path to {@code snode}'s cell has no sparse step (every level dense: its cells are
     * always active and the walk loads nothing), {@code ClosedRuntime.checkAlive(ROOT)}, so that
     * the method fails after close as the ones that load do.
     */
    private void checkAliveWhereNothingIsLoaded(MethodEmitter mv, SNode snode) {
        if (plan.path(snode).stream().noneMatch(step -> step.node().kind().isSparse())) {
            owner.getConstant(mv, "ROOT");
            mv.invoke(RuntimeMethods.CHECK_ALIVE);
        }
    }
}
