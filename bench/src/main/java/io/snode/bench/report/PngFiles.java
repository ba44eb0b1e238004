package io.snode.bench.report;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import javax.imageio.ImageIO;

/**
 * Writes a picture as a PNG file the way the command line's other outputs are written: into a new
 * file beside the target ({@code .NAME.RANDOM.tmp}), then moved over it (atomically where the file
 * system can). A write that fails (a full disk) leaves the file that was there as it was, deletes
 * its own and names the file in its exception; unlike {@code ImageIO.write(image, "png", File)},
 * it never deletes what the path names first (an empty directory, say).
 */
public final class PngFiles {
    private PngFiles() {
    }

    public static void write(BufferedImage image, Path file) throws IOException {
        Path target = file.toAbsolutePath();
        if (Files.isDirectory(target)) {
            throw new IOException("cannot write " + file + ": it is a directory");
        }
        Path temporary = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        boolean moved = false;
        try {
            try (OutputStream out = Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW)) {
                if (!ImageIO.write(image, "png", out)) {
                    throw new IOException("no PNG writer in this JDK's ImageIO");
                }
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
        } catch (IOException e) {
            throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
        } finally {
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
        }
    }
}
