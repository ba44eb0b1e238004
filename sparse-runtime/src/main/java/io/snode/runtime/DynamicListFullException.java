package io.snode.runtime;

/**
 * An append to a dynamic list that already holds its capacity. The structure is unchanged:
 * the length is checked before anything is reserved or published, and when other threads fill
 * the list while this append runs, whatever it published on the way (a mask bit on the path, a
 * chunk) is what their appends used (see {@code NodeTree}'s activation protocol). No other
 * call's element is touched.
 */
public final class DynamicListFullException extends IllegalStateException {
    private final String path;
    private final int capacity;

    public DynamicListFullException(String path, int capacity) {
        super("dynamic list " + path + " is full: capacity=" + capacity
                + "; declare a larger capacity or deactivate the list first");
        this.path = path;
        this.capacity = capacity;
    }

    public String path() {
        return path;
    }

    public int capacity() {
        return capacity;
    }
}
