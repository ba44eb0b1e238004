package io.snode.codegen.generated;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Owns the lookup that defines generated hidden classes in this package, and the bootstrap
 * through which classes bound to an application interface reach a compiled layout's methods.
 */
public final class Anchor {
    private Anchor() {
    }

    /** A full-privilege lookup on this package, for {@code defineHiddenClassWithClassData}. */
    public static MethodHandles.Lookup lookup() {
        return MethodHandles.lookup();
    }

    /**
     * Bootstrap of every {@code invokedynamic} in a bound interface implementation: links the
     * call, once and for good, to method handle number {@code index} of the caller's class data
     * (a {@code List<MethodHandle>}), so the call inlines like a direct one.
     */
    public static CallSite bind(MethodHandles.Lookup caller, String name, MethodType type, int index)
            throws IllegalAccessException {
        MethodHandle target = MethodHandles.classDataAt(caller, "_", MethodHandle.class, index);
        return new ConstantCallSite(target.asType(type));
    }
}
