package io.snode.codegen.testing;

import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.interop.BulkAppendException;

/**
 * The append tests' access to an {@code i32 id} field of lists named by (i, j, k): one
 * interface for the bound interface and the caching accessor, and one append through either
 * or through a one-element bulk append.
 */
public final class ListAppends {
    private ListAppends() {
    }

    /** The generated append and read of {@code id}, bound or through a caching accessor. */
    public interface Lists {
        long appendId(int i, int j, int k, int id);

        int id(int i, int j, int k, int l);
    }

    /** A caching accessor ({@code "accessor"}) or the bound interface (any other {@code api}). */
    public static Lists lists(SNodeRuntime rt, String api) {
        return api.equals("accessor") ? rt.accessor(Lists.class) : rt.bind(Lists.class);
    }

    /**
     * One append of {@code id} to list (i, j, k) through {@code api}: the bound interface, a
     * caching accessor or a bulk append ({@code "bulk"}: its index is the list's length after it,
     * which holds on one thread).
     */
    public static long append(SNodeRuntime rt, Lists lists, String api, int i, int j, int k, int id) {
        if (!api.equals("bulk")) {
            return lists.appendId(i, j, k, id);
        }
        bulkAppend(rt, i, j, k, id);
        return rt.generic().length(rt.layout().field("id").snode(), i, j, k) - 1;
    }

    /** A one-element bulk append of {@code id} to list (i, j, k); a refusal is thrown as it is, unwrapped. */
    public static void bulkAppend(SNodeRuntime rt, int i, int j, int k, int id) {
        try {
            Bulk.append(rt, "id", new int[] {i, j, k}, new int[] {id});
        } catch (BulkAppendException e) {
            throw (RuntimeException) e.getCause(); // the refusal of the one element
        }
    }
}
