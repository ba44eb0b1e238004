package io.snode.bench.demo;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Step lines with, on a terminal, a progress bar kept on the line below the last of them: each
 * new line erases the bar, prints itself and redraws the bar. Off a terminal only the lines go
 * out, so logs and pipes stay clean.
 */
public final class ProgressBar {
    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final int total;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private boolean drawn;

    public ProgressBar(PrintWriter out, int total, boolean enabled) {
        this.out = out;
        this.total = total;
        this.enabled = enabled;
    }

    /** Prints {@code text} as one line, then the bar at {@code done} of the total. */
    public void line(String text, int done) {
        erase();
        out.println(text);
        if (enabled) {
            out.print(bar(done, total, System.nanoTime() - start));
            drawn = true;
        }
        out.flush();
    }

    /** Erases the bar. */
    public void done() {
        erase();
        out.flush();
    }

    private void erase() {
        if (drawn) {
            out.print("\r\033[K");
            drawn = false;
        }
    }

    /** The bar's text: filled cells, percentage, elapsed time and an estimate of what is left. */
    static String bar(int done, int total, long elapsedNanos) {
        int filled = (int) ((long) WIDTH * done / total);
        double seconds = elapsedNanos / 1e9;
        double left = done == 0 ? 0 : seconds * (total - done) / done;
        return String.format(Locale.ROOT, "[%s%s] %3d%%  %d/%d steps  %.0f s, about %.0f s left",
                "#".repeat(filled), ".".repeat(WIDTH - filled), 100L * done / total, done, total, seconds, left);
    }
}
