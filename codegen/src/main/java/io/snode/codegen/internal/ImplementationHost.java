package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ARETURN;

import io.snode.codegen.generated.Anchor;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.RuntimeMethods;
import java.lang.invoke.MethodHandles;
import java.util.List;
import org.objectweb.asm.Type;

/**
 * Where the classes that implement an application interface (bound interfaces and accessors)
 * are defined. A hidden class is defined in its lookup's class loader, and it must see both the
 * interface it implements and the library it calls. When the library's own loader sees the
 * interface, that is {@link Anchor#lookup()}. An interface from another loader (a child
 * {@code URLClassLoader}, a plugin or application server loader, the source launcher's
 * in-memory loader) is not visible there: its implementation is defined in a <em>bridge</em>
 * loader instead, whose parent is the library's loader and which asks the interface's loader
 * for every other class. The bridge holds one small class, {@code Host}, in the generated
 * package, whose full-privilege lookup defines the hidden classes, so they stay
 * {@code NESTMATE} hidden classes with class data, exactly as in the library's loader.
 *
 * <p>One bridge per interface class, kept with that class ({@link ClassValue}): it lives as long
 * as the interface's loader and is collected with it. Where the library's loader sees the
 * interface, nothing is kept with it: a value on the interface class that reached the library
 * would keep a copy of the library that a loader of its own holds (a plugin's, a redeployed
 * application's) loaded for as long as the interface (of a parent loader) lives.
 */
public final class ImplementationHost {
    private static final String HOST = "io/snode/codegen/generated/Host";

    private static final ClassValue<MethodHandles.Lookup> BRIDGES = new ClassValue<>() {
        @Override
        protected MethodHandles.Lookup computeValue(Class<?> api) {
            return bridge(api);
        }
    };

    private ImplementationHost() {
    }

    /**
     * A full-privilege lookup on a class of package {@code io.snode.codegen.generated} whose class
     * loader sees {@code api} and the library; hidden classes implementing {@code api} are
     * defined with it.
     */
    public static MethodHandles.Lookup lookupFor(Class<?> api) {
        return visibleToLibrary(api) ? Anchor.lookup() : BRIDGES.get(api);
    }

    /** Whether {@code api} is what the library's class loader finds under its name. */
    static boolean visibleToLibrary(Class<?> api) {
        try {
            return Class.forName(api.getName(), false, Anchor.class.getClassLoader()) == api;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static MethodHandles.Lookup bridge(Class<?> api) {
        BridgeLoader bridge = new BridgeLoader(Anchor.class.getClassLoader(), api);
        try {
            Class<?> host = bridge.define(hostBytes());
            return (MethodHandles.Lookup) host.getMethod("lookup").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("cannot implement " + api.getName() + ": it was loaded by "
                    + api.getClassLoader() + ", which the library's loader " + Anchor.class.getClassLoader()
                    + " does not see, and no class loader that sees both could be made", e);
        }
    }

    /** {@code public final class Host { public static Lookup lookup() { return MethodHandles.lookup(); } }} */
    private static byte[] hostBytes() {
        ClassEmitter host = new ClassEmitter(HOST, "bridge to an application interface's class loader");
        MethodEmitter mv = host.method("lookup", "()" + Type.getDescriptor(MethodHandles.Lookup.class), true,
                List.of());
        mv.invoke(RuntimeMethods.LOOKUP);
        mv.visitInsn(ARETURN);
        mv.end();
        return host.finish();
    }

    /**
     * The interface itself under its name; any other class parent first (the library's loader,
     * then the platform and bootstrap loaders behind it), then from the interface's loader. So
     * the library's classes are always the library's own, the interface is the one given even
     * when the library's loader knows another class of that name (a child-first loader with a
     * copy of it), and what only the interface's loader knows comes from there.
     */
    private static final class BridgeLoader extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final Class<?> api;

        BridgeLoader(ClassLoader library, Class<?> api) {
            super("snode-bridge", library);
            this.api = api;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            return name.equals(api.getName()) ? api : super.loadClass(name, resolve);
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            return Class.forName(name, false, api.getClassLoader());
        }

        Class<?> define(byte[] bytes) {
            return defineClass(null, bytes, 0, bytes.length);
        }
    }
}
