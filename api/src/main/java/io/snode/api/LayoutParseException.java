package io.snode.api;

import java.util.Objects;

/**
 * Text that is not in the layout grammar. The message gives where parsing stopped (the 1-based
 * column, and the line when the text has several), what was expected there and what was found,
 * followed by that line of the text (around the column, when it is long; a tab shown as a space,
 * other control characters and lone surrogates as '?') and a caret under the column. A
 * character that cannot be seen (a control or format character, a space other than ' ', a lone
 * surrogate) is named as found by its code point.
 */
public final class LayoutParseException extends IllegalArgumentException {
    /** Characters of the offending line the message shows at most, around the column. */
    private static final int SHOWN = 100;

    private final int position;
    private final int line;
    private final int column;
    private final String expected;
    private final String text;

    /**
     * @param text     the text that was parsed
     * @param position the 1-based position in {@code text} where parsing stopped ({@code text.length() + 1} at its end)
     * @param expected what the grammar allowed there
     * @param found    what was found there
     */
    public LayoutParseException(String text, int position, String expected, String found) {
        this(Objects.requireNonNull(text, "text"), checked(text, position), expected, found, lineStart(text, position - 1));
    }

    private LayoutParseException(String text, int position, String expected, String found, int lineStart) {
        this(text, position, expected, found, lineStart, 1 + lineBreaks(text, lineStart));
    }

    private LayoutParseException(String text, int position, String expected, String found, int lineStart, int line) {
        super(message(text, position - 1, lineStart, line, Objects.requireNonNull(expected, "expected"),
                Objects.requireNonNull(found, "found")));
        this.position = position;
        this.line = line;
        this.column = position - lineStart;
        this.expected = expected;
        this.text = text;
    }

    private static int checked(String text, int position) {
        if (position < 1 || position > text.length() + 1) {
            throw new IllegalArgumentException("position=" + position + " must be between 1 and " + (text.length() + 1));
        }
        return position;
    }

    /** The index where the line holding {@code offset} starts (lines end with LF, CR LF or CR). */
    private static int lineStart(String text, int offset) {
        int before = Math.min(offset, text.length()) - 1;
        return Math.max(text.lastIndexOf('\n', before), text.lastIndexOf('\r', before)) + 1;
    }

    /** Line breaks (LF, CR LF or CR, each one) before index {@code end}. */
    private static int lineBreaks(String text, int end) {
        int breaks = 0;
        for (int n = 0; n < end; n++) {
            char c = text.charAt(n);
            if (c == '\n' || c == '\r' && (n + 1 >= text.length() || text.charAt(n + 1) != '\n')) {
                breaks++;
            }
        }
        return breaks;
    }

    private static String message(String text, int offset, int lineStart, int line, String expected, String found) {
        int lineEnd = lineStart;
        while (lineEnd < text.length() && text.charAt(lineEnd) != '\n' && text.charAt(lineEnd) != '\r') {
            lineEnd++;
        }
        int column = offset - lineStart + 1;
        boolean oneLine = lineStart == 0 && lineEnd == text.length();
        // Show at most SHOWN characters of the line, around the column, without splitting a surrogate pair.
        int from = Math.max(lineStart, Math.min(offset - SHOWN / 2, lineEnd - SHOWN));
        int to = Math.min(lineEnd, from + SHOWN);
        if (from > lineStart && Character.isLowSurrogate(text.charAt(from))) {
            from++;
        }
        if (to < lineEnd && Character.isHighSurrogate(text.charAt(to - 1))) {
            to--;
        }
        String shown = (from > lineStart ? "..." : "") + printable(text.substring(from, to))
                + (to < lineEnd ? "..." : "");
        int caret = (from > lineStart ? 3 : 0) + text.codePointCount(from, Math.max(from, Math.min(offset, to)));
        return (oneLine ? "" : "line " + line + ", ") + "column " + column + ": expected " + expected + " but found "
                + found + System.lineSeparator() + "  " + shown
                + System.lineSeparator() + "  " + " ".repeat(caret) + "^";
    }

    /**
     * {@code line} as it can be printed on one line, a character for a character (so the caret
     * stays under its column): a tab as a space, other control characters and lone surrogates as
     * {@code '?'} (the message names the one found by its code point).
     */
    private static String printable(String line) {
        StringBuilder shown = new StringBuilder(line.length());
        for (int n = 0; n < line.length(); n++) {
            char c = line.charAt(n);
            boolean paired = Character.isHighSurrogate(c) && n + 1 < line.length() && Character.isLowSurrogate(line.charAt(n + 1))
                    || Character.isLowSurrogate(c) && n > 0 && Character.isHighSurrogate(line.charAt(n - 1));
            if (c == '\t') {
                shown.append(' ');
            } else if (Character.isISOControl(c) || Character.isSurrogate(c) && !paired) {
                shown.append('?');
            } else {
                shown.append(c);
            }
        }
        return shown.toString();
    }

    /** The 1-based column, in its line, where parsing stopped. */
    public int column() {
        return column;
    }

    /** The 1-based line where parsing stopped. */
    public int line() {
        return line;
    }

    /** The 1-based position in the whole text where parsing stopped. */
    public int position() {
        return position;
    }

    /** What the grammar allowed there. */
    public String expected() {
        return expected;
    }

    /** The text that was parsed. */
    public String text() {
        return text;
    }
}
