package io.snode.codegen.interop;

import io.snode.api.MemoryCapExceededException;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.snapshot.SnapshotFiles;
import io.snode.runtime.RuntimeOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Snapshots: a whole runtime in one file (its layout text, a format version, what is active
 * in every SNode and every field of every active cell) and back into a new runtime, equal cell
 * for cell: every {@code isActive}, every field read and every list's length and elements.
 *
 * <p>The file is a header and sections, each with its length and a CRC32C checksum (the format:
 * {@link io.snode.codegen.internal.snapshot.SnapshotFormat}). A truncated or corrupted file, one
 * of another format version, or (for {@link #readInto}) of another layout gives a
 * {@link SnapshotException} naming the file and what is wrong, never a half-loaded runtime.
 *
 * <p>Writing and loading go block-wise (a container's cells, a list's chunks, one copy each) and
 * run as launches of the runtime's phase lock, so no collection overlaps them. The runtime must
 * not be changed by other threads while a snapshot of it is written.
 */
public final class Snapshots {
    private Snapshots() {
    }

    /**
     * Writes a snapshot of {@code runtime} to {@code file} (created, or truncated and
     * overwritten), forced to storage ({@code FileChannel.force(true)}). A write that fails
     * halfway leaves a file that every read refuses (its END section is missing); to keep the
     * previous snapshot until the new one is complete, write to another file and move it over.
     *
     * @throws IllegalStateException when the runtime is closed
     */
    public static void write(SNodeRuntime runtime, Path file) throws IOException {
        SnapshotFiles.write(runtime, file);
    }

    /** {@link #read(Path, RuntimeOptions)} with {@link RuntimeOptions#DEFAULT}. */
    public static SNodeRuntime read(Path file) throws IOException {
        return read(file, RuntimeOptions.DEFAULT);
    }

    /**
     * Compiles the layout the snapshot holds with {@code options} and loads the snapshot into the
     * new runtime. Each section's checksum is checked before the section is loaded; when the file
     * is refused, or the runtime's memory cap or allocator refuses its cells (their exception
     * passes through as it is), the new runtime is closed and discarded.
     *
     * @throws SnapshotException          when the file is truncated, corrupted, of another format
     *                                    version, or holds records its layout does not allow
     * @throws MemoryCapExceededException when the cells do not fit {@code options}' memory cap
     *                                    (raise it and read again)
     */
    public static SNodeRuntime read(Path file, RuntimeOptions options) throws IOException {
        return SnapshotFiles.read(file, options);
    }

    /**
     * Loads the snapshot into {@code empty}, a runtime of the same layout with no active cell.
     * The whole file (checksums, layout, every record) is checked before the first write into
     * the runtime, so a refused file leaves it untouched. When the runtime's memory cap (or an
     * allocator fault) refuses a cell halfway through the load, what was loaded is deactivated
     * again and the exception passes through as it is: every sparse SNode is left without an
     * active cell, and the cells that are always active (root fields, dense cells above every
     * sparse SNode), which a load writes only after all the others, keep the values they had.
     *
     * @throws SnapshotException          when the file is truncated, corrupted, of another format
     *                                    version, or of another layout (the message holds both layouts)
     * @throws MemoryCapExceededException when the cells do not fit the runtime's memory cap
     * @throws IllegalArgumentException   when {@code empty} has an active cell
     * @throws IllegalStateException      when {@code empty} is closed
     */
    public static void readInto(Path file, SNodeRuntime empty) throws IOException {
        SnapshotFiles.readInto(file, empty);
    }
}
