package io.snode.bench.report;

import io.snode.codegen.internal.FileReplacement;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import javax.imageio.ImageIO;

/**
 * Writes a picture as a PNG file the way the command line's other outputs are written
 * ({@link FileReplacement}): into a new file beside the target, then moved over it. A write that
 * fails (a full disk) leaves the file that was there as it was, deletes its own and names the
 * file in its exception; unlike {@code ImageIO.write(image, "png", File)}, it never deletes what
 * the path names first (an empty directory, say), and a symbolic link is followed (the file it
 * names gets the picture) where a FIFO or a device is refused.
 */
public final class PngFiles {
    private PngFiles() {
    }

    public static void write(BufferedImage image, Path file) throws IOException {
        try {
            FileReplacement.replace(file, temporary -> {
                try (OutputStream out = Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW)) {
                    if (!ImageIO.write(image, "png", out)) {
                        throw new IOException("no PNG writer in this JDK's ImageIO");
                    }
                }
            });
        } catch (IOException e) {
            throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
