package io.snode.codegen.internal;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.emit.HiddenClasses;
import io.snode.codegen.internal.structfor.ViewDriver;
import io.snode.runtime.Plan;
import io.snode.runtime.internal.NodeTree;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The generated code of one compiled layout: the layout class (defined when this object is
 * made), the implementations bound to application interfaces, the caching accessor classes and
 * the struct-for drivers registered as they are defined. Every class goes through
 * {@link HiddenClasses#define}, so the verify and dump switches and {@link #generatedCode()}
 * see them all. Binding and accessor classes are defined once per interface and kept.
 */
public final class GeneratedLayout {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    /** The internal name of a new generated class: {@code kind} and a number no other class of this library copy has. */
    private static String nextName(String kind) {
        return "io/snode/codegen/generated/" + kind + SEQUENCE.incrementAndGet();
    }

    /**
     * The internal name of a new layout class, taken before its runtime is created so that the
     * runtime can carry it from its first allocation ({@link #simpleName}: its label).
     */
    public static String nextLayoutName() {
        return nextName("Layout");
    }

    /** The part of an internal class name after its package: "Layout17". */
    public static String simpleName(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }

    private final Layout layout;
    private final Plan plan;
    private final GeneratedClass code;
    private final MethodHandles.Lookup generated;
    private final LayoutEmitter.RuntimeObjects objects;
    /** Accessor constructors by interface: one class per interface, a new instance per call. */
    private final Map<Class<?>, MethodHandle> accessors = new ConcurrentHashMap<>();
    /** Bound implementations by interface: stateless, so one per interface serves every {@link #bind} call. */
    private final Map<Class<?>, Object> bound = new ConcurrentHashMap<>();
    private final List<GeneratedClass> extraCode = new CopyOnWriteArrayList<>();
    /** View driver constructors by interface, kernel class and target: a new instance per task. */
    private final Map<List<Object>, MethodHandle> viewDrivers = new ConcurrentHashMap<>();

    /** Emits and defines the layout class of {@code tree}'s plan, whose runtime is named by {@link #describe}. */
    /** @param layoutName the layout class's internal name, from {@link #nextLayoutName()} */
    public GeneratedLayout(Layout layout, NodeTree tree, String layoutName) {
        this.layout = layout;
        this.plan = tree.plan();
        String name = Objects.requireNonNull(layoutName, "layoutName");
        LayoutEmitter emitter = new LayoutEmitter(plan, name);
        this.objects = new NodeTreeObjects(tree, describe(name, layout));
        byte[] bytes = emitter.emit(objects);
        this.code = new GeneratedClass(name, bytes, plan.describe(), emitter.sourceText(), emitter.constantNotes());
        try {
            this.generated = HiddenClasses.define(Anchor.lookup(), code, emitter.classData());
        } catch (IllegalAccessException e) {
            throw new AssertionError("the anchor's lookup defines classes in its own package", e);
        }
    }

    /** {@code SNodeRuntime Layout<n> of layout <text>}: names the runtime in messages, e.g. after close. */
    public String describe() {
        return describe(code.name(), layout);
    }

    private static String describe(String className, Layout layout) {
        return "SNodeRuntime " + simpleName(className) + " of layout "
                + LayoutEmitter.abbreviated(layout.toString());
    }

    /** The lookup of the layout class, which struct-for drivers are defined next to. */
    public MethodHandles.Lookup lookup() {
        return generated;
    }

    /**
     * The layout class's static method {@code name}.
     *
     * @throws IllegalArgumentException when the class has no such method
     */
    public MethodHandle handle(String name) {
        for (var method : generated.lookupClass().getDeclaredMethods()) {
            if (method.getName().equals(name)) {
                try {
                    return generated.unreflect(method);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new IllegalArgumentException("name=" + name + " is not a generated method of layout " + layout
                + "; see generatedCode() for the list");
    }

    /** The one implementation of {@code api} bound to the layout class's methods (see {@link InterfaceBinder}). */
    public <T> T bind(Class<T> api) {
        Objects.requireNonNull(api, "api");
        return api.cast(bound.computeIfAbsent(api, type -> InterfaceBinder.bind(type, layout,
                nextName("Bound") + "_" + type.getSimpleName(), this::handle,
                extraCode::add)));
    }

    /** A new caching accessor implementing {@code api}; its class is defined on the first call for {@code api}. */
    public <T> T accessor(Class<T> api) {
        Objects.requireNonNull(api, "api");
        MethodHandle constructor = accessors.computeIfAbsent(api, this::defineAccessor);
        try {
            return api.cast(constructor.invoke());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot create an accessor for " + api.getName(), e);
        }
    }

    private MethodHandle defineAccessor(Class<?> api) {
        var bindings = InterfaceBinder.bindings(api, layout, null);
        InterfaceBinder.checkVisitedCell(bindings, null);
        return defineImplementation(api, "Accessor", "the accessor class", plan.describe(),
                emitter -> emitter.emitAccessor(api, bindings, objects));
    }

    /**
     * Emits (with a new {@link LayoutEmitter} for class {@code kind<n>}), defines where
     * {@code api} is visible ({@link ImplementationHost}) and lists a class implementing
     * {@code api}; returns its no-argument constructor.
     */
    private MethodHandle defineImplementation(Class<?> api, String kind, String what, String planText,
                                              Function<LayoutEmitter, byte[]> emit) {
        String name = nextName(kind);
        LayoutEmitter emitter = new LayoutEmitter(plan, name);
        byte[] bytes = emit.apply(emitter);
        GeneratedClass generatedClass = new GeneratedClass(name, bytes, planText, emitter.sourceText(),
                emitter.constantNotes());
        try {
            MethodHandles.Lookup hidden = HiddenClasses.define(ImplementationHost.lookupFor(api), generatedClass,
                    emitter.classData());
            extraCode.add(generatedClass);
            return hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw InterfaceBinder.cannotDefine(what, api, e);
        }
    }

    /**
     * Makes view drivers for ViewKernels of class {@code kernelClass} and {@code arity}
     * coordinates over {@code target}, implementing {@code api} (see
     * {@link LayoutEmitter#emitViewDriver}); the class is defined on the first call for the three
     * and kept, so that each kernel class has a driver of its own (its call of the kernel stays
     * monomorphic).
     *
     * @throws IllegalArgumentException when {@code api} does not bind to this layout
     */
    public Supplier<ViewDriver> viewDriver(Class<?> api, Class<?> kernelClass, SNode target, int arity) {
        Objects.requireNonNull(api, "api");
        MethodHandle constructor = viewDrivers.computeIfAbsent(List.of(api, kernelClass, target),
                key -> defineViewDriver(api, target, arity));
        return () -> {
            try {
                return (ViewDriver) constructor.invoke();
            } catch (Throwable e) {
                throw new IllegalStateException("cannot create a view of " + api.getName(), e);
            }
        };
    }

    private MethodHandle defineViewDriver(Class<?> api, SNode target, int arity) {
        var bindings = InterfaceBinder.bindings(api, layout, target);
        InterfaceBinder.checkVisitedCell(bindings, target);
        return defineImplementation(api, "ViewDriver", "the view driver class", plan.node(target).toString(),
                emitter -> emitter.emitViewDriver(api, bindings, objects, plan.node(target), arity));
    }

    /** A struct-for driver about to be defined ({@link HiddenClasses} checks it by the switches): listed. */
    public void register(GeneratedClass driver) {
        extraCode.add(driver);
    }

    /** The layout class, then every class defined since, in the order they were defined. */
    public List<GeneratedClass> generatedCode() {
        List<GeneratedClass> all = new ArrayList<>();
        all.add(code);
        all.addAll(extraCode);
        return List.copyOf(all);
    }
}
