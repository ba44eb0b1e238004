package io.snode.codegen.generated;

import java.lang.invoke.MethodHandles;

/** Owns the lookup that defines generated hidden classes in this package. */
public final class Anchor {
    private Anchor() {
    }

    /** A full-privilege lookup on this package, for {@code defineHiddenClassWithClassData}. */
    public static MethodHandles.Lookup lookup() {
        return MethodHandles.lookup();
    }
}
