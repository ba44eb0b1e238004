package io.snode.runtime;

/** An append to a dynamic list that already holds its capacity; the list is unchanged. */
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
