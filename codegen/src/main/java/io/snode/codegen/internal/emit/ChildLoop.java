package io.snode.codegen.internal.emit;

import java.util.function.Consumer;
import org.objectweb.asm.Label;

/**
 * What a snapshot walk's visit method ({@code visitL}, see
 * {@link io.snode.codegen.internal.WalkerEmitter}) offers the loop over the cells of a child
 * container: its named locals and the steps every kind's loop is made of. The kind's
 * {@link NodeEmitUnit#emitChildLoop} puts them together.
 */
public interface ChildLoop {
    MethodEmitter mv();

    /** The int local of the cell index in the container. */
    int index();

    /** The int local of the mask word index, for loops a word at a time. */
    int wordIndex();

    /** The int local of the first cell of a group of pointer words, for loops a vector at a time. */
    int group();

    /** The long local of a pointer word read at {@link #index()}. */
    int pointer();

    /** The long local of an active pointer word's cell ({@code word - 1}). */
    int child();

    /** {@code local = 0; test: if (local >= limit) goto done} */
    void loopHead(int local, int limit, Label test, Label done);

    /**
     * <pre>{@code
     * for (outer = 0; outer < limit; outer += step)
     *   for (bits = <words>; bits != 0; bits &= bits - 1) { index = <base> + tz(bits); <body(next)> }
     * }</pre>
     * {@code words} pushes the long of bits for {@code outer}; {@code base} pushes an int;
     * {@code body} receives the label of the next bit, where it jumps to skip the cell.
     */
    void bitLoop(int outer, int limit, int step, Runnable words, Runnable base, Consumer<Label> body, Label done);

    /** Pushes the segment (and {@code JAVA_LONG} when {@code layout}) and the container's word at int {@code local}. */
    void wordAddress(int local, boolean layout);

    /** Visits the cell at the index: at {@code cellsOffset + index * cellBytes} of the container. */
    void visitCell(long cellsOffset, long cellBytes);

    /** The child's coordinate slots from the index. */
    void childCoordinates();

    /** Whether the child level is the one whose cells are recorded (the walk's key level). */
    boolean atRecordLevel();

    /** Records the cell in {@link #child()} when it is below the capacity, else goto {@code next}. */
    void record(Label next);

    /** Visits the cell {@link #child()} of the child level's cell manager. */
    void visitChild();
}
