package io.snode.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.bench.report.RatioChart.Bar;
import java.awt.GraphicsEnvironment;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.Marker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.ui.Layer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RatioChartTest {
    /** Ratios over the range the runner produces, 0.05 to 20. */
    static final List<Bar> BARS = List.of(
            new Bar("W1s", "L1 (accessor)", 0.8), new Bar("W1s", "L2 (accessor)", 1.3), new Bar("W1s", "HashMap", 4.0),
            new Bar("W1r", "L1 (accessor)", 0.3), new Bar("W1r", "L2 (accessor)", 0.45), new Bar("W1r", "HashMap", 2.2),
            new Bar("W2", "L1 (accessor)", 0.6), new Bar("W2", "L2 (accessor)", 0.7), new Bar("W2", "HashMap", 1.9),
            new Bar("W3", "L1 (accessor)", 0.05), new Bar("W3", "L2 (accessor)", 0.2), new Bar("W3", "HashMap", 20),
            new Bar("W4", "L1 (accessor)", 1.1), new Bar("W5 T=2", "L1 (accessor)", 0.9),
            new Bar("W6 append", "L1 (accessor)", 0.5), new Bar("W6 append", "HashMap", 3.0));

    @TempDir
    Path temp;

    @Test
    void writesAPngOfTheAskedSizeThatIsNotOneFlatColour() throws IOException {
        // The bench tests run with java.awt.headless=true (bench/pom.xml), as the command may.
        assertThat(GraphicsEnvironment.isHeadless()).isTrue();
        Path file = temp.resolve("ratios.png");
        RatioChart.write(BARS, "OpenVDB", file);
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(RatioChart.DEFAULT_WIDTH).isEqualTo(1400);
        assertThat(image.getHeight()).isEqualTo(RatioChart.DEFAULT_HEIGHT).isEqualTo(700);
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colours.add(image.getRGB(x, y) & 0xFFFFFF);
            }
        }
        assertThat(colours).hasSizeGreaterThan(10);

        BufferedImage small = ImageIO.read(write(BARS, "HashMap", 640, 360).toFile());
        assertThat(small.getWidth()).isEqualTo(640);
        assertThat(small.getHeight()).isEqualTo(360);
    }

    @Test
    void eachStructureHasItsOwnColourAndTheLineAtOneCrossesThePlot() {
        BufferedImage image = RatioChart.render(BARS, "OpenVDB", 1400, 700);
        JFreeChart chart = RatioChart.chart(BARS, "OpenVDB");
        CategoryPlot plot = chart.getCategoryPlot();
        List<Integer> seriesColours = new ArrayList<>();
        for (int series = 0; series < 3; series++) {
            int rgb = ((java.awt.Color) plot.getRenderer().getSeriesPaint(series)).getRGB() & 0xFFFFFF;
            seriesColours.add(rgb);
            assertThat(count(image, rgb)).as("pixels of series %d", series).isGreaterThan(500);
        }
        assertThat(new HashSet<>(seriesColours)).hasSize(3);
        // The reference line: one row of near-black pixels across most of the width.
        int longest = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            int run = 0;
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                boolean dark = ((rgb >> 16) & 0xFF) < 60 && ((rgb >> 8) & 0xFF) < 60 && (rgb & 0xFF) < 60;
                run = dark ? run + 1 : 0;
                longest = Math.max(longest, run);
            }
        }
        assertThat(longest).isGreaterThan(image.getWidth() / 2);
    }

    @Test
    void theChartHasTheTitleTheLogAxisTheLabelledLineAndALegend() {
        JFreeChart chart = RatioChart.chart(BARS, "HashMap");
        assertThat(chart.getTitle().getText()).isEqualTo("time / HashMap time (below 1 = faster)");
        CategoryPlot plot = chart.getCategoryPlot();
        assertThat(plot.getRangeAxis()).isInstanceOf(LogAxis.class);
        assertThat(plot.getRangeAxis().getRange().contains(0.05)).isTrue();
        assertThat(plot.getRangeAxis().getRange().contains(20)).isTrue();
        @SuppressWarnings("unchecked")
        List<Marker> markers = new ArrayList<>(plot.getRangeMarkers(Layer.FOREGROUND));
        assertThat(markers).hasSize(1);
        assertThat(((ValueMarker) markers.getFirst()).getValue()).isEqualTo(1.0);
        assertThat(markers.getFirst().getLabel()).isEqualTo("= HashMap");
        assertThat(chart.getLegend()).isNotNull();
        assertThat(plot.getLegendItems().getItemCount()).isEqualTo(3);
        assertThat(plot.getDataset().getColumnKeys()).containsExactly("W1s", "W1r", "W2", "W3", "W4", "W5 T=2",
                "W6 append");
        assertThat(plot.getDataset().getValue("L2 (accessor)", "W3")).isEqualTo(0.2);
    }

    @Test
    void badEntriesAreRejectedByName() {
        assertThatThrownBy(() -> RatioChart.chart(List.of(), "OpenVDB")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bars is empty");
        for (double bad : new double[] {Double.NaN, 0.0, -0.5, Double.POSITIVE_INFINITY}) {
            List<Bar> bars = List.of(new Bar("W1s", "L1", 0.5), new Bar("W2", "HashMap", bad));
            assertThatThrownBy(() -> RatioChart.write(bars, "OpenVDB", temp.resolve("bad.png")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bars[1]=(W2, HashMap, ratio=" + bad + ")")
                    .hasMessageContaining("positive and finite");
        }
        assertThat(temp.resolve("bad.png")).doesNotExist();
        assertThatThrownBy(() -> RatioChart.chart(List.of(new Bar("W1s", "L1", 0.5), new Bar("W1s", "L1", 0.6)),
                "OpenVDB")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bars[1]")
                .hasMessageContaining("already have a bar");
        assertThatThrownBy(() -> RatioChart.chart(List.of(new Bar(" ", "L1", 0.5)), "OpenVDB"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bars[0]");
        assertThatThrownBy(() -> RatioChart.chart(BARS, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("baseline=''");
        assertThatThrownBy(() -> RatioChart.render(BARS, "OpenVDB", 10, 700))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("width=10");
    }

    private Path write(List<Bar> bars, String baseline, int width, int height) throws IOException {
        Path file = temp.resolve(baseline + ".png");
        RatioChart.write(bars, baseline, file, width, height);
        return file;
    }

    private static int count(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }
}
