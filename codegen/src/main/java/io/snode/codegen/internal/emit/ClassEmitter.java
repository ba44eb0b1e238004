package io.snode.codegen.internal.emit;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.CHECKCAST;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.PUTSTATIC;
import static org.objectweb.asm.Opcodes.RETURN;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * One generated class: a public final class (implementing the given interfaces) with a source
 * attribute that says what it was made from, whose runtime objects are {@code private static
 * final} fields set in {@code <clinit>} from the class data ({@code MethodHandles.classData},
 * a {@code List} in {@link #classData()} order), as the JDK's generators pass live objects. Every
 * emitter of the module writes its class through one of these, so the class-file version, the
 * frame computation and the class-data loading are written once.
 */
public final class ClassEmitter {
    private final ClassWriter writer;
    private final String className;
    private final Map<String, Type> constants = new LinkedHashMap<>();
    /** Constants whose value the class file holds (ConstantValue), not the class data. */
    private final Map<String, Type> literals = new LinkedHashMap<>();
    private final List<Object> classData = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    /**
     * @param source     the source attribute: what the class was made from (stack traces print it
     *                   as the file name)
     * @param interfaces internal names of the interfaces the class implements
     */
    public ClassEmitter(String className, String source, String... interfaces) {
        this.className = className;
        this.writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String first, String second) {
                return "java/lang/Object"; // only object locals merge, and only with themselves
            }
        };
        writer.visit(Opcodes.V25, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object",
                interfaces.length == 0 ? null : interfaces);
        writer.visitSource(source, null);
    }

    public String className() {
        return className;
    }

    /** The writer, for what is not a constant or a method (instance fields). */
    public ClassWriter writer() {
        return writer;
    }

    /**
     * Declares constant {@code name} of {@code type}, loaded from the class data with value
     * {@code value}; {@code meaning} says what it is and where it comes from (see {@link #constantNotes}).
     */
    public void constant(String name, Class<?> type, Object value, String meaning) {
        writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, name, Type.getDescriptor(type), null, null)
                .visitEnd();
        constants.put(name, Type.getType(type));
        classData.add(value);
        notes.add(name + ": " + meaning);
    }

    /**
     * Declares constant {@code name}, a {@code long} with value {@code value} in the class file
     * (its ConstantValue attribute: the dump shows the number); {@code meaning} says how the
     * number follows from the plan and the runtime (see {@link #constantNotes}).
     */
    public void longConstant(String name, long value, String meaning) {
        writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, name, "J", null, value).visitEnd();
        literals.put(name, Type.LONG_TYPE);
        notes.add(name + " = " + value + ": " + meaning);
    }

    /**
     * One line per constant, in declaration order: its name (and value, where the class file
     * holds it), then what it is and where its value comes from, so that a dump of the class
     * explains every constant it reads ({@link io.snode.codegen.GeneratedClass#disassembly}).
     */
    public List<String> constantNotes() {
        return List.copyOf(notes);
    }

    /** Whether constant {@code name} was declared. */
    public boolean hasConstant(String name) {
        return constants.containsKey(name) || literals.containsKey(name);
    }

    /** Pushes constant {@code name}. */
    public void getConstant(MethodVisitor mv, String name) {
        Type type = constants.containsKey(name) ? constants.get(name) : literals.get(name);
        if (type == null) {
            throw new IllegalArgumentException("name=" + name + " is not a constant of " + className + "; constants: "
                    + constants.keySet() + " " + literals.keySet());
        }
        mv.visitFieldInsn(GETSTATIC, className, name, type.getDescriptor());
    }

    /** The objects the constants are loaded from, in class-data order. */
    public List<Object> classData() {
        return classData;
    }

    /** A public method with named parameters; its body ends with {@link MethodEmitter#end()}. */
    public MethodEmitter method(String name, String descriptor, boolean isStatic, List<String> parameterNames) {
        return method(ACC_PUBLIC | (isStatic ? ACC_STATIC : 0), name, descriptor, parameterNames);
    }

    public MethodEmitter method(int access, String name, String descriptor, List<String> parameterNames) {
        return new MethodEmitter(writer, className, access, name, descriptor, parameterNames);
    }

    /** The class file: {@code <clinit>} (when there are constants) added, the class ended. */
    public byte[] finish() {
        if (!constants.isEmpty()) {
            emitClassDataInitializer();
        }
        writer.visitEnd();
        return writer.toByteArray();
    }

    /**
     * {@code <clinit>}: {@code List data = MethodHandles.classData(lookup(), "_", List.class)}
     * and constant {@code n} from element {@code n}.
     */
    private void emitClassDataInitializer() {
        MethodEmitter mv = method(ACC_STATIC, "<clinit>", "()V", List.of());
        int data = mv.newLocal("data", Type.getType(List.class));
        mv.invoke(RuntimeMethods.LOOKUP);
        mv.visitLdcInsn("_");
        mv.visitLdcInsn(Type.getType(List.class));
        mv.invoke(RuntimeMethods.CLASS_DATA);
        mv.visitTypeInsn(CHECKCAST, Type.getInternalName(List.class));
        mv.visitVarInsn(ASTORE, data);
        int n = 0;
        for (Map.Entry<String, Type> constant : constants.entrySet()) {
            mv.visitVarInsn(ALOAD, data);
            mv.pushInt(n++);
            mv.invoke(RuntimeMethods.LIST_GET);
            mv.visitTypeInsn(CHECKCAST, constant.getValue().getInternalName());
            mv.visitFieldInsn(PUTSTATIC, className, constant.getKey(), constant.getValue().getDescriptor());
        }
        mv.visitInsn(RETURN);
        mv.end();
    }
}
