package io.snode.codegen.interop;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A snapshot file that cannot be loaded: truncated, corrupted (a checksum that does not match),
 * of another format version or layout, holding a layout that does not compile, or holding records
 * that contradict its layout or that the writer never writes. The
 * message names the file and what is wrong: which section, at which byte, the checksum expected
 * and found, where the file ends.
 */
public class SnapshotException extends IOException {
    private final transient Path file;

    public SnapshotException(Path file, String what) {
        super("snapshot " + file + ": " + what);
        this.file = file;
    }

    public SnapshotException(Path file, String what, Throwable cause) {
        super("snapshot " + file + ": " + what, cause);
        this.file = file;
    }

    /** The file the message is about. */
    public Path file() {
        return file;
    }
}
