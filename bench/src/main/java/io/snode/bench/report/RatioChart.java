package io.snode.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.CategoryItemLabelGenerator;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * A PNG bar chart of time ratios against one baseline (OpenVDB, or a {@code HashMap}): one group
 * of bars per workload, one colour per structure, on a logarithmic axis (base 2) with a heavy line
 * at 1.0 labelled {@code = <baseline>}. Each bar grows from that line: up is slower than the
 * baseline, down is faster, and it carries its ratio as a label.
 *
 * <p>Drawn with JFreeChart into a {@link BufferedImage}, so it needs no display and works with
 * {@code java.awt.headless=true}. Groups and colours follow the order in which workloads and
 * structures first appear in the list. Bad input is an {@link IllegalArgumentException} naming the
 * entry: an empty list, a ratio that is not positive and finite (a log axis has no place for it),
 * a blank label, or the same workload and structure twice.
 */
public final class RatioChart {
    public static final int DEFAULT_WIDTH = 1400;
    public static final int DEFAULT_HEIGHT = 700;

    /** One bar: {@code ratio} = the structure's time / the baseline's time for that workload. */
    public record Bar(String workload, String structure, double ratio) {
        public Bar {
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(structure, "structure");
        }
    }

    /** Colour-blind-safe, distinct at a glance (Okabe-Ito, then a few more); repeats after ten structures. */
    private static final Color[] PALETTE = {
        new Color(0, 114, 178), new Color(230, 159, 0), new Color(0, 158, 115), new Color(204, 121, 167),
        new Color(86, 180, 233), new Color(213, 94, 0), new Color(240, 228, 66), new Color(90, 90, 90),
        new Color(150, 80, 40), new Color(120, 60, 170)
    };
    private static final Color REFERENCE = new Color(20, 20, 20);
    /** The share of the plot's width kept free right of the last group for the line's label. */
    private static final double REFERENCE_LABEL_ROOM = 0.08;

    private RatioChart() {
    }

    /** {@link #write(List, String, Path, int, int)} at {@value #DEFAULT_WIDTH} x {@value #DEFAULT_HEIGHT}. */
    public static void write(List<Bar> bars, String baseline, Path file) throws IOException {
        write(bars, baseline, file, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    }

    /**
     * Writes the chart as a PNG.
     *
     * @throws IllegalArgumentException for bad bars (see the class comment), a blank baseline, or
     *     a size outside 200..10000 pixels
     * @throws IOException when the file cannot be written
     */
    public static void write(List<Bar> bars, String baseline, Path file, int width, int height) throws IOException {
        Objects.requireNonNull(file, "file");
        PngFiles.write(render(bars, baseline, width, height), file);
    }

    /** The chart as an image (what {@link #write} writes). */
    static BufferedImage render(List<Bar> bars, String baseline, int width, int height) {
        checkSize("width", width);
        checkSize("height", height);
        JFreeChart chart = chart(bars, baseline);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            chart.draw(g, new Rectangle2D.Double(0, 0, width, height));
        } finally {
            g.dispose();
        }
        return image;
    }

