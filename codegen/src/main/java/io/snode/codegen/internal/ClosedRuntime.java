package io.snode.codegen.internal;

import java.lang.foreign.MemorySegment;

/**
 * The exception handler of every generated method: an {@link IllegalStateException} thrown
 * while the runtime's memory is closed (FFM's bare "Already closed") becomes one that names the
 * closed runtime. Costs nothing until something throws: the generated code reaches it only
 * through its exception table.
 */
public final class ClosedRuntime {
    private ClosedRuntime() {
    }

    /**
     * What a generated method throws for {@code thrown}: {@code thrown} itself while
     * {@code root} (the runtime's root cell) is alive, else an exception saying that
     * {@code runtime} is closed, with {@code thrown} as its cause.
     */
    public static IllegalStateException translate(IllegalStateException thrown, MemorySegment root, String runtime) {
        if (root.scope().isAlive()) {
            return thrown;
        }
        return new IllegalStateException(runtime + " is closed; its generated methods, handles, bound interfaces and "
                + "accessors cannot be used after close() (compile the layout again for a new runtime)", thrown);
    }
}
