package io.snode.codegen.internal.structfor;

import io.snode.codegen.kernel.ViewKernel;

/**
 * A generated per-cell driver that is also the view it hands its kernel: a caching accessor of
 * an application interface ({@code SNodeRuntime.accessor}) whose {@code run} visits blocks
 * {@code [from, to)} of a snapshot, primes the accessor's remembered block with each block as it
 * enters it, and calls {@code kernel.apply(this, coordinates)} per active cell. One instance per
 * task: it is no more thread-safe than an accessor. See {@code DriverEmitter}.
 */
public interface ViewDriver {
    /** Visits blocks {@code [from, to)} of {@code blocks} with {@code kernel} (a ViewKernel of the target's arity). */
    void run(ViewKernel<?> kernel, ActiveBlocks blocks, int from, int to);
}
