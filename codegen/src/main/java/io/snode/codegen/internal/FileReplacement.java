package io.snode.codegen.internal;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.UUID;

/**
 * How the library and its command line replace a file they write (a {@code .vdb} export, a PNG
 * picture): the content goes into a new file beside the target ({@code .NAME.RANDOM.tmp}),
 * which is then moved over it (atomically where the file system can), so a write that fails
 * halfway (a full disk, say) leaves the file that was there as it was and deletes its own. A
 * symbolic link is followed (links to links too, up to {@link #MAX_LINKS}): the file it names is
 * replaced or created, with the temporary file beside that file, and the link stays. A target
 * that exists and is not a regular file (a directory, a FIFO, a device) is refused before
 * anything is written.
 */
public final class FileReplacement {
    /** Most symbolic links followed from the path given. */
    public static final int MAX_LINKS = 40;

    private FileReplacement() {
    }

    /** Writes the whole content into {@code temporary}, a new file nobody else names. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Path temporary) throws IOException;
    }

    /**
     * Replaces (or creates) {@link #destination}{@code (file)} with what {@code content} writes.
     *
     * @throws FileSystemException where {@code file} (its links followed) exists and is not a
     *                             regular file, before anything is written; or for a loop of links
     */
    public static void replace(Path file, Content content) throws IOException {
        Path target = destination(file);
        if (!Files.isDirectory(target.getParent())) {
            throw new NoSuchFileException(file.toString(), null, "its directory " + target.getParent() + " does not exist");
        }
        Path temporary = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        boolean moved = false;
        try {
            content.writeTo(temporary);
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
        } finally {
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
        }
    }

    /**
     * The file that a write to {@code file} replaces or creates: {@code file} with its symbolic
     * links followed (a link's relative target is taken from the link's directory), absolute.
     *
     * @throws FileSystemException where it exists and is not a regular file, or for a loop of links
     */
    public static Path destination(Path file) throws IOException {
        Path path = file.toAbsolutePath();
        for (int links = 0; Files.isSymbolicLink(path); links++) {
            if (links == MAX_LINKS) {
                throw new FileSystemException(file.toString(), null, "more than " + MAX_LINKS
                        + " levels of symbolic links (a loop?)");
            }
            path = path.resolveSibling(Files.readSymbolicLink(path));
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return path; // created by the move
        }
        if (!attributes.isRegularFile()) {
            throw new FileSystemException(file.toString(), null, "not a regular file ("
                    + (attributes.isDirectory() ? "a directory" : "a FIFO, a device or a socket")
                    + (path.equals(file.toAbsolutePath()) ? "" : ", " + path + " where its links lead")
                    + "); only a regular file is replaced");
        }
        return path;
    }
}
