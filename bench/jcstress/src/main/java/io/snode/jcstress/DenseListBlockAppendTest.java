package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIIII_Result;

/**
 * Two generated appends to two lists of one new block, where a dense level lies between the
 * block's pointer and the lists: layout
 * {@code pointer(i,2).pointer(i,2).dense(i,2).dynamic(l,8,4).place(i32 v)}, lists i=0 and i=1
 * (dense cells 0 and 1 of lower cell 0 under upper cell 0, which is active before the race).
 * Each append's walk finds the lower word null and calls {@code GeneratedCalls.activateListBlock}
 * with its own list's header offset, so each builds a block whose own list holds a first chunk;
 * one block is published, the loser hands its block and chunk back and appends in the winner's
 * block, where its list has no chunk yet ({@code NodeTree.appendToNewChunk} publishes one).
 *
 * <p>Results: r1, r2 the appends' indices (-9 threw), r3 whether both lists hold their one
 * element, r4 upper cells in use, r5 blocks (lower cells) in use, r6 chunks in use, r7 cells
 * still in use after deactivating everything and collecting (0).
 */
@JCStressTest
@Outcome(id = "0, 0, 1, 1, 1, 2, 0", expect = ACCEPTABLE,
        desc = "One block published, holding both lists, each with one chunk and its one element.")
@State
public class DenseListBlockAppendTest {
    static final Layout LAYOUT = Layout.parse("pointer(i,2).pointer(i,2).dense(i,2).dynamic(l,8,4).place(i32 v)");
    static final SNode UPPER = LAYOUT.snode(1);
    static final SNode LOWER = LAYOUT.snode(2);
    static final SNode LIST = LAYOUT.snode(4);
    private static final CompiledPool POOL = new CompiledPool(LAYOUT);

    /** The generated append and read of v, bound to an interface. */
    public interface V {
        long appendV(int i, int value);

        int v(int i, int l);
    }

    final SNodeRuntime runtime;
    final V v;

    public DenseListBlockAppendTest() {
        runtime = POOL.take();
        v = runtime.bind(V.class);
        runtime.generic().activate(UPPER, 0);
    }

    int append(int list, int value) {
        try {
            return (int) v.appendV(list, value);
        } catch (RuntimeException | Error e) {
            return Unexpected.report("append", e);
        }
    }

    @Actor
    public void first(IIIIIII_Result r) {
        r.r1 = append(0, 1);
    }

    @Actor
    public void second(IIIIIII_Result r) {
        r.r2 = append(1, 2);
    }

    @Arbiter
    public void check(IIIIIII_Result r) {
        try {
            r.r3 = runtime.generic().length(LIST, 0) == 1 && runtime.generic().length(LIST, 1) == 1
                    && v.v(0, 0) == 1 && v.v(1, 0) == 2 ? 1 : 0;
            r.r4 = RuntimePool.cellsInUse(runtime.generic(), UPPER);
            r.r5 = RuntimePool.cellsInUse(runtime.generic(), LOWER);
            r.r6 = RuntimePool.cellsInUse(runtime.generic(), LIST);
        } catch (RuntimeException | Error e) {
            r.r3 = Unexpected.report("check", e);
        }
        r.r7 = POOL.reset(runtime);
    }
}
