package io.snode.codegen.kernel;

/**
 * A per-cell kernel that gets a <em>view</em> with every cell: {@link ViewKernel1} to
 * {@link ViewKernel8} by the number of coordinates. A view is a caching accessor of the
 * application interface {@code T} (the same methods as {@code SNodeRuntime.accessor}) that the
 * launch's generated driver primes as it enters each block, so that reads and writes of the
 * visited block's fields find it without a walk; the driver hands the view to the kernel itself,
 * so that once the kernel is inlined into the driver its calls on the view are direct calls the
 * JIT inlines too. Each task of a launch (a range of blocks) has its own view; coordinates outside
 * the visited block work as through any accessor (a walk, then that block is remembered). Over a
 * dense, bitmasked or dynamic SNode the interface may also read and write the visited cell (a
 * list's element) without coordinates ({@code float phi()}, {@code void phi(float)}).
 *
 * @param <T> the application interface the view implements
 */
public sealed interface ViewKernel<T> permits ViewKernel1, ViewKernel2, ViewKernel3, ViewKernel4, ViewKernel5,
        ViewKernel6, ViewKernel7, ViewKernel8 {
}
