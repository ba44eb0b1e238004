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
 * of another format version, one whose layout does not compile, one with records the writer never
 * writes (a record whose parent cell no earlier record activates, a list that comes twice, records
 * of a dense SNode's blocks that do not number one per block of an active cell), or (for
 * {@link #readInto}) one of another layout gives a {@link SnapshotException} naming the file and
 * what is wrong, never a half-loaded runtime.
 *
 * <p>Read a file from an untrusted source with a memory cap
 * ({@code read(file, RuntimeOptions.DEFAULT.withMemoryCap(bytes))}, or {@code readInto} a runtime
 * compiled with one): a few bytes of a valid file can ask for much memory. Compiling its layout
 * ({@code read}) reserves the root cell and a zeroed ambient cell per pointer, hash and dynamic
 * SNode (up to 128 MiB each); each bit of a pointer record's mask, and each hash record,
 * activates a cell that holds its children's containers (up to 128 MiB a cell), and each list
 * makes its last chunk (up to 128 MiB) even where the file marks every chunk as without memory;
 * so one 8-byte mask word can make the reader reserve 8 GiB, and a file of a few hundred bytes
 * gigabytes. Only the blocks of dense
 * SNodes with fields are bounded by the file: a record that activates more cells than the file
 * could hold their blocks' records for (one per block) is refused before it activates any. The
 * cap's {@link MemoryCapExceededException} then stops the load as for any file ({@code read}
 * closes its runtime, {@code readInto} deactivates what it had loaded).
 *
 * <p>Writing and loading go block-wise (a container's cells, a list's chunks, one copy each) and
 * run as launches of the runtime's phase lock, so no collection overlaps them. The runtime must
 * not be changed by other threads while a snapshot of it is written: a cell activated,
 * deactivated or appended to meanwhile ends the write with
 * {@link java.util.ConcurrentModificationException} before its END section, so the file is
 * refused by every read (a change still in progress when the write ends may be left out instead:
 * a write that completes has written a file every read accepts, never a record without its
 * parent); a value written meanwhile into a cell already active is not detected.
 */
public final class Snapshots {
    private Snapshots() {
    }

    /**
     * Writes a snapshot of {@code runtime} to {@code file} (created, or truncated and
     * overwritten), forced to storage ({@code FileChannel.force(true)}). A write that fails
     * halfway leaves a file that every read refuses (its END section is missing); to keep the
     * previous snapshot until the new one is complete, write to another file and move it over.
     * An interrupt cancels the write, as it closes a {@code FileChannel}: where the calling
     * thread's interrupt status is set when the call starts, the file is left as it was (not
     * created, not truncated); an interrupt during the write leaves a file every read refuses
     * (or, during the final force to storage, a complete file that may not be on the device yet).
     * The interrupt status stays set. Reads are cancelled the same way (a {@code readInto}
     * cancelled halfway leaves its runtime without an active cell, as a refused file does).
     *
     * @throws IllegalStateException                          when the runtime is closed
     * @throws java.util.ConcurrentModificationException     when another thread activated, deactivated or
     *                                                        appended to a cell during the write (the
     *                                                        file is incomplete: every read refuses it)
     * @throws java.nio.channels.ClosedByInterruptException when the calling thread is interrupted
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
     *                                    version, holds a layout that does not compile (the
     *                                    compiler's exception is the cause) or records its layout
     *                                    does not allow or the writer never writes
     * @throws MemoryCapExceededException when the cells do not fit {@code options}' memory cap
     *                                    (raise it and read again; for a file from an untrusted
     *                                    source, see the class comment)
     */
    public static SNodeRuntime read(Path file, RuntimeOptions options) throws IOException {
        return SnapshotFiles.read(file, options);
    }

    /**
     * Loads the snapshot into {@code empty}, a runtime of an equal layout
     * ({@link io.snode.api.Layout#equals}: the same canonical text, so other spacing in the
     * file's layout text is the same layout) with no active cell. The whole file is checked
     * before the first write into the runtime: the checksums, the layout, and every record as the
     * load would check it (each record's parent cell activated by an earlier record, each list
     * once, the records of a dense SNode's blocks numbering one per block of an active cell); so
     * a refused file leaves the runtime untouched and reserves none of its memory. When the
     * runtime's memory cap (or an allocator fault) refuses a cell halfway through the load, what
     * was loaded is deactivated again and the exception passes through as it is: every sparse
     * SNode is left without an active cell, and the cells that are always active (root fields,
     * dense cells above every sparse SNode), which a load writes only after all the others, keep
     * the values they had.
     *
     * @throws SnapshotException          when the file is truncated, corrupted, of another format
     *                                    version, of another layout (the message holds both
     *                                    layouts), or holds records its layout does not allow or the
     *                                    writer never writes
     * @throws MemoryCapExceededException when the cells do not fit the runtime's memory cap
     * @throws IllegalArgumentException   when {@code empty} has an active cell
     * @throws IllegalStateException      when {@code empty} is closed
     */
    public static void readInto(Path file, SNodeRuntime empty) throws IOException {
        SnapshotFiles.readInto(file, empty);
    }
}
