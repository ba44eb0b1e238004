package io.snode.bench.cli;

import io.snode.codegen.internal.FileReplacement;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of an option that names where a command writes, made before the command does any
 * work: a path that cannot be written is bad input (exit 2, naming the option and what to
 * change), found before a run of minutes, not after it. The checks that create nothing come
 * first, for every path of the command; then a missing directory is created and tried by
 * creating and deleting an empty file in it, so that a read-only or special file system
 * ({@code /proc}) is found too. Where that fails, the directories created for the command's
 * paths so far are deleted again: a refused command leaves nothing behind.
 */
final class OutputPaths {
    private OutputPaths() {
    }

    /** Checks that {@code option} names a directory that exists or can be created, and can be written into. */
    static void directory(String option, Path directory) {
        if (directory.toString().isBlank()) {
            throw new SnodeCli.BadInputException(option + "='" + directory + "' is empty; name a directory");
        }
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw new SnodeCli.BadInputException(option + "=" + directory + " is a file, not a directory; name a directory");
        }
        writable(option + "=" + directory, directory, "name a writable directory", new ArrayList<>());
    }

    /** Checks that {@code option} names a file (not a directory) in a directory that exists or can be created, and can be written into. */
    static void file(String option, Path file) {
        files(Map.of(option, file));
    }

    /**
     * Checks, as {@link #file} does, each option's file (null: not given): first what creates
     * nothing for all of them, then their directories, so that no directory is left behind when
     * one of them is refused.
     */
    static void files(Map<String, Path> files) {
        Map<String, Path> given = new LinkedHashMap<>();
        files.forEach((option, file) -> {
            if (file != null) {
                checkFile(option, file);
                given.put(option, file);
            }
        });
        List<Path> created = new ArrayList<>();
        given.forEach((option, file) -> {
            Path parent = file.toAbsolutePath().getParent();
            writable(option + "=" + file + ": its directory " + parent, parent, "name a file in a writable directory",
                    created);
        });
    }

    /**
     * Checks, as {@link #file} does, a file that the command replaces by moving a new file over it:
     * it may be a symbolic link (the file it names is replaced, in that file's directory), but
     * what it names must be a regular file or nothing yet, not a FIFO or a device.
     */
    static void replacedFile(String option, Path file) {
        checkFile(option, file);
        Path real;
        try {
            real = FileReplacement.destination(file); // its links followed, even to a file not made yet
        } catch (IOException e) {
            throw new SnodeCli.BadInputException(option + "=" + file + ": " + e.getMessage() + "; name a regular file"
                    + " or a new one");
        }
        if (!real.equals(file.toAbsolutePath())) {
            checkFile(option + " (" + file + " leads to " + real + ")", real);
        }
        Path parent = real.getParent();
        writable(option + "=" + file + ": its directory " + parent, parent, "name a file in a writable directory",
                new ArrayList<>());
    }

    /** The checks of {@link #file} that create nothing. */
    private static void checkFile(String option, Path file) {
        if (file.toString().isBlank()) {
            throw new SnodeCli.BadInputException(option + "='" + file + "' is empty; name a file");
        }
        if (Files.isDirectory(file)) {
            throw new SnodeCli.BadInputException(option + "=" + file + " is a directory; name a file");
        }
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new SnodeCli.BadInputException(option + "=" + file + " is not a regular file (a FIFO, a device"
                    + " or a socket), which the command would write into or replace; name a regular file or a new one");
        }
        Path parent = file.toAbsolutePath().getParent();
        for (Path above = parent; above != null; above = above.getParent()) {
            if (Files.exists(above)) {
                if (!Files.isDirectory(above)) {
                    throw new SnodeCli.BadInputException(option + "=" + file + ": " + above + " is a file, not a"
                            + " directory; name a file in a directory");
                }
                break;
            }
        }
    }

    /**
     * Creates {@code directory} where missing and tries a file in it; adds the directories it
     * created to {@code created}, and deletes all of {@code created} (the latest first) when it
     * fails.
     */
    private static void writable(String what, Path directory, String change, List<Path> created) {
        try {
            List<Path> missing = new ArrayList<>();
            for (Path above = directory.toAbsolutePath(); above != null && !Files.exists(above); above = above.getParent()) {
                missing.addFirst(above);
            }
            for (Path level : missing) {
                try {
                    Files.createDirectory(level);
                    created.add(level);
                } catch (FileAlreadyExistsException e) {
                    if (!Files.isDirectory(level)) {
                        throw e;
                    } // else made by someone else meanwhile
                }
            }
            Files.delete(Files.createTempFile(directory, ".snode-check", ".tmp"));
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            for (Path level : created.reversed()) {
                try {
                    Files.deleteIfExists(level);
                } catch (IOException | SecurityException ignored) {
                    // left behind; the message below says what failed
                }
            }
            throw new SnodeCli.BadInputException(what + " cannot be created or written (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); " + change);
        }
    }
}
