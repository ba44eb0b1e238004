package io.snode.bench.demo;

import io.snode.bench.report.PngFiles;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code memory.png}: a line chart over the steps of the active 8^3 blocks (left axis) and the
 * bytes of cells in use (right axis), with the bytes the runtime holds dashed for reference and
 * the steps during which the source emits shaded. A caption line says why the bytes held stay at
 * their peak when the cells in use fall: the chunks of collected cells stay with the runtime.
 */
public final class MemoryChart {
    static final int WIDTH = 960;
    static final int HEIGHT = 540;
    static final int LEFT = 84;
    static final int RIGHT = 84;
    static final int TOP = 84;
    /** Baselines of the subtitle and of the caption under it. */
    static final int SUBTITLE = 46;
    static final int CAPTION = 64;
    static final String HELD_CAPTION = "Bytes reserved stay at their peak: collected cells go to free lists and are"
            + " reused; their chunks stay with the runtime until it closes.";
    static final int BOTTOM = 58;
    static final Color BLOCKS = new Color(40, 110, 200);
    static final Color IN_USE = new Color(225, 110, 20);
    static final Color HELD = new Color(150, 150, 150);

    private MemoryChart() {
    }

    public static void write(List<ParticleInCell.StepStats> history, ParticleInCell.Config config, Path file)
            throws IOException {
        PngFiles.write(render(history, config), file);
    }

