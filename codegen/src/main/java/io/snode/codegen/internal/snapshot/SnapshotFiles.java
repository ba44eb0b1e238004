package io.snode.codegen.internal.snapshot;

import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.SnapshotException;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.internal.NodeTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * What {@link io.snode.codegen.interop.Snapshots} does: writes a snapshot in place, in large
 * sequential writes, then forces it to storage; reads one a section at a time into a buffer
 * ({@link SectionReader}: not a mapping, which a file truncated meanwhile would fault). Writing
 * and loading run as launches of the runtime's phase lock, so no collection overlaps them; the
 * runtime must not be changed by other threads meanwhile.
 */
public final class SnapshotFiles {
    private SnapshotFiles() {
    }

    public static void write(SNodeRuntime runtime, Path file) throws IOException {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(file, "file");
        requireOpen(runtime);
        NodeTree tree = runtime.generic().internalTree();
        if (Thread.currentThread().isInterrupted()) {
            // The channel would be closed by the interrupt at its first write, after the open had
            // truncated the file: cancel before anything changes, as the channel would (the status stays set).
            throw new ClosedByInterruptException();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            runtime.phaseLock().supplyLaunch(() -> {
                try {
                    return SnapshotWriter.write(tree, runtime.layout(), channel);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    public static SNodeRuntime read(Path file, RuntimeOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        try (Arena arena = Arena.ofConfined(); FileChannel channel = open(file)) {
            SectionReader in = new SectionReader(file, channel, arena);
            Layout layout;
            try {
                layout = Layout.parse(in.layoutText());
            } catch (RuntimeException e) {
                throw new SnapshotException(file, "its layout text does not parse (" + e.getMessage() + "): "
                        + in.layoutText(), e);
            }
            SNodeRuntime runtime;
            try {
                runtime = SNodeRuntime.compile(layout, options);
            } catch (IllegalArgumentException e) { // a LayoutException, or a layout too large for its generated classes
                throw new SnapshotException(file, "its layout does not compile (" + e.getMessage() + "): "
                        + in.layoutText(), e);
            }
            boolean loaded = false;
            try {
                load(runtime, in);
                loaded = true;
                return runtime;
            } finally {
                if (!loaded) {
                    runtime.close();
                }
            }
        }
    }

    public static void readInto(Path file, SNodeRuntime empty) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(empty, "empty");
        requireOpen(empty);
        NodeTree tree = empty.generic().internalTree();
        requireEmpty(empty, tree);
        try (Arena arena = Arena.ofConfined(); FileChannel channel = open(file)) {
            SectionReader check = new SectionReader(file, channel, arena);
            Layout expected = empty.layout();
            if (!sameLayout(check.layoutText(), expected)) { // equal layouts, not texts: Layout.parse allows other spacing
                throw new SnapshotException(file, "it holds layout " + check.layoutText()
                        + ", the runtime to load into has layout " + expected);
            }
            SnapshotLoader.load(check, empty.layout(), empty.plan(), null); // every check, no write
            boolean loaded = false;
            try {
                // The file is read again: bytes that changed since the check fail their checksums
                // (the load stops, and what it loaded is deactivated below), another layout is refused.
                SectionReader in = new SectionReader(file, channel, arena);
                if (!in.layoutText().equals(check.layoutText())) {
                    throw new SnapshotException(file, "it changed while it was read: it holds layout " + in.layoutText()
                            + " now, " + check.layoutText() + " when it was checked");
                }
                load(empty, in);
                loaded = true;
            } finally {
                if (!loaded) {
                    // The memory cap or an allocator fault: the always-active cells are written only
                    // after every sparse record (SnapshotLoader), so they are as they were.
                    empty.deactivateAll(empty.layout().root());
                }
            }
        }
    }

    /** Whether {@code text} is the text form of {@code layout} or of a layout equal to it; a text that does not parse is not. */
    private static boolean sameLayout(String text, Layout layout) {
        if (text.equals(layout.toString())) {
            return true;
        }
        try {
            return Layout.parse(text).equals(layout);
        } catch (RuntimeException e) { // a LayoutException (as read reports it): some other text, refused as another layout
            return false;
        }
    }

    /** {@code file} opened for reading; a directory is refused as one (a read of it fails with a bare "Is a directory"). */
    private static FileChannel open(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new FileSystemException(file.toString(), null, "a directory, not a snapshot file");
        }
        return FileChannel.open(file, StandardOpenOption.READ);
    }

    private static void load(SNodeRuntime runtime, SectionReader in) throws SnapshotException {
        NodeTree tree = runtime.generic().internalTree();
        try {
            runtime.phaseLock().launch(() -> {
                try {
                    SnapshotLoader.load(in, runtime.layout(), runtime.plan(), tree);
                } catch (SnapshotException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    tree.advanceEpoch(); // mask words were stored without counting activations
                }
            });
        } catch (UncheckedIOException e) {
            throw (SnapshotException) e.getCause();
        }
        // Anything else (the memory cap, an allocator fault) is the runtime's, not a fault of the
        // file, and passes through as it is: the caller may raise the cap and load again.
    }

    private static void requireOpen(SNodeRuntime runtime) {
        if (runtime.isClosed()) {
            throw new IllegalStateException(runtime + " is closed; compile the layout again for a new runtime");
        }
    }

    private static void requireEmpty(SNodeRuntime runtime, NodeTree tree) {
        for (SNode snode : runtime.layout().snodes()) {
            if (!snode.kind().isSparse()) {
                continue;
            }
            ActiveBlocks blocks = ActiveBlocks.of(tree, snode);
            for (int b = 0; b < blocks.size(); b++) {
                if (blocks.activeCells(b) > 0 || snode.kind() == NodeKind.HASH) {
                    throw new IllegalArgumentException("empty=" + runtime + " has active cells of " + snode.path()
                            + "; readInto loads into a runtime with no active cell (deactivateAll(root) first)");
                }
            }
        }
    }
}
