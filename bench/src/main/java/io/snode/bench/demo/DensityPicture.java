package io.snode.bench.demo;

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
import javax.imageio.ImageIO;

/**
 * {@code demo.png}: the density of the last step summed along y, seen from the side (x to the
 * right, z up), on a log colour scale. Columns that hold no active block are near black (a shade
 * lighter where blocks were active earlier in the run and have been reclaimed), active ones
 * without mass dark slate (lighter the more blocks stand along y), and every active block
 * column's outline is drawn, so the sparse structure shows next to the particles it holds.
 */
public final class DensityPicture {
    static final int SCALE = 3;
    static final int MARGIN = 20;
    static final int HEADER = 58;
    static final int FOOTER = 84;
    static final Color INACTIVE = new Color(7, 8, 12);
    static final Color ACTIVE_EMPTY = new Color(22, 28, 42);
    static final Color ACTIVE_DEEP = new Color(40, 52, 78);
    static final Color RECLAIMED = new Color(14, 17, 26);
    static final Color OUTLINE = new Color(150, 170, 205, 110);
    static final Color TEXT = new Color(225, 228, 235);
    static final Color DIM_TEXT = new Color(150, 156, 170);

    /** Inferno-like stops: black, purple, red, orange, pale yellow. */
    private static final int[][] STOPS = {
            {0, 0, 4}, {31, 12, 72}, {85, 15, 109}, {136, 34, 106}, {186, 54, 85},
            {227, 89, 51}, {249, 140, 10}, {249, 201, 50}, {252, 255, 164}};
    /** Lowest colour position used for mass, so that the faintest density stands out from the dark. */
    private static final double LOW = 0.18;

    private DensityPicture() {
    }

    public static void write(ParticleInCell.Projection projection, List<ParticleInCell.StepStats> history,
                             ParticleInCell.Config config, Path file) throws IOException {
        ImageIO.write(render(projection, history, config), "png", file.toFile());
    }

    static BufferedImage render(ParticleInCell.Projection projection, List<ParticleInCell.StepStats> history,
                                ParticleInCell.Config config) {
        int n = ParticleInCell.N;
        int plot = n * SCALE;
        int width = plot + 2 * MARGIN;
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
        // Frame of the domain and the source.
        g.setColor(new Color(90, 96, 110));
        g.drawRect(MARGIN - 1, HEADER - 1, plot + 1, plot + 1);
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
        g.drawString("x \u2192", MARGIN + plot - 26, HEADER + plot + 16);
        g.drawString("z \u2191", MARGIN + 4, HEADER + 14);

        // Colour bar.
        int barX = MARGIN;
        int barY = HEADER + plot + 24;
        int barWidth = plot / 2;
        for (int x = 0; x < barWidth; x++) {
            g.setColor(new Color(colour(LOW + (1 - LOW) * x / (double) (barWidth - 1))));
            g.drawLine(barX + x, barY, barX + x, barY + 12);
        }
        g.setColor(DIM_TEXT);
        g.drawString(String.format(Locale.ROOT, "%.2g", floor), barX, barY + 28);
        String top = String.format(Locale.ROOT, "%.0f particles per column (log scale)", max);
        g.drawString(top, barX + barWidth - g.getFontMetrics().stringWidth(top), barY + 28);
        int legendX = barX + barWidth + 30;
        g.setColor(ACTIVE_EMPTY);
        g.fillRect(legendX, barY, 14, 12);
        g.setColor(OUTLINE);
        g.drawRect(legendX, barY, 14, 12);
        g.setColor(DIM_TEXT);
        g.drawString("active block, no mass", legendX + 20, barY + 11);
        legendBox(g, legendX, barY + 18, RECLAIMED, "inactive, reclaimed (was active earlier)");
        legendBox(g, legendX, barY + 36, INACTIVE, "inactive, never active (no memory)");
        g.dispose();
        return image;
    }

    private static void legendBox(Graphics2D g, int x, int y, Color fill, String text) {
        g.setColor(fill);
        g.fillRect(x, y, 14, 12);
        g.setColor(new Color(90, 96, 110));
        g.drawRect(x, y, 14, 12);
        g.setColor(DIM_TEXT);
        g.drawString(text, x + 20, y + 11);
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
