package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.RETURN;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.HiddenClasses;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.RuntimeMethods;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import org.objectweb.asm.Type;

/**
 * Implements an application's interface over a compiled layout (a class written by the
 * module's {@link ClassEmitter}, as every generated class is). Each abstract
 * method is matched to a field by name and signature, and its body is one {@code invokedynamic}
 * whose call site {@link Anchor#bind} links to the generated method: the JIT sees a constant
 * target and inlines it. The implementation is a hidden class whose class data holds the
 * generated methods' handles, so it unloads with the layout's class. It is defined where the
 * interface is visible ({@link ImplementationHost}), so interfaces of other class loaders
 * (plugins, the source launcher) can be bound.
 *
 * <p>Accepted methods, for a field {@code phi} of type {@code T} with coordinates {@code c...}:
 * {@code T phi(c...)} or {@code T getPhi(c...)} (read); {@code void phi(c..., T)} or
 * {@code void setPhi(c..., T)} (write); {@code T addPhi(c..., T)} (atomic add, returns the
 * previous value); {@code long appendPhi(listCoordinates..., T)} for fields of dynamic nodes.
 * Default methods are left alone.
 */
public final class InterfaceBinder {
    private InterfaceBinder() {
    }

    /**
     * @param className        the implementation's internal name, unique in this copy of the library (as every
     *                         generated class's, so that a dump of them keeps each)
     * @param generatedMethods the compiled layout's method handle for a generated method name
     * @param listing          receives the implementation class once it is defined (the
     *                         runtime lists it in {@code generatedCode()})
     */
    public static <T> T bind(Class<T> api, Layout layout, String className,
                             Function<String, MethodHandle> generatedMethods, Consumer<GeneratedClass> listing) {
        List<LayoutEmitter.Binding> bindings = bindings(api, layout, null);
        checkVisitedCell(bindings, null);
        List<Object> targets = new ArrayList<>();
        ClassEmitter owner = new ClassEmitter(className,
                "binds " + api.getName() + " to layout " + LayoutEmitter.abbreviated(layout.toString()),
                Type.getInternalName(api));
        MethodEmitter init = owner.method(ACC_PUBLIC, "<init>", "()V", List.of());
        init.visitVarInsn(ALOAD, 0);
        init.invoke(RuntimeMethods.OBJECT_INIT);
        init.visitInsn(RETURN);
        init.end();
        for (LayoutEmitter.Binding binding : bindings) {
            Method method = binding.method();
            MethodHandle target = generatedMethods.apply(generatedName(binding));
            if (!target.type().equals(MethodType.methodType(method.getReturnType(), method.getParameterTypes()))) {
                throw mismatch(method, "the generated method is " + target.type());
            }
            emitForward(owner, binding, targets.size());
            targets.add(target);
        }
        byte[] bytes = owner.finish();
        GeneratedClass code = new GeneratedClass(owner.className(), bytes,
                "implements " + api.getName() + " with one invokedynamic per method, linked to the generated method"
                        + " of layout " + LayoutEmitter.abbreviated(layout.toString()));
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(ImplementationHost.lookupFor(api), code, targets);
            listing.accept(code);
            Object instance = hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke();
            return api.cast(instance);
        } catch (Throwable e) {
            throw cannotDefine("the implementation", api, e);
        }
    }

    /**
     * {@code method(args) { return invokedynamic method(args) }}, bootstrapped by
     * {@link Anchor#bind} with {@code index}: the call links to generated method number
     * {@code index} of the class data.
     */
    private static void emitForward(ClassEmitter owner, LayoutEmitter.Binding binding, int index) {
        Method method = binding.method();
        String descriptor = Type.getMethodDescriptor(method);
        MethodEmitter mv = owner.method(ACC_PUBLIC, method.getName(), descriptor, FieldBodies.names(binding));
        Type[] parameters = Type.getArgumentTypes(descriptor);
        for (int n = 0; n < parameters.length; n++) {
            mv.visitVarInsn(parameters[n].getOpcode(ILOAD), mv.parameter(n));
        }
        mv.visitInvokeDynamicInsn(method.getName(), descriptor, RuntimeMethods.BIND.handle(), index);
        mv.visitInsn(Type.getReturnType(descriptor).getOpcode(IRETURN));
        mv.end();
    }

    /**
     * The exception for an implementation of {@code api} that could not be defined: where the
     * interface lies in a package its named module does not export to everyone, the export to
     * add (the implementation is defined in the library's module or, for an interface of another
     * class loader, in the unnamed module of a class loader of the library's, which a qualified
     * {@code exports ... to} cannot name); else in which class loaders the interface and the
     * library live.
     */
    public static IllegalStateException cannotDefine(String what, Class<?> api, Throwable cause) {
        if (cause instanceof IllegalStateException known && known.getMessage() != null
                && known.getMessage().startsWith("cannot implement ")) {
            return known;
        }
        Module module = api.getModule();
        String pkg = api.getPackageName();
        if (cause instanceof IllegalAccessError && module.isNamed() && !module.isExported(pkg)) {
            return new IllegalStateException("cannot define " + what + " of " + api.getName() + ": module "
                    + module.getName() + " does not export package " + pkg + " to the class the library defines for it; "
                    + "add 'exports " + pkg + ";' to " + module.getName() + "'s module-info.java (in the boot layer "
                    + "'exports " + pkg + " to io.snode.codegen;' also does where the library is a module of it): "
                    + cause, cause);
        }
        return new IllegalStateException("cannot define " + what + " of " + api.getName() + " (loaded by "
                + api.getClassLoader() + "; the library by " + Anchor.class.getClassLoader() + "): " + cause, cause);
    }

    /**
     * The methods of {@code api} to implement, each with its field and operation. Object's public
     * methods declared again in the interface ({@code equals}, {@code hashCode}, {@code toString})
     * are not among them: every class, the generated ones too, has Object's. {@code visited} is
     * the SNode a view visits, null for a bound interface or an accessor (which visit nothing):
     * a visited-cell form of a field elsewhere does not count as a fit where another field's form
     * does (outside views, a coordinate-free {@code getV()} is then a root field's read).
     */
    public static List<LayoutEmitter.Binding> bindings(Class<?> api, Layout layout, SNode visited) {
        if (!api.isInterface() || !Modifier.isPublic(api.getModifiers())) {
            throw new IllegalArgumentException("api=" + api.getName() + " must be a public interface");
        }
        List<LayoutEmitter.Binding> bindings = new ArrayList<>();
        for (Method method : api.getMethods()) {
            if (Modifier.isAbstract(method.getModifiers()) && !isObjectMethod(method)) {
                bindings.add(resolve(method, layout, visited));
            }
        }
        return bindings;
    }

    /** Whether {@code method} has the signature of a public method of Object (which every class implements). */
    private static boolean isObjectMethod(Method method) {
        for (Method objects : Object.class.getMethods()) {
            if (objects.getName().equals(method.getName())
                    && Arrays.equals(objects.getParameterTypes(), method.getParameterTypes())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a view can access the cell it visits of {@code snode} without coordinates (see {@link #checkVisitedCell}). */
    private static boolean hasVisitedCell(SNode snode) {
        NodeKind kind = snode.kind();
        return kind == NodeKind.DENSE || kind == NodeKind.BITMASKED || kind == NodeKind.DYNAMIC;
    }

    /**
     * Throws IllegalArgumentException for a read or write of the visited cell ({@code CELL_GET},
     * {@code CELL_SET}) unless {@code visited} is that field's SNode and a dense or bitmasked node
     * (a container of cells in one piece of memory) or a dynamic node (a list's elements, in
     * chunks): {@code visited} null, for a bound interface or an accessor, which visit nothing,
     * refuses every such read.
     */
    public static void checkVisitedCell(List<LayoutEmitter.Binding> bindings, SNode visited) {
        for (LayoutEmitter.Binding binding : bindings) {
            if (!binding.operation().ofVisitedCell()) {
                continue;
            }
            PlacedField field = binding.field();
            if (visited == null) {
                throw mismatch(binding.method(), "without coordinates it accesses the cell a per-cell launch visits,"
                        + " which only the view of forEach(snode, api, ViewKernel) has; field " + field.name()
                        + " has " + field.dimensionality() + " coordinates " + field.axes());
            }
            if (field.snode() != visited) {
                throw mismatch(binding.method(), "it accesses the visited cell's " + field.name() + ", which is placed on "
                        + field.snode().path() + ", but this launch visits " + visited.path());
            }
            if (!hasVisitedCell(visited)) {
                throw mismatch(binding.method(), "an access of the visited cell needs a dense, bitmasked or dynamic"
                        + " SNode; " + visited.path() + " is " + visited.kind().text() + " (access it with coordinates)");
            }
        }
    }

    private static String generatedName(LayoutEmitter.Binding binding) {
        return switch (binding.operation()) {
            case CELL_GET, CELL_SET -> throw new AssertionError("checkVisitedCell refuses the visited cell here");
            case GET -> LayoutEmitter.getter(binding.field());
            case SET -> LayoutEmitter.setter(binding.field());
            case ADD -> LayoutEmitter.adder(binding.field());
            case APPEND -> LayoutEmitter.appender(binding.field());
        };
    }

    /**
     * The field operation that {@code method} stands for, or an exception that says why none. A
     * name can be a form of several fields ({@code getX} reads field {@code x} and is field
     * {@code getX}'s own name; {@code addPhi} adds to {@code phi} and to {@code Phi}): the method
     * binds to the one field whose form its signature takes, whatever the fields' order, and
     * where several fit it is refused with the names only one of them has.
     */
    private static LayoutEmitter.Binding resolve(Method method, Layout layout, SNode visited) {
        List<LayoutEmitter.Binding> fits = new ArrayList<>();
        List<PlacedField> named = new ArrayList<>();
        for (PlacedField field : layout.fields()) {
            Forms forms = new Forms(field, method.getName());
            if (forms.none()) {
                continue;
            }
            named.add(field);
            LayoutEmitter.Binding binding = forms.fit(method);
            if (binding != null) {
                fits.add(binding);
            }
        }
        if (fits.size() > 1) {
            // A visited-cell form of a field this context does not visit cannot be what is meant
            // where another form fits (checkVisitedCell refuses it alone, with its own message).
            fits.removeIf(fit -> (fit.operation() == LayoutEmitter.Operation.CELL_GET
                    || fit.operation() == LayoutEmitter.Operation.CELL_SET) && fit.field().snode() != visited);
        }
        if (fits.size() == 1) {
            return fits.getFirst();
        }
        if (fits.size() > 1) {
            List<String> others = new ArrayList<>();
            for (LayoutEmitter.Binding fit : fits) {
                for (String other : otherNames(fit)) {
                    if (!other.equals(method.getName())) {
                        others.add(other);
                    }
                }
            }
            throw mismatch(method, "it is " + String.join(" and ", fits.stream().map(f -> operationText(f.operation())
                    + " field " + f.field().name()).toList())
                    + (others.isEmpty() ? "; rename a field, or use the runtime's method handles (getter, setter,"
                    + " adder, appender)" : "; name it " + String.join(" or ", others) + " instead"));
        }
        if (named.isEmpty()) {
            throw mismatch(method, "no field of layout " + layout + " is called by that name; fields: "
                    + String.join(", ", layout.fields().stream().map(PlacedField::name).toList()));
        }
        throw mismatch(method, String.join("; ", named.stream().map(field -> "field " + field.name() + " is "
                + field.type() + " with " + field.dimensionality() + " coordinates; expected "
                + expected(field, capital(field))).toList()));
    }

    private static String operationText(LayoutEmitter.Operation operation) {
        return switch (operation) {
            case GET -> "the read of";
            case SET -> "the write of";
            case ADD -> "the add to";
            case APPEND -> "the append to";
            case CELL_GET -> "the visited cell's read of";
            case CELL_SET -> "the visited cell's write of";
        };
    }

    private static String capital(PlacedField field) {
        return field.name().substring(0, 1).toUpperCase(Locale.ROOT) + field.name().substring(1);
    }

    /** The names of {@code binding}'s operation on its field (a read: {@code phi} and {@code getPhi}). */
    private static List<String> otherNames(LayoutEmitter.Binding binding) {
        String name = binding.field().name();
        String capital = capital(binding.field());
        return switch (binding.operation()) {
            case GET, CELL_GET -> List.of(name, "get" + capital);
            case SET, CELL_SET -> List.of(name, "set" + capital);
            case ADD -> List.of("add" + capital);
            case APPEND -> List.of("append" + capital);
        };
    }

    /** Which of {@code field}'s forms a method called {@code name} may be. */
    private record Forms(PlacedField field, boolean read, boolean write, boolean add, boolean append) {
        Forms(PlacedField field, String name) {
            this(field, name.equals(field.name()) || name.equals("get" + capital(field)),
                    name.equals(field.name()) || name.equals("set" + capital(field)),
                    name.equals("add" + capital(field)), name.equals("append" + capital(field)));
        }

        boolean none() {
            return !(read || write || add || append);
        }

        /** The binding when {@code method}'s signature takes one of these forms, else null. */
        LayoutEmitter.Binding fit(Method method) {
            Class<?>[] parameters = method.getParameterTypes();
            Class<?> returns = method.getReturnType();
            Class<?> type = field.type().javaType();
            int dims = field.dimensionality();
            if (read && returns == type && coordinatesOnly(parameters, dims)) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.GET);
            }
            if (read && returns == type && parameters.length == 0 && dims > 0) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.CELL_GET);
            }
            if (write && returns == void.class && parameters.length == 1 && parameters[0] == type && dims > 0) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.CELL_SET);
            }
            if (write && returns == void.class && coordinatesThen(parameters, dims, type)) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.SET);
            }
            if (add && returns == type && coordinatesThen(parameters, dims, type)) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.ADD);
            }
            if (append && field.snode().kind() == NodeKind.DYNAMIC && returns == long.class
                    && coordinatesThen(parameters, field.snode().parent().indexAxes().size(), type)) {
                return new LayoutEmitter.Binding(method, field, LayoutEmitter.Operation.APPEND);
            }
            return null;
        }
    }

    /** The forms a method of {@code field} may take, for the message of a method that takes none of them. */
    private static String expected(PlacedField field, String capital) {
        String type = field.type().javaType().getName();
        String coordinates = String.join(", ", field.axes().stream().map(a -> "int " + a.letter()).toList());
        String withValue = coordinates.isEmpty() ? type + " value" : coordinates + ", " + type + " value";
        String forms = type + " " + field.name() + "(" + coordinates + "), void " + field.name() + "(" + withValue
                + ")" + (field.snode().kind() == NodeKind.DYNAMIC ? ", " : " or ") + type + " add" + capital
                + "(" + withValue + ")";
        if (field.snode().kind() == NodeKind.DYNAMIC) {
            // An append takes the list's coordinates (its parent's) and returns the element's index.
            String list = String.join(", ", field.snode().parent().indexAxes().stream()
                    .map(a -> "int " + a.letter()).toList());
            forms += " or long append" + capital + "(" + (list.isEmpty() ? "" : list + ", ") + type + " value)";
        }
        if (!coordinates.isEmpty() && hasVisitedCell(field.snode())) {
            forms += " (in a view also " + type + " " + field.name() + "() and void " + field.name() + "(" + type
                    + " value) for the visited cell)";
        }
        return forms;
    }

    private static boolean coordinatesOnly(Class<?>[] parameters, int dims) {
        if (parameters.length != dims) {
            return false;
        }
        for (Class<?> parameter : parameters) {
            if (parameter != int.class) {
                return false;
            }
        }
        return true;
    }

    private static boolean coordinatesThen(Class<?>[] parameters, int dims, Class<?> value) {
        if (parameters.length != dims + 1 || parameters[dims] != value) {
            return false;
        }
        for (int n = 0; n < dims; n++) {
            if (parameters[n] != int.class) {
                return false;
            }
        }
        return true;
    }

    private static IllegalArgumentException mismatch(Method method, String why) {
        return new IllegalArgumentException(method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + MethodType.methodType(method.getReturnType(), method.getParameterTypes()) + " cannot be bound: "
                + why);
    }
}
