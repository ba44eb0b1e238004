package io.snode.codegen.internal;

import java.lang.foreign.MemorySegment;

/**
 * The exception handler of every generated method: an {@link IllegalStateException} thrown
 * while the runtime's memory is closed (FFM's bare "Already closed") becomes one that names the
 * closed runtime. Costs nothing until something throws: the generated code reaches it only
 * through its exception table (and {@link #checkAlive}, in the few methods that load nothing).
 */
public final class ClosedRuntime {
    private ClosedRuntime() {
    }

    /**
     * Throws FFM's "Already closed" when {@code root}'s memory is closed: the first instruction of
     * the generated methods that may touch no node memory at all (a dense node's
     * {@code isActive_} and {@code activate_}, {@code deactivateAll_}), so that they, too, fail
     * after close (their handler names the runtime).
     */
    public static void checkAlive(MemorySegment root) {
        if (!root.scope().isAlive()) {
            throw new IllegalStateException("Already closed");
        }
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