    static BufferedImage render(List<ParticleInCell.StepStats> history, ParticleInCell.Config config) {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        int steps = history.size();
        double maxBlocks = niceCeiling(history.stream().mapToLong(ParticleInCell.StepStats::activeBlocks).max().orElse(1));
        double maxMib = niceCeiling(history.stream().mapToDouble(s -> mib(Math.max(s.bytesReserved(), s.bytesInUse())))
                .max().orElse(1));
        int lastStep = Math.max(1, history.getLast().step());

        // Emitting phase.
        int emitting = 0;
        for (ParticleInCell.StepStats stats : history) {
            if (stats.emitted() > 0) {
                emitting = stats.step();
            }
        }
        if (emitting > 0) {
            g.setColor(new Color(235, 244, 255));
            int x1 = LEFT + (int) Math.round(plotWidth * (double) emitting / lastStep);
            g.fillRect(LEFT, TOP, x1 - LEFT, plotHeight);
            g.setColor(new Color(110, 140, 180));
            g.setFont(new Font(Font.SANS_SERIF, Font.ITALIC, 12));
            g.drawString("source emitting", LEFT + 8, TOP + 16);
        }

        // Grid lines and ticks.
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int n = 0; n <= 5; n++) {
            int y = TOP + plotHeight - plotHeight * n / 5;
            g.setColor(new Color(225, 225, 225));
            g.drawLine(LEFT, y, LEFT + plotWidth, y);
            g.setColor(BLOCKS);
            String blocks = String.format(Locale.ROOT, "%,.0f", maxBlocks * n / 5);
            g.drawString(blocks, LEFT - 8 - g.getFontMetrics().stringWidth(blocks), y + 4);
            g.setColor(IN_USE);
            g.drawString(tick(maxMib * n / 5, maxMib / 5), LEFT + plotWidth + 8, y + 4);
        }
        double stepTick = niceCeiling(lastStep / 8.0);
        g.setColor(Color.DARK_GRAY);
        for (double s = 0; s <= lastStep + 1e-9; s += stepTick) {
            int x = LEFT + (int) Math.round(plotWidth * s / lastStep);
            g.drawLine(x, TOP + plotHeight, x, TOP + plotHeight + 5);
            String label = String.format(Locale.ROOT, "%.0f", s);
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + plotHeight + 20);
        }
        g.drawRect(LEFT, TOP, plotWidth, plotHeight);
        g.drawString("step", LEFT + plotWidth / 2 - 12, HEIGHT - 14);
        drawVertical(g, "active 8^3 blocks", 22, TOP + plotHeight / 2, BLOCKS);
        drawVertical(g, "MiB", WIDTH - 14, TOP + plotHeight / 2, IN_USE);

        // Series.
        series(g, history, s -> s.activeBlocks() / maxBlocks, plotWidth, plotHeight, lastStep, BLOCKS,
                new BasicStroke(2.2f));
        series(g, history, s -> mib(s.bytesReserved()) / maxMib, plotWidth, plotHeight, lastStep, HELD,
                new BasicStroke(1.4f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {6f, 5f}, 0f));
        series(g, history, s -> mib(s.bytesInUse()) / maxMib, plotWidth, plotHeight, lastStep, IN_USE,
                new BasicStroke(2.2f));

        // Title and legend.
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("SNode demo: memory over the run", LEFT, 26);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(Color.DARK_GRAY);
        g.drawString(String.format(Locale.ROOT, "%d steps, %,d particles, seed %d, %d thread%s; deactivated blocks"
                        + " are collected every step and their cells reused", steps, config.particles(), config.seed(),
                config.threads(), config.threads() == 1 ? "" : "s"), LEFT, SUBTITLE);
        g.drawString(HELD_CAPTION, LEFT, CAPTION);
        int legendX = LEFT + plotWidth - 250;
        legend(g, legendX, TOP + 16, BLOCKS, new BasicStroke(2.2f), "active blocks (left axis)");
        legend(g, legendX, TOP + 34, IN_USE, new BasicStroke(2.2f), "bytes of cells in use (right axis)");
        legend(g, legendX, TOP + 52, HELD,
                new BasicStroke(1.4f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {6f, 5f}, 0f),
                "bytes reserved, as a cap counts (right axis)");
        g.dispose();
        return image;
    }

    private static void series(Graphics2D g, List<ParticleInCell.StepStats> history,
                               ToDoubleFunction<ParticleInCell.StepStats> value, int plotWidth, int plotHeight,
                               int lastStep, Color colour, BasicStroke stroke) {
        Path2D.Double path = new Path2D.Double();
        boolean first = true;
        for (ParticleInCell.StepStats stats : history) {
            double x = LEFT + plotWidth * (double) stats.step() / lastStep;
            double y = TOP + plotHeight - plotHeight * Math.min(1, value.applyAsDouble(stats));
            if (first) {
                path.moveTo(x, y);
                first = false;
            } else {
                path.lineTo(x, y);
            }
        }
        g.setColor(colour);
        g.setStroke(stroke);
        g.draw(path);
        g.setStroke(new BasicStroke(1f));
    }

    private static void legend(Graphics2D g, int x, int y, Color colour, BasicStroke stroke, String text) {
        g.setColor(new Color(255, 255, 255, 220));
        g.fillRect(x - 4, y - 10, 250, 18);
        g.setColor(colour);
        g.setStroke(stroke);
        g.drawLine(x, y, x + 26, y);
        g.setStroke(new BasicStroke(1f));
        g.setColor(Color.DARK_GRAY);
        g.drawString(text, x + 32, y + 4);
    }

    private static void drawVertical(Graphics2D g, String text, int x, int centreY, Color colour) {
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.setColor(colour);
        rotated.rotate(-Math.PI / 2, x, centreY);
        rotated.drawString(text, x - rotated.getFontMetrics().stringWidth(text) / 2, centreY);
        rotated.dispose();
    }

    /** A tick label with as many decimals as the tick spacing needs. */
    static String tick(double value, double spacing) {
        int decimals = spacing >= 1 ? 0 : (int) Math.ceil(-Math.log10(spacing));
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    /** The smallest 1, 2 or 5 times a power of ten at or above {@code value}. */
    static double niceCeiling(double value) {
        if (value <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * power >= value * (1 - 1e-12)) {
                return m * power;
            }
        }
        return 10 * power;
    }
}
