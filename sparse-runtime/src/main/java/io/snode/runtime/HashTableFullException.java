package io.snode.runtime;

/**
 * An activation of a new cell in a hash container that already holds as many active cells as
 * its largest table may ({@link HashHeader#MAX_LIVE}). The structure is unchanged: the
 * count is checked before anything is reserved or published (see {@code NodeTree}'s activation
 * protocol).
 */
public final class HashTableFullException extends IllegalStateException {
    private final String path;
    private final long limit;

    public HashTableFullException(String path, long limit) {
        super("hash node " + path + " holds " + limit + " active cells in one container, the most its largest"
                + " table holds; deactivate cells of it first, or declare a finer node below it");
        this.path = path;
        this.limit = limit;
    }

    public String path() {
        return path;
    }

    public long limit() {
        return limit;
    }
}
