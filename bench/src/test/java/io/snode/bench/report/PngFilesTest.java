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
}
