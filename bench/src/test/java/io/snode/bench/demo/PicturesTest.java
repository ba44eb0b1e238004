package io.snode.bench.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class PicturesTest {
    private static final ParticleInCell.Config CONFIG = new ParticleInCell.Config(3, 100, 42, 1);

    @Test
    void theDensityPictureIsDarkWhereNoBlockIsActiveLighterWhereBlocksWereReclaimedAndBrightWhereMassIs() {
        int n = ParticleInCell.N;
        long[] mass = new long[n * n];
        int[] depth = new int[ParticleInCell.BLOCKS * ParticleInCell.BLOCKS];
        depth[5 * ParticleInCell.BLOCKS + 3] = 2; // block column x 24..31, z 40..47
        mass[44 * n + 28] = 50L << 20;
        var stats = new ParticleInCell.StepStats(3, 50, 0, 0, 2, 8, 1 << 16, 1 << 20, 1000, 2000);
        boolean[] everActive = new boolean[depth.length];
        everActive[5 * ParticleInCell.BLOCKS + 3] = true;
        everActive[5 * ParticleInCell.BLOCKS + 2] = true; // x 16..23: active earlier, reclaimed since
        BufferedImage image = DensityPicture.render(new ParticleInCell.Projection(mass, depth, everActive),
                List.of(stats), CONFIG);
        int scale = DensityPicture.SCALE;
        int dark = image.getRGB(DensityPicture.MARGIN + 100 * scale + 1, pixelY(100) + 1) & 0xFFFFFF;
        int massPixel = image.getRGB(DensityPicture.MARGIN + 28 * scale + 1, pixelY(44) + 1) & 0xFFFFFF;
        int emptyActive = image.getRGB(DensityPicture.MARGIN + 26 * scale + 1, pixelY(42) + 1) & 0xFFFFFF;
        int reclaimed = image.getRGB(DensityPicture.MARGIN + 18 * scale + 1, pixelY(42) + 1) & 0xFFFFFF;
        assertThat(dark).isEqualTo(DensityPicture.INACTIVE.getRGB() & 0xFFFFFF);
        assertThat(reclaimed).isEqualTo(DensityPicture.RECLAIMED.getRGB() & 0xFFFFFF);
        assertThat(brightness(emptyActive)).isGreaterThan(brightness(reclaimed));
        assertThat(brightness(reclaimed)).isGreaterThan(brightness(dark));
        assertThat(brightness(massPixel)).isGreaterThan(brightness(emptyActive)).isGreaterThan(brightness(dark));
        // The block's outline crosses its corner pixel.
        int corner = image.getRGB(DensityPicture.MARGIN + 24 * scale, pixelY(47)) & 0xFFFFFF;
        assertThat(brightness(corner)).isGreaterThan(brightness(emptyActive));
    }

    @Test
    void bothAxesOfTheDensityPictureHaveTickLabels() {
        BufferedImage image = emptyPicture();
        int n = ParticleInCell.N;
        int bottom = DensityPicture.HEADER + n * DensityPicture.SCALE;
        for (int cell = 0; cell <= n; cell += 64) {
            int x = DensityPicture.MARGIN + cell * DensityPicture.SCALE;
            // Below the plot, centred on the tick: the x label.
            assertThat(textPixels(image, x - 8, bottom + 4, x + 8, bottom + 18)).as("x label %d", cell).isGreaterThan(4);
            // Left of the plot, level with the tick: the z label.
            int y = bottom - cell * DensityPicture.SCALE;
            assertThat(textPixels(image, DensityPicture.MARGIN - 30, y - 6, DensityPicture.MARGIN - 6, y + 6))
                    .as("z label %d", cell).isGreaterThan(4);
        }
    }

    @Test
    void theLegendSwatchesStandOutFromWhatSurroundsThemAndFromEachOther() {
        BufferedImage image = emptyPicture();
        int plot = ParticleInCell.N * DensityPicture.SCALE;
        int x = DensityPicture.legendLeft(plot);
        int y = DensityPicture.legendTop(plot);
        int[] fills = new int[3];
        for (int row = 0; row < 3; row++) {
            int top = y + row * DensityPicture.LEGEND_ROW;
            int fill = image.getRGB(x + DensityPicture.SWATCH_WIDTH / 2, top + DensityPicture.SWATCH_HEIGHT / 2);
            int around = image.getRGB(x - 2, top + DensityPicture.SWATCH_HEIGHT / 2);
            assertThat(contrast(fill, around)).as("swatch %d against its surround", row).isGreaterThan(3.0);
            fills[row] = fill & 0xFFFFFF;
        }
        assertThat(fills).containsExactly(DensityPicture.ACTIVE_EMPTY.getRGB() & 0xFFFFFF,
                DensityPicture.RECLAIMED.getRGB() & 0xFFFFFF, DensityPicture.INACTIVE.getRGB() & 0xFFFFFF);
        assertThat(contrast(fills[0], fills[1])).as("active against reclaimed").isGreaterThan(1.25);
        assertThat(contrast(fills[1], fills[2])).as("reclaimed against never active").isGreaterThan(1.25);
    }

    @Test
    void theFaintestMassIsBrighterThanAnActiveBlockWithoutMass() {
        int faintest = DensityPicture.colour(DensityPicture.LOW);
        assertThat(luminance(faintest)).isGreaterThan(luminance(DensityPicture.ACTIVE_EMPTY.getRGB()));
    }

    @Test
    void theColourMapRisesInBrightness() {
        int previous = -1;
        for (int n = 0; n <= 10; n++) {
            int b = brightness(DensityPicture.colour(n / 10.0));
            assertThat(b).isGreaterThanOrEqualTo(previous);
            previous = b;
        }
    }

    @Test
    void theMemoryChartDrawsTheSeries() {
        var history = List.of(
                new ParticleInCell.StepStats(1, 10, 10, 0, 4, 8, 3 << 20, 4 << 20, 1000, 2000),
                new ParticleInCell.StepStats(2, 20, 10, 0, 8, 16, 6 << 20, 8 << 20, 1000, 2000),
                new ParticleInCell.StepStats(3, 20, 0, 0, 6, 12, 5 << 20, 8 << 20, 1000, 2000));
        BufferedImage chart = MemoryChart.render(history, CONFIG);
        assertThat(chart.getWidth()).isEqualTo(MemoryChart.WIDTH);
        boolean blue = false;
        boolean orange = false;
        for (int y = 0; y < chart.getHeight(); y++) {
            for (int x = MemoryChart.LEFT; x < MemoryChart.WIDTH - MemoryChart.RIGHT; x++) {
                int rgb = chart.getRGB(x, y) & 0xFFFFFF;
                blue |= rgb == (MemoryChart.BLOCKS.getRGB() & 0xFFFFFF);
                orange |= rgb == (MemoryChart.IN_USE.getRGB() & 0xFFFFFF);
            }
        }
        assertThat(blue).isTrue();
        assertThat(orange).isTrue();
    }

    @Test
    void theMemoryChartSaysWhyHeldMemoryStaysAtItsPeak() {
        var history = List.of(
                new ParticleInCell.StepStats(1, 10, 10, 0, 4, 8, 3 << 20, 4 << 20, 1000, 2000),
                new ParticleInCell.StepStats(2, 20, 0, 0, 2, 4, 1 << 20, 4 << 20, 1000, 2000));
        BufferedImage chart = MemoryChart.render(history, CONFIG);
        assertThat(MemoryChart.HELD_CAPTION).contains("free lists", "reused", "reserved");
        // The caption's line, between the subtitle and the plot, is drawn.
        int dark = 0;
        for (int y = MemoryChart.SUBTITLE + 5; y < MemoryChart.TOP - 4; y++) {
            for (int x = MemoryChart.LEFT; x < MemoryChart.WIDTH - MemoryChart.RIGHT; x++) {
                dark += brightness(chart.getRGB(x, y) & 0xFFFFFF) < 3 * 160 ? 1 : 0;
            }
        }
        assertThat(dark).isGreaterThan(200);
        assertThat(chart.getGraphics().getFontMetrics(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN,
                12)).stringWidth(MemoryChart.HELD_CAPTION)).isLessThan(MemoryChart.WIDTH - MemoryChart.LEFT);
    }

    @Test
    void niceCeilingsAndTicks() {
        assertThat(MemoryChart.niceCeiling(347)).isEqualTo(500);
        assertThat(MemoryChart.niceCeiling(13.4)).isEqualTo(20);
        assertThat(MemoryChart.niceCeiling(100)).isEqualTo(100);
        assertThat(MemoryChart.niceCeiling(0.7)).isEqualTo(1);
        assertThat(MemoryChart.tick(12, 4)).isEqualTo("12");
        assertThat(MemoryChart.tick(0.4, 0.2)).isEqualTo("0.4");
    }

    @Test
    void theProgressBarAppearsOnlyWhenEnabled() {
        StringWriter plain = new StringWriter();
        ProgressBar off = new ProgressBar(new PrintWriter(plain), 4, false);
        off.line("one", 1);
        off.done();
        assertThat(plain.toString()).isEqualTo("one" + System.lineSeparator());

        StringWriter terminal = new StringWriter();
        ProgressBar on = new ProgressBar(new PrintWriter(terminal), 4, true);
        on.line("one", 1);
        on.line("two", 2);
        on.done();
        assertThat(terminal.toString()).contains("one", "two", "[###############...............]  50%", "\r\033[K")
                .endsWith("\r\033[K");
        assertThat(ProgressBar.bar(4, 4, 2_000_000_000L)).startsWith("[" + "#".repeat(30) + "] 100%  4/4 steps  2 s");
    }

    private static BufferedImage emptyPicture() {
        int n = ParticleInCell.N;
        var stats = new ParticleInCell.StepStats(3, 0, 0, 0, 0, 0, 0, 0, 1000, 2000);
        int blocks = ParticleInCell.BLOCKS * ParticleInCell.BLOCKS;
        return DensityPicture.render(new ParticleInCell.Projection(new long[n * n], new int[blocks],
                new boolean[blocks]), List.of(stats), CONFIG);
    }

    /** Pixels in the rectangle that are clearly brighter than the inactive background. */
    private static int textPixels(BufferedImage image, int x0, int y0, int x1, int y1) {
        int background = brightness(DensityPicture.INACTIVE.getRGB() & 0xFFFFFF);
        int count = 0;
        for (int y = Math.max(0, y0); y < Math.min(image.getHeight(), y1); y++) {
            for (int x = Math.max(0, x0); x < Math.min(image.getWidth(), x1); x++) {
                count += brightness(image.getRGB(x, y) & 0xFFFFFF) > background + 150 ? 1 : 0;
            }
        }
        return count;
    }

    /** The WCAG contrast ratio of two colours, 1 (the same) to 21 (black on white). */
    private static double contrast(int a, int b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(int rgb) {
        return 0.2126 * linear((rgb >> 16) & 0xFF) + 0.7152 * linear((rgb >> 8) & 0xFF) + 0.0722 * linear(rgb & 0xFF);
    }

    private static double linear(int channel) {
        double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }

    private static int pixelY(int z) {
        return DensityPicture.HEADER + (ParticleInCell.N - 1 - z) * DensityPicture.SCALE;
    }

    private static int brightness(int rgb) {
        return ((rgb >> 16) & 0xFF) + ((rgb >> 8) & 0xFF) + (rgb & 0xFF);
    }
}
