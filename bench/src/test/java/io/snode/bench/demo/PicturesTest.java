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

    private static int pixelY(int z) {
        return DensityPicture.HEADER + (ParticleInCell.N - 1 - z) * DensityPicture.SCALE;
    }

    private static int brightness(int rgb) {
        return ((rgb >> 16) & 0xFF) + ((rgb >> 8) & 0xFF) + (rgb & 0xFF);
    }
}
