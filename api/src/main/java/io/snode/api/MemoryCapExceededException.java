package io.snode.api;

/**
 * Thrown when an off-heap request would take a runtime's memory pool over its configured cap.
 *
 * <p>The pool checks the cap before it asks the operating system for memory, so when this
 * exception is thrown nothing was allocated and no counter changed: the operation that asked
 * for memory is left as it was before the call. An activation asks for every cell it needs
 * before it publishes anything, so this holds while other threads use the same cells: the
 * failed call leaves nothing they can see, and nothing they did is taken back. The message and the getters say which owner
 * (the path of the SNode that needed memory) asked for how many bytes, how many bytes the pool
 * held at that moment and what the cap is.
 */
public final class MemoryCapExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String ownerName;
    private final long bytesHeld;
    private final long bytesRequested;
    private final long capBytes;

    /**
     * @param ownerName      the path of the SNode (or other owner) whose request was refused
     * @param bytesHeld      bytes the pool held (reserved) when the request was refused
     * @param bytesRequested bytes the refused request asked for
     * @param capBytes       the pool's cap on reserved bytes
     */
    public MemoryCapExceededException(String ownerName, long bytesHeld, long bytesRequested, long capBytes) {
        super("memory cap exceeded: owner=" + ownerName
                + " bytesRequested=" + bytesRequested
                + " bytesHeld=" + bytesHeld
                + " capBytes=" + capBytes + advice(bytesHeld, bytesRequested, capBytes));
        this.ownerName = ownerName;
        this.bytesHeld = bytesHeld;
        this.bytesRequested = bytesRequested;
        this.capBytes = capBytes;
    }

    /** What can be done: a request larger than the whole cap, or one into an empty pool, only a larger cap serves. */
    private static String advice(long bytesHeld, long bytesRequested, long capBytes) {
        if (bytesRequested > capBytes) {
            return " (this one request is larger than the whole cap; raise the cap to at least "
                    + (bytesHeld + bytesRequested) + " bytes)";
        }
        if (bytesHeld == 0) {
            return " (raise the cap)";
        }
        return " (held + requested would exceed the cap; raise the cap, or deactivate cells of the same SNode:"
                + " freed cells serve that SNode again and stay counted until the runtime is closed)";
    }

    /** The path of the SNode (or other owner) whose request was refused. */
    public String ownerName() {
        return ownerName;
    }

    /** Bytes the pool held when the request was refused. */
    public long bytesHeld() {
        return bytesHeld;
    }

    /** Bytes the refused request asked for. */
    public long bytesRequested() {
        return bytesRequested;
    }

    /** The pool's cap on reserved bytes. */
    public long capBytes() {
        return capBytes;
    }
}
