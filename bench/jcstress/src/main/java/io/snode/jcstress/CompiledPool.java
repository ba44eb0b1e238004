package io.snode.jcstress;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Compiled runtimes of one layout, reused from state to state as {@link RuntimePool} reuses
 * generic ones: compiling a layout per state would take longer than the race.
 */
final class CompiledPool {
    private final Layout layout;
    private final ConcurrentLinkedQueue<SNodeRuntime> idle = new ConcurrentLinkedQueue<>();

    CompiledPool(Layout layout) {
        this.layout = layout;
    }

    /** An idle runtime with nothing active, or a new one. */
    SNodeRuntime take() {
        SNodeRuntime runtime = idle.poll();
        return runtime != null ? runtime : SNodeRuntime.compile(layout);
    }

    /**
     * Deactivates everything in {@code runtime} and collects ({@link RuntimePool#reset(io.snode.runtime.SparseRuntime,
     * Runnable, Runnable)}): the runtime goes back to the pool when nothing stayed in use, else it is closed.
     *
     * @return the cells still in use (0), or {@link RuntimePool}'s marks of a failed reset
     */
    int reset(SNodeRuntime runtime) {
        return RuntimePool.reset(runtime.generic(), () -> idle.add(runtime), runtime::close);
    }
}
