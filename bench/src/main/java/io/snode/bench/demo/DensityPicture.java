package io.snode.bench.demo;

import io.snode.bench.report.PngFiles;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code demo.png}: the density of the last step summed along y, seen from the side (x to the
 * right, z up, both in cells with a tick every {@value #TICK}), on a log colour scale. Columns that
 * hold no active block are near black (a shade lighter where blocks were active earlier in the
 * run and have been reclaimed), active ones without mass slate (lighter the more blocks stand
 * along y), and every active block column's outline is drawn, so the sparse structure shows next
 * to the particles it holds. The legend shows each of these colours on a light tile, so that the
 * dark ones stand out from the dark background.
 */
public final class DensityPicture {
    static final int SCALE = 3;
    /** Left edge of the plot: room for the z tick labels and the z axis title. */
    static final int MARGIN = 52;
    static final int RIGHT = 24;
    static final int HEADER = 58;
    static final int FOOTER = 112;
    /** Cells between two ticks on either axis. */
    static final int TICK = 32;
    static final Color INACTIVE = new Color(7, 8, 12);
    static final Color RECLAIMED = new Color(30, 36, 50);
    static final Color ACTIVE_EMPTY = new Color(44, 56, 84);
    static final Color ACTIVE_DEEP = new Color(64, 80, 118);
    static final Color OUTLINE = new Color(150, 170, 205, 110);
    static final Color FRAME = new Color(90, 96, 110);
    /** The tile each legend swatch sits on. */
    static final Color TILE = new Color(150, 156, 170);
    static final Color TEXT = new Color(225, 228, 235);
    static final Color DIM_TEXT = new Color(150, 156, 170);
    /** Legend swatches: size and where the first one is, relative to the colour bar. */
    static final int SWATCH_WIDTH = 14;
    static final int SWATCH_HEIGHT = 12;
    static final int LEGEND_ROW = 20;

    /** Inferno-like stops: black, purple, red, orange, pale yellow. */
    private static final int[][] STOPS = {
            {0, 0, 4}, {31, 12, 72}, {85, 15, 109}, {136, 34, 106}, {186, 54, 85},
            {227, 89, 51}, {249, 140, 10}, {249, 201, 50}, {252, 255, 164}};
    /** Lowest colour position used for mass, so that the faintest density stands out from empty blocks. */
    static final double LOW = 0.3;

    private DensityPicture() {
    }

    public static void write(ParticleInCell.Projection projection, List<ParticleInCell.StepStats> history,
                             ParticleInCell.Config config, Path file) throws IOException {
        PngFiles.write(render(projection, history, config), file);
    }

    static BufferedImage render(ParticleInCell.Projection projection, List<ParticleInCell.StepStats> history,
                                ParticleInCell.Config config) {
        int n = ParticleInCell.N;
        int plot = n * SCALE;
        int width = MARGIN + plot + RIGHT;
        int height = HEADER + plot + FOOTER;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(INACTIVE);
        g.fillRect(0, 0, width, height);

        double max = 1e-3;
        for (long mass : projection.mass()) {
            max = Math.max(max, mass / ParticleInCell.SCALE);
        }
        double floor = max / 1000; // the colour scale spans three decades below the densest column
        double logMax = Math.log1p(max / floor);
        int maxDepth = 1;
        for (int depth : projection.blockDepth()) {
            maxDepth = Math.max(maxDepth, depth);
        }
        for (int z = 0; z < n; z++) {
            for (int x = 0; x < n; x++) {
                int depth = projection.blockDepth(x / ParticleInCell.BLOCK, z / ParticleInCell.BLOCK);
                double value = projection.mass(x, z) / ParticleInCell.SCALE;
                int rgb;
                if (value > 0) {
                    rgb = colour(LOW + (1 - LOW) * Math.min(1, Math.log1p(value / floor) / logMax));
                } else if (depth > 0) {
                    rgb = blend(ACTIVE_EMPTY, ACTIVE_DEEP, Math.min(1.0, depth / (double) Math.min(maxDepth, 8)));
                } else if (projection.everActive(x / ParticleInCell.BLOCK, z / ParticleInCell.BLOCK)) {
                    rgb = RECLAIMED.getRGB();
                } else {
                    rgb = INACTIVE.getRGB();
                }
                int px = MARGIN + x * SCALE;
                int py = HEADER + (n - 1 - z) * SCALE;
                for (int dy = 0; dy < SCALE; dy++) {
                    for (int dx = 0; dx < SCALE; dx++) {
                        image.setRGB(px + dx, py + dy, rgb);
                    }
                }
            }
        }
        // Block outlines: one square per (x, z) column of blocks that holds an active block.
        g.setColor(OUTLINE);
        g.setStroke(new BasicStroke(1f));
        int side = ParticleInCell.BLOCK * SCALE;
        int columns = 0;
        for (int bz = 0; bz < ParticleInCell.BLOCKS; bz++) {
            for (int bx = 0; bx < ParticleInCell.BLOCKS; bx++) {
                if (projection.blockDepth(bx, bz) > 0) {
                    columns++;
                    g.drawRect(MARGIN + bx * side, HEADER + (ParticleInCell.BLOCKS - 1 - bz) * side, side, side);
                }
            }
        }
        // Frame of the domain, its axes and the source.
        g.setColor(FRAME);
        g.drawRect(MARGIN - 1, HEADER - 1, plot + 1, plot + 1);
        axes(g, n, plot);
        int sx = MARGIN + (int) (ParticleInCell.SOURCE_X * SCALE);
        int sz = HEADER + (int) ((n - ParticleInCell.SOURCE_Z) * SCALE);
        int r = (int) (ParticleInCell.SOURCE_RADIUS * SCALE);
        g.setColor(new Color(120, 200, 255));
        g.drawOval(sx - r, sz - r, 2 * r, 2 * r);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("source", sx - r, sz - r - 4);

        ParticleInCell.StepStats last = history.getLast();
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(String.format(Locale.ROOT, "SNode demo: particle density seen along y after step %d", last.step()),
                MARGIN, 24);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(DIM_TEXT);
        g.drawString(String.format(Locale.ROOT,
                "%,d particles, %,d active 8^3 blocks (outlined, %d columns along y); %d^3 cells; seed %d",
                last.particles(), last.activeBlocks(), columns, n, config.seed()), MARGIN, 44);

        // Colour bar.
        int barX = MARGIN;
        int barY = legendTop(plot);
        int barWidth = plot / 2;
        for (int x = 0; x < barWidth; x++) {
            g.setColor(new Color(colour(LOW + (1 - LOW) * x / (double) (barWidth - 1))));
            g.drawLine(barX + x, barY, barX + x, barY + 12);
        }
        g.setColor(DIM_TEXT);
        g.drawString(String.format(Locale.ROOT, "%.2g", floor), barX, barY + 28);
        String top = String.format(Locale.ROOT, "%.0f particles per column (log scale)", max);
        g.drawString(top, barX + barWidth - g.getFontMetrics().stringWidth(top), barY + 28);
        int legendX = legendLeft(plot);
        legendBox(g, legendX, barY, ACTIVE_EMPTY, OUTLINE, "active block, no mass (outlined)");
        legendBox(g, legendX, barY + LEGEND_ROW, RECLAIMED, null, "inactive, reclaimed (was active earlier)");
        legendBox(g, legendX, barY + 2 * LEGEND_ROW, INACTIVE, null, "inactive, never active (no memory)");
        g.dispose();
        return image;
    }

    /** Tick marks and labels in cells along x (below the plot) and z (left of it), and the axis titles. */
    private static void axes(Graphics2D g, int n, int plot) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        var metrics = g.getFontMetrics();
        int bottom = HEADER + plot;
        for (int cell = 0; cell <= n; cell += TICK) {
            String label = Integer.toString(cell);
            int x = MARGIN + cell * SCALE;
            int y = bottom - cell * SCALE;
            g.setColor(FRAME);
            g.drawLine(x, bottom + 1, x, bottom + 4);
            g.drawLine(MARGIN - 5, y, MARGIN - 2, y);
            g.setColor(DIM_TEXT);
            g.drawString(label, x - metrics.stringWidth(label) / 2, bottom + 16);
            g.drawString(label, MARGIN - 8 - metrics.stringWidth(label), y + metrics.getAscent() / 2 - 1);
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        String x = "x (cells) \u2192";
        g.drawString(x, MARGIN + plot / 2 - g.getFontMetrics().stringWidth(x) / 2, bottom + 32);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2, 14, HEADER + plot / 2.0);
        String z = "z (cells) \u2192";
        rotated.drawString(z, 14 - rotated.getFontMetrics().stringWidth(z) / 2, HEADER + plot / 2 + 4);
        rotated.dispose();
    }

    /** Top of the colour bar and of the first legend swatch. */
    static int legendTop(int plot) {
        return HEADER + plot + 46;
    }

    /** Left edge of the legend swatches. */
    static int legendLeft(int plot) {
        return MARGIN + plot / 2 + 30;
    }

    /** A swatch of {@code fill} (with an {@code outline} if not null) on a light tile, then its text. */
    private static void legendBox(Graphics2D g, int x, int y, Color fill, Color outline, String text) {
        g.setColor(TILE);
        g.fillRect(x - 3, y - 3, SWATCH_WIDTH + 6, SWATCH_HEIGHT + 6);
        g.setColor(fill);
        g.fillRect(x, y, SWATCH_WIDTH, SWATCH_HEIGHT);
        if (outline != null) {
            g.setColor(outline);
            g.drawRect(x, y, SWATCH_WIDTH - 1, SWATCH_HEIGHT - 1);
        }
        g.setColor(DIM_TEXT);
        g.drawString(text, x + SWATCH_WIDTH + 10, y + 11);
    }

    /** The colour map at {@code t} in [0, 1]. */
    static int colour(double t) {
        double position = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
        int low = Math.min(STOPS.length - 2, (int) position);
        double f = position - low;
        int red = (int) Math.round(STOPS[low][0] + f * (STOPS[low + 1][0] - STOPS[low][0]));
        int green = (int) Math.round(STOPS[low][1] + f * (STOPS[low + 1][1] - STOPS[low][1]));
        int blue = (int) Math.round(STOPS[low][2] + f * (STOPS[low + 1][2] - STOPS[low][2]));
        return (red << 16) | (green << 8) | blue;
    }

    private static int blend(Color a, Color b, double t) {
        int red = (int) Math.round(a.getRed() + t * (b.getRed() - a.getRed()));
        int green = (int) Math.round(a.getGreen() + t * (b.getGreen() - a.getGreen()));
        int blue = (int) Math.round(a.getBlue() + t * (b.getBlue() - a.getBlue()));
        return (red << 16) | (green << 8) | blue;
    }
}
