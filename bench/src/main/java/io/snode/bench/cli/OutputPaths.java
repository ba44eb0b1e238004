package io.snode.bench.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checks of an option that names where a command writes, made before the command does any
 * work: a path that cannot be written is bad input (exit 2, naming the option and what to
 * change), found before a run of minutes, not after it. A directory is created when missing and
 * tried by creating and deleting an empty file in it, so that a read-only or special file system
 * ({@code /proc}) is found too.
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
        writable(option + "=" + directory, directory, "name a writable directory");
    }

    /** Checks that {@code option} names a file (not a directory) in a directory that exists or can be created, and can be written into. */
    static void file(String option, Path file) {
        if (file.toString().isBlank()) {
            throw new SnodeCli.BadInputException(option + "='" + file + "' is empty; name a file");
        }
        if (Files.isDirectory(file)) {
            throw new SnodeCli.BadInputException(option + "=" + file + " is a directory; name a file");
        }
        Path parent = file.toAbsolutePath().getParent();
        if (Files.exists(parent) && !Files.isDirectory(parent)) {
            throw new SnodeCli.BadInputException(option + "=" + file + ": " + parent + " is a file, not a directory;"
                    + " name a file in a directory");
        }
        writable(option + "=" + file + ": its directory " + parent, parent, "name a file in a writable directory");
    }

    private static void writable(String what, Path directory, String change) {
        try {
            Files.createDirectories(directory);
            Files.delete(Files.createTempFile(directory, ".snode-check", ".tmp"));
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            throw new SnodeCli.BadInputException(what + " cannot be created or written (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); " + change);
        }
    }
}