    static JFreeChart chart(List<Bar> bars, String baseline) {
        Objects.requireNonNull(bars, "bars");
        Objects.requireNonNull(baseline, "baseline");
        if (baseline.isBlank()) {
            throw new IllegalArgumentException("baseline='" + baseline + "': must name what the ratios divide by");
        }
        if (bars.isEmpty()) {
            throw new IllegalArgumentException("bars is empty: a ratio chart needs at least one bar");
        }
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        Set<List<String>> seen = new HashSet<>();
        double min = 1.0;
        double max = 1.0;
        for (int index = 0; index < bars.size(); index++) {
            Bar bar = Objects.requireNonNull(bars.get(index), "bars[" + index + "]");
            String entry = "bars[" + index + "]=(" + bar.workload() + ", " + bar.structure() + ", ratio=" + bar.ratio()
                    + ")";
            if (!(bar.ratio() > 0) || !Double.isFinite(bar.ratio())) {
                throw new IllegalArgumentException(entry + ": the ratio must be positive and finite (a log axis)");
            }
            if (bar.workload().isBlank() || bar.structure().isBlank()) {
                throw new IllegalArgumentException(entry + ": workload and structure must not be blank");
            }
            if (!seen.add(List.of(bar.workload(), bar.structure()))) {
                throw new IllegalArgumentException(entry + ": this workload and structure already have a bar");
            }
            dataset.addValue(bar.ratio(), bar.structure(), bar.workload());
            min = Math.min(min, bar.ratio());
            max = Math.max(max, bar.ratio());
        }

        LogAxis ratioAxis = new LogAxis("time / " + baseline + " time (log scale)");
        ratioAxis.setBase(2);
        ratioAxis.setAutoTickUnitSelection(false);
        ratioAxis.setTickUnit(new NumberTickUnit(1)); // one tick per factor of 2
        ratioAxis.setMinorTickCount(0);
        ratioAxis.setNumberFormatOverride(new DecimalFormat("0.####", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        ratioAxis.setSmallestValue(Math.min(1e-6, min / 4));
        // Room for the labels beyond the longest bars, both ways, and at least 1/2 .. 2.
        ratioAxis.setRange(Math.min(min / 1.8, 0.5), Math.max(max * 1.8, 2.0));
        ratioAxis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        ratioAxis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));

        CategoryAxis workloadAxis = new CategoryAxis(null);
        workloadAxis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        workloadAxis.setCategoryMargin(0.25);
        workloadAxis.setLowerMargin(0.02);
        workloadAxis.setUpperMargin(REFERENCE_LABEL_ROOM); // the line's label sits right of the last group
        workloadAxis.setCategoryLabelPositions(CategoryLabelPositions.STANDARD);
        workloadAxis.setMaximumCategoryLabelLines(3);
        workloadAxis.setMaximumCategoryLabelWidthRatio(1.3f);

        BarRenderer renderer = new FromBaseRenderer();
        renderer.setBase(1.0);
        renderer.setIncludeBaseInRange(true);
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setDrawBarOutline(false);
        renderer.setItemMargin(0.04);
        renderer.setMaximumBarWidth(0.08);
        for (int series = 0; series < dataset.getRowCount(); series++) {
            Paint paint = PALETTE[series % PALETTE.length];
            renderer.setSeriesPaint(series, paint);
        }
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}",
                new DecimalFormat("0.0##", DecimalFormatSymbols.getInstance(Locale.ROOT))));
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        renderer.setDefaultItemLabelPaint(new Color(40, 40, 40));
        renderer.setDefaultPositiveItemLabelPosition(
                new ItemLabelPosition(ItemLabelAnchor.OUTSIDE12, TextAnchor.BOTTOM_CENTER));
        renderer.setDefaultNegativeItemLabelPosition(
                new ItemLabelPosition(ItemLabelAnchor.OUTSIDE6, TextAnchor.TOP_CENTER));
        renderer.setItemLabelInsets(new RectangleInsets(3, 3, 3, 3));

        CategoryPlot plot = new CategoryPlot(dataset, workloadAxis, ratioAxis, renderer);
        plot.setOrientation(PlotOrientation.VERTICAL);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setOutlineVisible(false);
        plot.setRangeGridlinePaint(new Color(215, 215, 215));
        plot.setRangeGridlineStroke(new BasicStroke(1f));
        plot.setDomainGridlinesVisible(false);
        plot.setInsets(new RectangleInsets(8, 8, 8, 16));

        ValueMarker reference = new ValueMarker(1.0, REFERENCE, new BasicStroke(2.5f));
        reference.setLabel("= " + baseline);
        reference.setLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        reference.setLabelPaint(REFERENCE);
        reference.setLabelBackgroundColor(Color.WHITE);
        reference.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        reference.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        reference.setLabelOffset(new RectangleInsets(4, 4, 4, 4));
        plot.addRangeMarker(reference, Layer.FOREGROUND);

        JFreeChart chart = new JFreeChart(title(baseline), new Font(Font.SANS_SERIF, Font.BOLD, 20), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.setAntiAlias(true);
        chart.setTextAntiAlias(true);
        LegendTitle legend = chart.getLegend();
        legend.setPosition(RectangleEdge.TOP);
        legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        legend.setFrame(BlockBorder.NONE);
        legend.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** {@code time / <baseline> time (below 1 = faster)}. */
    static String title(String baseline) {
        return "time / " + baseline + " time (below 1 = faster)";
    }

    private static void checkSize(String name, int pixels) {
        if (pixels < 200 || pixels > 10_000) {
            throw new IllegalArgumentException(name + "=" + pixels + ": must be 200..10000 pixels");
        }
    }

    /** Puts the label of a bar below the line (below 1.0) under the bar, not at the line. */
    private static final class FromBaseRenderer extends BarRenderer {
        private static final long serialVersionUID = 1L;

        @Override
        protected void drawItemLabel(Graphics2D g2, CategoryDataset data, int row, int column, CategoryPlot plot,
                CategoryItemLabelGenerator generator, Rectangle2D bar, boolean negative) {
            Number value = data.getValue(row, column);
            boolean below = value != null && value.doubleValue() < getBase();
            super.drawItemLabel(g2, data, row, column, plot, generator, bar, below);
        }
    }
}
