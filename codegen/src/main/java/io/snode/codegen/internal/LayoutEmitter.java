package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.ATHROW;
import static org.objectweb.asm.Opcodes.BIPUSH;
import static org.objectweb.asm.Opcodes.CHECKCAST;
import static org.objectweb.asm.Opcodes.GETFIELD;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.IAND;
import static org.objectweb.asm.Opcodes.IASTORE;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.ICONST_1;
import static org.objectweb.asm.Opcodes.IDIV;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.IFLT;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.IREM;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.IUSHR;
import static org.objectweb.asm.Opcodes.I2L;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LCONST_1;
import static org.objectweb.asm.Opcodes.LDIV;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LMUL;
import static org.objectweb.asm.Opcodes.LREM;
import static org.objectweb.asm.Opcodes.LRETURN;
import static org.objectweb.asm.Opcodes.LSHL;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LUSHR;
import static org.objectweb.asm.Opcodes.NEWARRAY;
import static org.objectweb.asm.Opcodes.PUTSTATIC;
import static org.objectweb.asm.Opcodes.PUTFIELD;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.SIPUSH;
import static org.objectweb.asm.Opcodes.T_INT;
import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.POP;
import static org.objectweb.asm.Opcodes.LAND;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.AxisSplit;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.PointerWord;
import io.snode.runtime.SNodePlan;
import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Emits the class of one compiled layout: static methods per field ({@code get_}, {@code set_},
 * {@code add_}, and {@code append_} on dynamic nodes) and per SNode ({@code deactivateAll_} on
 * every node, the root included; {@code isActive_}, {@code activate_} on every other node;
 * {@code deactivate_} on sparse nodes; {@code append_}, {@code length_} on dynamic nodes, which
 * with {@code deactivate_} take the list's coordinates, those of the node's parent). Every
 * constant of the plan is a literal in the code: per-level shifts, masks, divisors and strides,
 * container offsets, cell sizes, field offsets. The objects of the
 * runtime (root segment, node managers, ambient cells) are {@code static final} fields set in
 * {@code <clinit>} from the class data, in the order {@link #classData()} lists them.
 *
 * <p>Reads walk the path with the runtime's lookups; an inactive pointer cell leads to its
 * SNode's zeroed ambient cell, an inactive bitmasked cell or a list element past the length
 * returns zero. Writes take the same walk and branch, only when some level is inactive, to the
 * runtime's activation (which rolls back on failure), then store.
 */
public final class LayoutEmitter {
    static final String NODES = "io/snode/runtime/internal/Nodes";
    static final String ATOMICS = "io/snode/runtime/internal/Atomics";
    static final String STRUCTURE = "io/snode/runtime/internal/Structure";
    static final String LOCATION = "io/snode/runtime/internal/Location";
    static final String CELLS = "io/snode/runtime/internal/NodeCells";
    static final String CELL_MANAGER = "io/snode/runtime/internal/CellManager";
    static final String SEGMENT = "java/lang/foreign/MemorySegment";
    static final String SNODE = "io/snode/api/SNode";
    static final String D_SEGMENT = "L" + SEGMENT + ";";
    static final String D_CELLS = "L" + CELLS + ";";

    private final Plan plan;
    private final String className;
    private final List<Object> classData = new ArrayList<>();
    private final List<String[]> staticFields = new ArrayList<>(); // name, descriptor
    private ClassWriter writer;
    /** How the closed-runtime handler names the runtime (set by {@link #startClass}). */
    private String runtimeName;
    /** The method whose body the closed-runtime handler covers, and that handler's end and entry labels. */
    private MethodVisitor guarded;
    private Label guardEnd;
    private Label guardHandler;

    /** Per-method local slots, after the parameters. */
    private int segmentSlot;
    private int offsetSlot;
    private int wordSlot;
    private int indexSlot;
    private int epochSlot;
    /** 0 in static methods, 1 in instance methods (slot 0 holds {@code this}). */
    private int parameterBase;

    /**
     * Characters of the layout's text that the generated classes' source attribute holds (what
     * stack traces print as the file name); longer texts are cut there. The class file holds at
     * most 65,535 bytes in one string, which a layout of some 6,500 fields passes; the full text
     * is {@link #sourceText()}.
     */
    static final int SOURCE_ATTRIBUTE_TEXT = 200;

    /** The longest field name a method name ({@code append_NAME}) can hold in a class file. */
    static final int MAX_FIELD_NAME = 65_535 - "append_".length();

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
                        + field.name().length() + " characters; generated method names (get_NAME, append_NAME)"
                        + " hold at most " + MAX_FIELD_NAME);
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

    /** The name of an SNode in method names: {@code s2_pointer}. */
    public static String nodeName(SNode node) {
        return "s" + node.id() + "_" + node.kind().text();
    }

    /** The objects the class's static fields are loaded from, in class-data order. */
    public List<Object> classData() {
        return classData;
    }

    /**
     * @param objects per constant the emitter asks for: what {@code <clinit>} should load; see
     *                {@link RuntimeObjects}
     */
    public byte[] emit(RuntimeObjects objects) {
        startClass(objects, null);
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
            emitDelegate(snode, "activate_", "activate", "(L" + STRUCTURE + ";L" + SNODE + ";[I)L" + LOCATION + ";",
                    Type.VOID_TYPE, false);
            if (snode.kind().isSparse()) {
                // A list is named by its parent's coordinates, as for append_ and length_.
                emitDelegate(snode, "deactivate_", "deactivate", "(L" + STRUCTURE + ";L" + SNODE + ";[I)Z",
                        Type.BOOLEAN_TYPE, snode.kind() == NodeKind.DYNAMIC);
            }
            if (snode.kind() == NodeKind.DYNAMIC) {
                emitDelegate(snode, "append_", "append", "(L" + STRUCTURE + ";L" + SNODE + ";[I)J", Type.LONG_TYPE, true);
                emitDelegate(snode, "length_", "length", "(L" + STRUCTURE + ";L" + SNODE + ";[I)J", Type.LONG_TYPE, true);
            }
        }
        writer.visitEnd();
        return bytes();
    }

    /** The finished class; a layout too large for one class file is a bad argument, not a crash. */
    private byte[] bytes() {
        try {
            return writer.toByteArray();
        } catch (org.objectweb.asm.ClassTooLargeException | org.objectweb.asm.MethodTooLargeException e) {
            throw new IllegalArgumentException("layout=" + sourceAttribute(plan.layout().toString()).substring(8)
                    + " with " + plan.layout().fields().size() + " fields needs a generated class larger than a class"
                    + " file allows (" + e.getMessage() + "); split it into several layouts", e);
        }
    }

    /** Starts a class (implementing {@code api} when not null) with the plan's runtime objects as constants. */
    private void startClass(RuntimeObjects objects, String api) {
        writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String first, String second) {
                return "java/lang/Object"; // only object locals merge, and only with themselves
            }
        };
        writer.visit(Opcodes.V25, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object",
                api == null ? null : new String[] {api});
        writer.visitSource(sourceAttribute(plan.layout().toString()), null);
        staticFields.clear();
        classData.clear();
        runtimeName = objects.runtimeName() != null ? objects.runtimeName() : "the runtime of layout " + abbreviated(plan.layout().toString());
        constant("STRUCTURE", "L" + STRUCTURE + ";", objects.structure());
        constant("ROOT", D_SEGMENT, objects.root());
        for (SNodePlan node : plan.nodes()) {
            SNode snode = node.snode();
            constant("SNODE_" + snode.id(), "L" + SNODE + ";", snode);
            if (node.hasNodeManager()) {
                constant("CELLS_" + snode.id(), D_CELLS, objects.cells(snode));
                constant("AMBIENT_" + snode.id(), D_SEGMENT, objects.ambient(snode));
            }
            if (node.kind() == NodeKind.DYNAMIC && node.directoryLeafFanout() > 0) {
                constant("DIRECTORY_" + snode.id(), D_CELLS, objects.directories(snode));
            }
        }
        emitStaticInitializer();
    }

    /** The runtime objects the generated class refers to. */
    public interface RuntimeObjects {
        Object structure();

        Object root();

        Object cells(SNode snode);

        Object ambient(SNode snode);

        Object directories(SNode snode);

        /**
         * How messages name the runtime, for example after it was closed; by default
         * {@code "the runtime of layout <text>"}.
         */
        default String runtimeName() {
            return null;
        }
    }

    // ------------------------------------------------------------------ class data

    private void constant(String name, String descriptor, Object value) {
        writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, name, descriptor, null, null).visitEnd();
        staticFields.add(new String[] {name, descriptor});
        classData.add(value);
    }

    private void emitStaticInitializer() {
        emitClassDataInitializer(writer, className, staticFields);
    }

    /**
     * {@code <clinit>}: loads {@code MethodHandles.classData(lookup(), "_", List.class)} and puts
     * element {@code n} into static final field {@code fields[n]} ({name, descriptor}).
     */
    static void emitClassDataInitializer(ClassWriter writer, String className, List<String[]> fields) {
        MethodVisitor mv = writer.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                "()Ljava/lang/invoke/MethodHandles$Lookup;", false);
        mv.visitLdcInsn("_");
        mv.visitLdcInsn(Type.getType(List.class));
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/MethodHandles", "classData",
                "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;", false);
        mv.visitTypeInsn(CHECKCAST, "java/util/List");
        mv.visitVarInsn(ASTORE, 0);
        for (int n = 0; n < fields.size(); n++) {
            String[] field = fields.get(n);
            mv.visitVarInsn(ALOAD, 0);
            pushInt(mv, n);
            mv.visitMethodInsn(INVOKEINTERFACE, "java/util/List", "get", "(I)Ljava/lang/Object;", true);
            mv.visitTypeInsn(CHECKCAST, Type.getType(field[1]).getInternalName());
            mv.visitFieldInsn(PUTSTATIC, className, field[0], field[1]);
        }
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    // ------------------------------------------------------------------ field methods

    private String coordinates(int count) {
        return "I".repeat(count);
    }

    private void emitGet(PlacedField field) {
        ValueType value = ValueType.of(field.type());
        int dims = field.dimensionality();
        MethodVisitor mv = method(getter(field), "(" + coordinates(dims) + ")" + value.type.getDescriptor(), dims,
                true, names(field.axes(), null));
        emitGetBody(mv, field, null);
    }

    /** The body of a read; with a cache, an instance method of an accessor (see {@link #emitAccessor}). */
    private void emitGetBody(MethodVisitor mv, PlacedField field, Cache cache) {
        ValueType value = ValueType.of(field.type());
        emitBoundsChecks(mv, "field=" + field.name(), field.snode());
        Label zero = new Label();
        List<PathStep> path = plan.path(field);
        boolean mayBeInactive = cache == null
                ? emitWalk(mv, path, path.size(), zero, true)
                : emitCachedWalk(mv, field, cache, zero);
        emitFieldAddress(mv, field, value);
        mv.visitMethodInsn(INVOKEINTERFACE, SEGMENT, "get",
                "(" + value.layoutDescriptor() + "J)" + value.type.getDescriptor(), true);
        mv.visitInsn(value.returns());
        if (mayBeInactive) {
            mv.visitLabel(zero);
            mv.visitInsn(value.zero);
            mv.visitInsn(value.returns());
        }
        end(mv);
    }

    /** {@code set_} (plain store) or {@code add_} (atomic add returning the previous value). */
    private void emitStore(PlacedField field, boolean add) {
        ValueType value = ValueType.of(field.type());
        int dims = field.dimensionality();
        Type returns = add ? value.type : Type.VOID_TYPE;
        MethodVisitor mv = method(add ? adder(field) : setter(field),
                "(" + coordinates(dims) + value.type.getDescriptor() + ")" + returns.getDescriptor(),
                dims + value.type.getSize(), true, names(field.axes(), add ? "delta" : "value"));
        emitStoreBody(mv, field, add, null);
    }

    private void emitStoreBody(MethodVisitor mv, PlacedField field, boolean add, Cache cache) {
        ValueType value = ValueType.of(field.type());
        int dims = field.dimensionality();
        emitBoundsChecks(mv, "field=" + field.name(), field.snode());
        Label slow = new Label();
        Label store = new Label();
        List<PathStep> path = plan.path(field);
        boolean mayBeInactive = cache == null
                ? emitWalk(mv, path, path.size(), slow, false)
                : emitCachedWalk(mv, field, cache, slow);
        mv.visitLabel(store);
        if (add) {
            mv.visitVarInsn(ALOAD, segmentSlot);
            mv.visitVarInsn(LLOAD, offsetSlot);
            pushLong(mv, plan.node(field.snode()).fieldOffset(field.slot()));
            mv.visitInsn(LADD);
            mv.visitVarInsn(value.load(), parameterBase + dims);
            mv.visitMethodInsn(INVOKESTATIC, ATOMICS, value.atomicAdd,
                    "(" + D_SEGMENT + "J" + value.type.getDescriptor() + ")" + value.type.getDescriptor(), false);
            mv.visitInsn(value.returns());
        } else {
            emitFieldAddress(mv, field, value);
            mv.visitVarInsn(value.load(), parameterBase + dims);
            mv.visitMethodInsn(INVOKEINTERFACE, SEGMENT, "set",
                    "(" + value.layoutDescriptor() + "J" + value.type.getDescriptor() + ")V", true);
            mv.visitInsn(RETURN);
        }
        if (mayBeInactive) {
            mv.visitLabel(slow);
            emitSlowActivation(mv, field.snode(), dims);
            mv.visitJumpInsn(GOTO, store);
        }
        end(mv);
    }

    // ------------------------------------------------------------------ caching accessors

    /**
     * What an accessor remembers for one field: the cell reached after path step {@code level}
     * (the deepest pointer on the path), keyed by the coordinates divided by {@code divisors}
     * (the sizes below that level), and the epoch in which it was found.
     */
    private record Cache(String prefix, int level, long[] divisors) {
    }

    /** The cache for {@code field}'s accesses, or null when its path has no pointer to skip. */
    private Cache cacheFor(PlacedField field) {
        List<PathStep> path = plan.path(field);
        int level = -1;
        for (int n = 0; n < path.size(); n++) {
            if (path.get(n).node().kind() == NodeKind.POINTER) {
                level = n;
            }
        }
        if (level < 0) {
            return null;
        }
        List<Axis> axes = field.axes();
        long[] divisors = new long[axes.size()];
        List<SNode> chain = field.snode().ancestry();
        for (int n = 0; n < axes.size(); n++) {
            long divisor = 1;
            for (int below = level + 2; below < chain.size(); below++) {
                divisor *= chain.get(below).size(axes.get(n));
            }
            divisors[n] = divisor;
        }
        return new Cache(field.name() + "$", level, divisors);
    }

    /**
     * Uses the remembered cell when the epoch and the key match; otherwise walks to the cached
     * level (inactive levels jump to {@code inactive}) and remembers the cell. Then walks the
     * levels below it.
     */
    private boolean emitCachedWalk(MethodVisitor mv, PlacedField field, Cache cache, Label inactive) {
        List<PathStep> path = plan.path(field);
        int dims = field.dimensionality();
        String owner = className;
        mv.visitFieldInsn(GETSTATIC, className, "STRUCTURE", "L" + STRUCTURE + ";");
        mv.visitMethodInsn(INVOKESTATIC, NODES, "epoch", "(L" + STRUCTURE + ";)J", false);
        mv.visitVarInsn(LSTORE, epochSlot);
        Label miss = new Label();
        Label ready = new Label();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, owner, cache.prefix() + "epoch", "J");
        mv.visitVarInsn(LLOAD, epochSlot);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, miss);
        for (int n = 0; n < dims; n++) {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, owner, cache.prefix() + "key" + n, "I");
            emitKey(mv, n, cache.divisors()[n]);
            mv.visitJumpInsn(Opcodes.IF_ICMPNE, miss);
        }
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, owner, cache.prefix() + "segment", D_SEGMENT);
        mv.visitVarInsn(ASTORE, segmentSlot);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, owner, cache.prefix() + "offset", "J");
        mv.visitVarInsn(LSTORE, offsetSlot);
        mv.visitJumpInsn(GOTO, ready);

        mv.visitLabel(miss);
        emitWalk(mv, path, 0, cache.level() + 1, inactive, false);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, epochSlot);
        mv.visitFieldInsn(PUTFIELD, owner, cache.prefix() + "epoch", "J");
        for (int n = 0; n < dims; n++) {
            mv.visitVarInsn(ALOAD, 0);
            emitKey(mv, n, cache.divisors()[n]);
            mv.visitFieldInsn(PUTFIELD, owner, cache.prefix() + "key" + n, "I");
        }
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, segmentSlot);
        mv.visitFieldInsn(PUTFIELD, owner, cache.prefix() + "segment", D_SEGMENT);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, offsetSlot);
        mv.visitFieldInsn(PUTFIELD, owner, cache.prefix() + "offset", "J");

        mv.visitLabel(ready);
        emitWalk(mv, path, cache.level() + 1, path.size(), inactive, false);
        return true;
    }

    /** Pushes coordinate {@code n} divided by {@code divisor}: the block key on that axis. */
    private void emitKey(MethodVisitor mv, int n, long divisor) {
        mv.visitVarInsn(ILOAD, parameterBase + n);
        if (divisor > 1) {
            if (Long.bitCount(divisor) == 1) {
                pushInt(mv, Long.numberOfTrailingZeros(divisor));
                mv.visitInsn(IUSHR);
            } else {
                pushInt(mv, (int) divisor);
                mv.visitInsn(IDIV);
            }
        }
    }

    /** One method of an application interface and the field operation it performs. */
    public record Binding(java.lang.reflect.Method method, PlacedField field, Operation operation) {
    }

    /** The field operations an interface method can stand for. */
    public enum Operation { GET, SET, ADD, APPEND }

    /**
     * Emits an accessor: a class implementing {@code api} whose field reads, writes and adds
     * remember the last block they reached (per field: the cell below the deepest pointer on the
     * path) and skip the walk while the coordinates stay in that block and the structure's
     * epoch has not changed. One instance serves one thread.
     */
    public byte[] emitAccessor(Class<?> api, List<Binding> bindings, RuntimeObjects objects) {
        startClass(objects, Type.getInternalName(api));
        MethodVisitor init = writer.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        java.util.Set<String> declared = new java.util.HashSet<>();
        for (Binding binding : bindings) {
            Cache cache = binding.operation() == Operation.APPEND ? null : cacheFor(binding.field());
            if (cache != null && declared.add(cache.prefix())) {
                writer.visitField(ACC_PRIVATE, cache.prefix() + "epoch", "J", null, null).visitEnd();
                for (int n = 0; n < binding.field().dimensionality(); n++) {
                    writer.visitField(ACC_PRIVATE, cache.prefix() + "key" + n, "I", null, null).visitEnd();
                }
                writer.visitField(ACC_PRIVATE, cache.prefix() + "segment", D_SEGMENT, null, null).visitEnd();
                writer.visitField(ACC_PRIVATE, cache.prefix() + "offset", "J", null, null).visitEnd();
                init.visitVarInsn(ALOAD, 0);
                pushLong(init, -1);
                init.visitFieldInsn(PUTFIELD, className, cache.prefix() + "epoch", "J");
            }
        }
        init.visitInsn(RETURN);
        end(init);
        for (Binding binding : bindings) {
            java.lang.reflect.Method method = binding.method();
            PlacedField field = binding.field();
            int slots = 0;
            for (Class<?> parameter : method.getParameterTypes()) {
                slots += Type.getType(parameter).getSize();
            }
            List<String> parameterNames = switch (binding.operation()) {
                case GET -> names(field.axes(), null);
                case SET -> names(field.axes(), "value");
                case ADD -> names(field.axes(), "delta");
                case APPEND -> names(field.snode().parent().indexAxes(), "value");
            };
            MethodVisitor mv = method(method.getName(), Type.getMethodDescriptor(method), slots, false, parameterNames);
            Cache cache = cacheFor(field);
            switch (binding.operation()) {
                case GET -> emitGetBody(mv, field, cache);
                case SET -> emitStoreBody(mv, field, false, cache);
                case ADD -> emitStoreBody(mv, field, true, cache);
                case APPEND -> emitFieldAppendBody(mv, field);
            }
        }
        writer.visitEnd();
        return bytes();
    }

    /** {@code append_f(listCoordinates..., value)}: appends an element holding {@code value}. */
    private void emitFieldAppend(PlacedField field) {
        ValueType value = ValueType.of(field.type());
        SNode list = field.snode();
        int dims = list.parent().indexAxes().size();
        MethodVisitor mv = method(appender(field), "(" + coordinates(dims) + value.type.getDescriptor() + ")J",
                dims + value.type.getSize(), true, names(list.parent().indexAxes(), "value"));
        emitFieldAppendBody(mv, field);
    }

    private void emitFieldAppendBody(MethodVisitor mv, PlacedField field) {
        ValueType value = ValueType.of(field.type());
        SNode list = field.snode();
        int dims = list.parent().indexAxes().size();
        emitBoundsChecks(mv, "snode=" + list.parent().path(), list.parent());
        int locationSlot = segmentSlot;
        mv.visitFieldInsn(GETSTATIC, className, "STRUCTURE", "L" + STRUCTURE + ";");
        mv.visitFieldInsn(GETSTATIC, className, "SNODE_" + list.id(), "L" + SNODE + ";");
        emitCoordinateArray(mv, list, dims, list.indexAxes().indexOf(list.axes().get(0)));
        mv.visitMethodInsn(INVOKESTATIC, NODES, "appendAt",
                "(L" + STRUCTURE + ";L" + SNODE + ";[I)L" + LOCATION + ";", false);
        mv.visitVarInsn(ASTORE, locationSlot);
        mv.visitVarInsn(ALOAD, locationSlot);
        mv.visitFieldInsn(GETFIELD, LOCATION, "segment", D_SEGMENT);
        mv.visitFieldInsn(GETSTATIC, "java/lang/foreign/ValueLayout", value.layoutField, value.layoutDescriptor());
        mv.visitVarInsn(ALOAD, locationSlot);
        mv.visitFieldInsn(GETFIELD, LOCATION, "offset", "J");
        pushLong(mv, plan.node(list).fieldOffset(field.slot()));
        mv.visitInsn(LADD);
        mv.visitVarInsn(value.load(), parameterBase + dims);
        mv.visitMethodInsn(INVOKEINTERFACE, SEGMENT, "set",
                "(" + value.layoutDescriptor() + "J" + value.type.getDescriptor() + ")V", true);
        mv.visitVarInsn(ALOAD, locationSlot);
        mv.visitFieldInsn(GETFIELD, LOCATION, "element", "J");
        mv.visitInsn(LRETURN);
        end(mv);
    }

    /** Pushes the segment, the value layout and the field's byte offset. */
    private void emitFieldAddress(MethodVisitor mv, PlacedField field, ValueType value) {
        mv.visitVarInsn(ALOAD, segmentSlot);
        mv.visitFieldInsn(GETSTATIC, "java/lang/foreign/ValueLayout", value.layoutField, value.layoutDescriptor());
        mv.visitVarInsn(LLOAD, offsetSlot);
        long offset = plan.node(field.snode()).fieldOffset(field.slot());
        if (offset != 0) {
            pushLong(mv, offset);
            mv.visitInsn(LADD);
        }
    }

    /** Activates the path to {@code target} through the runtime; leaves segment and offset set. */
    private void emitSlowActivation(MethodVisitor mv, SNode target, int dims) {
        mv.visitFieldInsn(GETSTATIC, className, "STRUCTURE", "L" + STRUCTURE + ";");
        mv.visitFieldInsn(GETSTATIC, className, "SNODE_" + target.id(), "L" + SNODE + ";");
        emitCoordinateArray(mv, target, dims, -1);
        mv.visitMethodInsn(INVOKESTATIC, NODES, "activate",
                "(L" + STRUCTURE + ";L" + SNODE + ";[I)L" + LOCATION + ";", false);
        mv.visitInsn(DUP);
        mv.visitFieldInsn(GETFIELD, LOCATION, "segment", D_SEGMENT);
        mv.visitVarInsn(ASTORE, segmentSlot);
        mv.visitFieldInsn(GETFIELD, LOCATION, "offset", "J");
        mv.visitVarInsn(LSTORE, offsetSlot);
    }

    /**
     * Pushes an {@code int[]} of the coordinate parameters; with {@code insertAt >= 0}, a 0 is
     * inserted there (a dynamic list's own axis, for operations on the whole list).
     */
    private void emitCoordinateArray(MethodVisitor mv, SNode target, int params, int insertAt) {
        int length = params + (insertAt >= 0 ? 1 : 0);
        pushInt(mv, length);
        mv.visitIntInsn(NEWARRAY, T_INT);
        int parameter = 0;
        for (int n = 0; n < length; n++) {
            mv.visitInsn(DUP);
            pushInt(mv, n);
            if (n == insertAt) {
                mv.visitInsn(ICONST_0);
            } else {
                mv.visitVarInsn(ILOAD, parameterBase + parameter++);
            }
            mv.visitInsn(IASTORE);
        }
    }

    // ------------------------------------------------------------------ SNode methods

    private void emitIsActive(SNode snode) {
        int dims = snode.indexAxes().size();
        MethodVisitor mv = method("isActive_" + nodeName(snode), "(" + coordinates(dims) + ")Z", dims, true,
                names(snode.indexAxes(), null));
        emitBoundsChecks(mv, "snode=" + snode.path(), snode);
        List<PathStep> path = plan.path(snode);
        Label inactive = new Label();
        emitWalk(mv, path, path.size() - 1, inactive, false);
        PathStep last = path.getLast();
        SNodePlan node = last.node();
        emitCellIndex(mv, last.splits(), snode);
        mv.visitVarInsn(LSTORE, indexSlot);
        switch (node.kind()) {
            case DENSE -> {
                mv.visitInsn(ICONST_1);
                mv.visitInsn(IRETURN);
            }
            case BITMASKED -> {
                emitMaskWordAddress(mv, last);
                mv.visitVarInsn(LLOAD, indexSlot);
                mv.visitMethodInsn(INVOKESTATIC, NODES, "maskBit", "(" + D_SEGMENT + "JJ)Z", false);
                mv.visitInsn(IRETURN);
            }
            case POINTER -> {
                emitPointerWord(mv, last);
                mv.visitInsn(LCONST_0);
                mv.visitInsn(LCMP);
                mv.visitJumpInsn(IFLE, inactive);
                mv.visitInsn(ICONST_1);
                mv.visitInsn(IRETURN);
            }
            case DYNAMIC -> {
                mv.visitVarInsn(LLOAD, indexSlot);
                emitListLength(mv, last);
                mv.visitInsn(LCMP);
                mv.visitJumpInsn(IFGE, inactive);
                mv.visitInsn(ICONST_1);
                mv.visitInsn(IRETURN);
            }
            case ROOT -> throw new AssertionError();
        }
        mv.visitLabel(inactive);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IRETURN);
        end(mv);
    }

    /**
     * A method that checks its coordinates and hands them to a {@code Nodes} operation; for a
     * whole dynamic list ({@code listCoordinates}) it takes the coordinates of the list's parent.
     */
    private void emitDelegate(SNode snode, String prefix, String operation, String descriptor, Type returns,
                              boolean listCoordinates) {
        SNode shape = listCoordinates ? snode.parent() : snode;
        int dims = shape.indexAxes().size();
        MethodVisitor mv = method(prefix + nodeName(snode), "(" + coordinates(dims) + ")" + returns.getDescriptor(), dims,
                true, names(shape.indexAxes(), null));
        emitBoundsChecks(mv, "snode=" + shape.path(), shape);
        mv.visitFieldInsn(GETSTATIC, className, "STRUCTURE", "L" + STRUCTURE + ";");
        mv.visitFieldInsn(GETSTATIC, className, "SNODE_" + snode.id(), "L" + SNODE + ";");
        emitCoordinateArray(mv, snode, dims, listCoordinates ? snode.indexAxes().indexOf(snode.axes().get(0)) : -1);
        mv.visitMethodInsn(INVOKESTATIC, NODES, operation, descriptor, false);
        if (returns.getSort() == Type.VOID) {
            mv.visitInsn(POP);
            mv.visitInsn(RETURN);
        } else {
            mv.visitInsn(returns.getOpcode(IRETURN));
        }
        end(mv);
    }

    private void emitDeactivateAll(SNode snode) {
        MethodVisitor mv = method("deactivateAll_" + nodeName(snode), "()V", 0, true, List.of());
        mv.visitFieldInsn(GETSTATIC, className, "STRUCTURE", "L" + STRUCTURE + ";");
        mv.visitFieldInsn(GETSTATIC, className, "SNODE_" + snode.id(), "L" + SNODE + ";");
        mv.visitMethodInsn(INVOKESTATIC, NODES, "deactivateAll", "(L" + STRUCTURE + ";L" + SNODE + ";)V", false);
        mv.visitInsn(RETURN);
        end(mv);
    }

    // ------------------------------------------------------------------ the walk

    /**
     * Walks {@code steps[0, levels)} from the root cell, leaving the cell's segment and offset
     * in their locals. Reads ({@code ambient}) step through inactive pointers into the ambient
     * cell; other walks jump to {@code inactive}, as do reads at an inactive bitmasked cell or
     * past a list's length.
     *
     * @return whether any level can jump to {@code inactive}
     */
    private boolean emitWalk(MethodVisitor mv, List<PathStep> steps, int levels, Label inactive, boolean ambient) {
        return emitWalk(mv, steps, 0, levels, inactive, ambient);
    }

    /** Steps {@code [from, to)}; from the root cell when {@code from == 0}, else from the locals. */
    private boolean emitWalk(MethodVisitor mv, List<PathStep> steps, int from, int to, Label inactive,
                             boolean ambient) {
        boolean jumps = false;
        if (from == 0) {
            mv.visitFieldInsn(GETSTATIC, className, "ROOT", D_SEGMENT);
            mv.visitVarInsn(ASTORE, segmentSlot);
            mv.visitInsn(LCONST_0);
            mv.visitVarInsn(LSTORE, offsetSlot);
        }
        SNode target = steps.isEmpty() ? null : steps.getLast().node().snode();
        for (int level = from; level < to; level++) {
            PathStep step = steps.get(level);
            SNodePlan node = step.node();
            emitCellIndex(mv, step.splits(), target);
            mv.visitVarInsn(LSTORE, indexSlot);
            switch (node.kind()) {
                case DENSE -> emitAdvance(mv, step.containerOffset(), node.cellBytes());
                case BITMASKED -> {
                    emitMaskWordAddress(mv, step);
                    mv.visitVarInsn(LLOAD, indexSlot);
                    mv.visitMethodInsn(INVOKESTATIC, NODES, "maskBit", "(" + D_SEGMENT + "JJ)Z", false);
                    mv.visitJumpInsn(IFEQ, inactive);
                    jumps = true;
                    emitAdvance(mv, step.containerOffset() + node.cellsOffset(), node.cellBytes());
                }
                case POINTER -> {
                    emitPointerWord(mv, step);
                    mv.visitVarInsn(LSTORE, wordSlot);
                    String cells = "CELLS_" + node.id();
                    if (ambient) {
                        mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
                        mv.visitVarInsn(LLOAD, wordSlot);
                        mv.visitFieldInsn(GETSTATIC, className, "AMBIENT_" + node.id(), D_SEGMENT);
                        mv.visitMethodInsn(INVOKESTATIC, NODES, "childOrAmbient",
                                "(" + D_CELLS + "J" + D_SEGMENT + ")" + D_SEGMENT, false);
                        mv.visitVarInsn(ASTORE, segmentSlot);
                        mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
                        mv.visitVarInsn(LLOAD, wordSlot);
                        mv.visitMethodInsn(INVOKESTATIC, NODES, "childOrAmbientOffset", "(" + D_CELLS + "J)J", false);
                        mv.visitVarInsn(LSTORE, offsetSlot);
                    } else {
                        mv.visitVarInsn(LLOAD, wordSlot);
                        mv.visitInsn(LCONST_0);
                        mv.visitInsn(LCMP);
                        mv.visitJumpInsn(IFLE, inactive);
                        jumps = true;
                        emitChild(mv, cells);
                    }
                }
                case DYNAMIC -> {
                    jumps = true;
                    mv.visitVarInsn(LLOAD, indexSlot);
                    emitListLength(mv, step);
                    mv.visitInsn(LCMP);
                    mv.visitJumpInsn(IFGE, inactive);
                    mv.visitVarInsn(ALOAD, segmentSlot);
                    emitContainerOffset(mv, step);
                    mv.visitVarInsn(LLOAD, indexSlot);
                    emitDivide(mv, node.chunkSize());
                    if (node.directoryLeafFanout() > 0) {
                        mv.visitFieldInsn(GETSTATIC, className, "DIRECTORY_" + node.id(), D_CELLS);
                    } else {
                        mv.visitInsn(Opcodes.ACONST_NULL);
                    }
                    pushInt(mv, node.directoryLeafFanout());
                    mv.visitMethodInsn(INVOKESTATIC, NODES, "chunkReference",
                            "(" + D_SEGMENT + "JJL" + CELL_MANAGER + ";I)J", false);
                    mv.visitVarInsn(LSTORE, wordSlot);
                    mv.visitVarInsn(LLOAD, wordSlot);
                    mv.visitInsn(LCONST_0);
                    mv.visitInsn(LCMP);
                    mv.visitJumpInsn(IFEQ, inactive);
                    emitChild(mv, "CELLS_" + node.id());
                    // offset += (index % chunk) * cellBytes
                    mv.visitVarInsn(LLOAD, offsetSlot);
                    mv.visitVarInsn(LLOAD, indexSlot);
                    emitRemainder(mv, node.chunkSize());
                    emitMultiply(mv, node.cellBytes());
                    mv.visitInsn(LADD);
                    mv.visitVarInsn(LSTORE, offsetSlot);
                }
                case ROOT -> throw new AssertionError();
            }
        }
        return jumps;
    }

    /** segment, offset := the child cell of the active word in the word local. */
    private void emitChild(MethodVisitor mv, String cells) {
        mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
        mv.visitVarInsn(LLOAD, wordSlot);
        mv.visitMethodInsn(INVOKESTATIC, NODES, "child", "(" + D_CELLS + "J)" + D_SEGMENT, false);
        mv.visitVarInsn(ASTORE, segmentSlot);
        mv.visitFieldInsn(GETSTATIC, className, cells, D_CELLS);
        mv.visitVarInsn(LLOAD, wordSlot);
        mv.visitMethodInsn(INVOKESTATIC, NODES, "childOffset", "(" + D_CELLS + "J)J", false);
        mv.visitVarInsn(LSTORE, offsetSlot);
    }

    /** offset := offset + base + index * cellBytes. */
    private void emitAdvance(MethodVisitor mv, long base, long cellBytes) {
        mv.visitVarInsn(LLOAD, offsetSlot);
        if (base != 0) {
            pushLong(mv, base);
            mv.visitInsn(LADD);
        }
        mv.visitVarInsn(LLOAD, indexSlot);
        emitMultiply(mv, cellBytes);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, offsetSlot);
    }

    /** Pushes segment, then offset + container + (index >>> 6) * 8: the mask word of the index. */
    private void emitMaskWordAddress(MethodVisitor mv, PathStep step) {
        mv.visitVarInsn(ALOAD, segmentSlot);
        emitContainerOffset(mv, step);
        mv.visitVarInsn(LLOAD, indexSlot);
        pushInt(mv, 6);
        mv.visitInsn(LUSHR);
        pushInt(mv, 3);
        mv.visitInsn(LSHL);
        mv.visitInsn(LADD);
    }

    /** Pushes the pointer word of the index (acquire load). */
    private void emitPointerWord(MethodVisitor mv, PathStep step) {
        mv.visitVarInsn(ALOAD, segmentSlot);
        emitContainerOffset(mv, step);
        mv.visitVarInsn(LLOAD, indexSlot);
        pushInt(mv, Long.numberOfTrailingZeros(PointerWord.BYTES));
        mv.visitInsn(LSHL);
        mv.visitInsn(LADD);
        mv.visitMethodInsn(INVOKESTATIC, NODES, "pointerWord", "(" + D_SEGMENT + "J)J", false);
    }

    /** Pushes the length of the list whose header is this step's container. */
    private void emitListLength(MethodVisitor mv, PathStep step) {
        mv.visitVarInsn(ALOAD, segmentSlot);
        emitContainerOffset(mv, step);
        mv.visitMethodInsn(INVOKESTATIC, NODES, "listLength", "(" + D_SEGMENT + "J)J", false);
    }

    /** Pushes offset + the step's container offset. */
    private void emitContainerOffset(MethodVisitor mv, PathStep step) {
        mv.visitVarInsn(LLOAD, offsetSlot);
        if (step.containerOffset() != 0) {
            pushLong(mv, step.containerOffset());
            mv.visitInsn(LADD);
        }
    }

    /**
     * Pushes a level's cell index as a long: per axis, the coordinate's local index times the
     * axis stride. A remainder is left out where the coordinate cannot exceed it (the level is
     * the outermost on its axis), and a size of 1 contributes nothing.
     */
    private void emitCellIndex(MethodVisitor mv, List<AxisSplit> splits, SNode target) {
        boolean first = true;
        for (AxisSplit split : splits) {
            if (split.size() == 1) {
                continue;
            }
            mv.visitVarInsn(ILOAD, parameterBase + split.coordinate());
            if (split.divisor() > 1) {
                if (split.shift() >= 0) {
                    pushInt(mv, split.shift());
                    mv.visitInsn(IUSHR);
                } else {
                    pushInt(mv, (int) split.divisor());
                    mv.visitInsn(IDIV);
                }
            }
            boolean outermost = target != null && split.divisor() * split.size() == target.extent(split.axis());
            if (!outermost) {
                if (split.mask() >= 0) {
                    pushInt(mv, split.mask());
                    mv.visitInsn(IAND);
                } else {
                    pushInt(mv, split.size());
                    mv.visitInsn(IREM);
                }
            }
            mv.visitInsn(I2L);
            if (split.stride() != 1) {
                emitMultiply(mv, split.stride());
            }
            if (!first) {
                mv.visitInsn(LADD);
            }
            first = false;
        }
        if (first) {
            mv.visitInsn(LCONST_0);
        }
    }

    /** Multiplies the long on the stack by a constant: a shift for powers of two. */
    private static void emitMultiply(MethodVisitor mv, long factor) {
        if (factor == 1) {
            return;
        }
        if (Long.bitCount(factor) == 1) {
            pushInt(mv, Long.numberOfTrailingZeros(factor));
            mv.visitInsn(LSHL);
        } else {
            pushLong(mv, factor);
            mv.visitInsn(LMUL);
        }
    }

    private static void emitDivide(MethodVisitor mv, long divisor) {
        if (divisor == 1) {
            return;
        }
        if (Long.bitCount(divisor) == 1) {
            pushInt(mv, Long.numberOfTrailingZeros(divisor));
            mv.visitInsn(LUSHR);
        } else {
            pushLong(mv, divisor);
            mv.visitInsn(LDIV);
        }
    }

    private static void emitRemainder(MethodVisitor mv, long divisor) {
        if (Long.bitCount(divisor) == 1) {
            pushLong(mv, divisor - 1);
            mv.visitInsn(LAND);
        } else {
            pushLong(mv, divisor);
            mv.visitInsn(LREM);
        }
    }

    /** Throws the runtime's out-of-bounds exception unless 0 <= coordinate < extent, per axis. */
    private void emitBoundsChecks(MethodVisitor mv, String what, SNode shape) {
        List<Axis> axes = shape.indexAxes();
        int[] extents = shape.indexShape();
        for (int n = 0; n < axes.size(); n++) {
            Label inside = new Label();
            mv.visitVarInsn(ILOAD, parameterBase + n);
            pushInt(mv, extents[n]);
            mv.visitMethodInsn(INVOKESTATIC, "java/lang/Integer", "compareUnsigned", "(II)I", false);
            mv.visitJumpInsn(IFLT, inside);
            mv.visitLdcInsn(what);
            pushInt(mv, axes.get(n).letter());
            mv.visitVarInsn(ILOAD, parameterBase + n);
            pushInt(mv, extents[n]);
            mv.visitMethodInsn(INVOKESTATIC, NODES, "outside",
                    "(Ljava/lang/String;CII)Ljava/lang/IndexOutOfBoundsException;", false);
            mv.visitInsn(ATHROW);
            mv.visitLabel(inside);
        }
    }

    // ------------------------------------------------------------------ plumbing

    /** Parameter names: the axis letters of the coordinates, then the value's name if any. */
    private static List<String> names(List<Axis> axes, String value) {
        List<String> names = new ArrayList<>();
        for (Axis axis : axes) {
            names.add(String.valueOf(axis.letter()));
        }
        if (value != null) {
            names.add(value);
        }
        return names;
    }

    private MethodVisitor method(String name, String descriptor, int parameterSlots, boolean isStatic,
                                 List<String> parameterNames) {
        parameterBase = isStatic ? 0 : 1;
        segmentSlot = parameterBase + parameterSlots;
        offsetSlot = segmentSlot + 1;
        wordSlot = offsetSlot + 2;
        indexSlot = wordSlot + 2;
        epochSlot = indexSlot + 2;
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC | (isStatic ? ACC_STATIC : 0), name, descriptor, null, null);
        for (String parameter : parameterNames) {
            mv.visitParameter(parameter, 0);
        }
        mv.visitCode();
        // The whole body is covered by the closed-runtime handler (see end).
        Label start = new Label();
        guarded = mv;
        guardEnd = new Label();
        guardHandler = new Label();
        mv.visitTryCatchBlock(start, guardEnd, guardHandler, "java/lang/IllegalStateException");
        mv.visitLabel(start);
        return mv;
    }

    /**
     * Ends a method; one begun by {@link #method} gets its handler first: an
     * IllegalStateException (FFM's "Already closed" after the runtime's memory was freed)
     * becomes {@link ClosedRuntime#translate}'s, which names the runtime. Nothing runs on the
     * normal path: the handler is reached only through the exception table.
     */
    private void end(MethodVisitor mv) {
        if (guarded == mv) {
            mv.visitLabel(guardEnd);
            mv.visitLabel(guardHandler);
            mv.visitFieldInsn(GETSTATIC, className, "ROOT", D_SEGMENT);
            mv.visitLdcInsn(runtimeName);
            mv.visitMethodInsn(INVOKESTATIC, "io/snode/codegen/internal/ClosedRuntime", "translate",
                    "(Ljava/lang/IllegalStateException;" + D_SEGMENT
                            + "Ljava/lang/String;)Ljava/lang/IllegalStateException;", false);
            mv.visitInsn(ATHROW);
            guarded = null;
        }
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    static void pushInt(MethodVisitor mv, int value) {
        if (value >= -1 && value <= 5) {
            mv.visitInsn(ICONST_0 + value);
        } else if (value >= Byte.MIN_VALUE && value <= Byte.MAX_VALUE) {
            mv.visitIntInsn(BIPUSH, value);
        } else if (value >= Short.MIN_VALUE && value <= Short.MAX_VALUE) {
            mv.visitIntInsn(SIPUSH, value);
        } else {
            mv.visitLdcInsn(value);
        }
    }

    static void pushLong(MethodVisitor mv, long value) {
        if (value == 0) {
            mv.visitInsn(LCONST_0);
        } else if (value == 1) {
            mv.visitInsn(LCONST_1);
        } else {
            mv.visitLdcInsn(value);
        }
    }
}
