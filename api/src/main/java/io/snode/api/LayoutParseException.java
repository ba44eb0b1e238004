package io.snode.api;

/**
 * Text that is not in the layout grammar. The message gives the 1-based column, what was
 * expected there and what was found, followed by the text and a caret under the column.
 */
public final class LayoutParseException extends IllegalArgumentException {
    private final int column;
    private final String expected;
    private final String text;

    public LayoutParseException(String text, int column, String expected, String found) {
        super("column " + column + ": expected " + expected + " but found " + found
                + System.lineSeparator() + "  " + text
                + System.lineSeparator() + "  " + " ".repeat(Math.max(0, column - 1)) + "^");
        this.column = column;
        this.expected = expected;
        this.text = text;
    }

    /** The 1-based column where parsing stopped. */
    public int column() {
        return column;
    }

    /** What the grammar allowed at that column. */
    public String expected() {
        return expected;
    }

    /** The text that was parsed. */
    public String text() {
        return text;
    }
}
