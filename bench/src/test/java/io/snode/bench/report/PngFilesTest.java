package io.snode.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A picture replaces its file whole or not at all, and never deletes what the path names. */
class PngFilesTest {
    @Test
    void aPictureReplacesItsFileAndLeavesNothingElse(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("p.png"), "an older file");
        PngFiles.write(new BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB), file);
        assertThat(ImageIO.read(file.toFile()).getWidth()).isEqualTo(3);
        try (var listed = Files.list(dir)) {
            assertThat(listed).containsExactly(file);
        }
    }

    @Test
    void aDirectoryWhereThePictureGoesIsKeptAndNamed(@TempDir Path dir) throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty.png"));
        assertThatThrownBy(() -> PngFiles.write(new BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB), empty))
                .isInstanceOf(IOException.class).hasMessageContaining(empty.toString());
        assertThat(empty).isDirectory();
        try (var listed = Files.list(dir)) {
            assertThat(listed).containsExactly(empty);
        }
    }

    /** A symbolic link is followed: the file it names gets the picture, the link stays a link (it was replaced by a file). */
    @Test
    void aSymbolicLinkIsFollowedAndStaysALink(@TempDir Path dir) throws IOException {
        Path target = Files.writeString(dir.resolve("target.png"), "an older file");
        Path link = Files.createSymbolicLink(dir.resolve("link.png"), target.getFileName());
        PngFiles.write(new BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB), link);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(ImageIO.read(target.toFile()).getWidth()).isEqualTo(3);
    }

    /** A FIFO where the picture goes is refused and kept (it was replaced by a regular file). */
    @Test
    void aFifoWhereThePictureGoesIsRefusedAndKept(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo.png");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo is available");
        assertThatThrownBy(() -> PngFiles.write(new BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB), fifo))
                .isInstanceOf(IOException.class).hasMessageContaining("not a regular file");
        assertThat(Files.isRegularFile(fifo)).isFalse();
        assertThat(Files.exists(fifo)).isTrue();
    }
}
