package io.snode.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Recursive-descent parser of the layout text form. It declares the nodes through a
 * {@link NodeBuilder}, so a text that parses is checked by exactly the rules the builder is.
 * Whitespace may stand between any two tokens.
 *
 * <pre>
 * layout := item (';' item)*
 * item   := place | chain
 * place  := 'place' '(' type name (',' type name)* ')'
 * chain  := node ('.' node)* ('.' place | block)
 * block  := '{' item (';' item)* '}'
 * node   := ('dense' | 'bitmasked' | 'pointer' | 'hash') '(' axes ',' sizes ')'
 *         | 'dynamic' '(' axes ',' int (',' int)? ')'
 * sizes  := int | '[' int (',' int)* ']'
 * axes   := letters from i..p, at most 8
 * type   := 'i32' | 'i64' | 'f32' | 'f64'
 * name   := [A-Za-z0-9_]+   (checked against [A-Za-z_][A-Za-z0-9_]* by the layout rules)
 * </pre>
 */
final class LayoutParser {
    private final String text;
    private int position;

    LayoutParser(String text) {
        this.text = text;
    }

    void parseInto(NodeBuilder root) {
        parseItems(root);
        skipSpace();
        if (position < text.length()) {
            throw error("';' or the end of the layout");
        }
    }

    private void parseItems(NodeBuilder owner) {
        parseItem(owner);
        while (peek(';')) {
            position++;
            parseItem(owner);
        }
    }

    private void parseItem(NodeBuilder owner) {
        skipSpace();
        int start = position;
        String word = word();
        if (word.equals("place")) {
            parsePlace(owner);
        } else {
            position = start;
            parseChain(owner);
        }
    }

    private void parseChain(NodeBuilder owner) {
        NodeBuilder node = parseNode(owner);
        while (true) {
            skipSpace();
            if (peek('{')) {
                position++;
                parseItems(node);
                expect('}', "';' or '}'");
                return;
            }
            expect('.', "'.' or '{'");
            skipSpace();
            int start = position;
            String word = word();
            if (word.equals("place")) {
                parsePlace(node);
                return;
            }
            position = start;
            node = parseNode(node);
        }
    }

    private NodeBuilder parseNode(NodeBuilder parent) {
        skipSpace();
        int start = position;
        String kind = word();
        switch (kind) {
            case "dense", "bitmasked", "pointer", "hash" -> {
                expect('(', "'('");
                Axes axes = parseAxes();
                expect(',', "','");
                skipSpace();
                boolean list = peek('[');
                List<Integer> sizes = new ArrayList<>();
                if (list) {
                    position++;
                    sizes.add(parseInt());
                    while (peek(',')) {
                        position++;
                        sizes.add(parseInt());
                    }
                    expect(']', "',' or ']'");
                } else {
                    sizes.add(parseInt());
                }
                expect(')', "')'");
                int[] values = sizes.stream().mapToInt(Integer::intValue).toArray();
                return switch (kind) {
                    case "dense" -> list ? parent.dense(axes, values) : parent.dense(axes, values[0]);
                    case "bitmasked" -> list ? parent.bitmasked(axes, values) : parent.bitmasked(axes, values[0]);
                    case "pointer" -> list ? parent.pointer(axes, values) : parent.pointer(axes, values[0]);
                    default -> list ? parent.hash(axes, values) : parent.hash(axes, values[0]);
                };
            }
            case "dynamic" -> {
                expect('(', "'('");
                Axes axes = parseAxes();
                expect(',', "','");
                int capacity = parseInt();
                int chunk = NodeBuilder.defaultChunkSize(capacity);
                if (peek(',')) {
                    position++;
                    chunk = parseInt();
                }
                expect(')', "',' or ')'");
                return parent.dynamic(axes, capacity, chunk);
            }
            default -> {
                position = start;
                throw error("a node (dense, bitmasked, pointer, hash, dynamic) or place");
            }
        }
    }

    private Axes parseAxes() {
        skipSpace();
        int start = position;
        List<Axis> axes = new ArrayList<>();
        while (position < text.length() && Character.isLetter(text.charAt(position))) {
            char letter = text.charAt(position);
            if (letter < 'i' || letter > 'p') {
                throw error("an axis letter i, j, k, l, m, n, o or p");
            }
            if (axes.size() == Axis.MAX_AXES) {
                throw error("',' after at most 8 axes");
            }
            axes.add(Axis.of(letter));
            position++;
        }
        if (axes.isEmpty()) {
            position = start;
            throw error("axes (letters i to p)");
        }
        return Axes.of(axes.toArray(new Axis[0]));
    }

    private void parsePlace(NodeBuilder owner) {
        expect('(', "'('");
        List<Field> fields = new ArrayList<>();
        do {
            if (!fields.isEmpty()) {
                position++;
            }
            skipSpace();
            int start = position;
            String typeName = word();
            FieldType type = FieldType.fromText(typeName);
            if (type == null) {
                position = start;
                throw error("a field type (i32, i64, f32, f64)");
            }
            skipSpace();
            String name = word();
            if (name.isEmpty()) {
                throw error("a field name");
            }
            fields.add(new Field(name, type));
        } while (peek(','));
        expect(')', "',' or ')'");
        owner.place(fields.toArray(new Field[0]));
    }

    private int parseInt() {
        skipSpace();
        int start = position;
        if (position < text.length() && text.charAt(position) == '-') {
            position++;
        }
        int digitsStart = position;
        while (position < text.length() && isDigit(text.charAt(position))) {
            position++;
        }
        if (position == digitsStart) {
            position = start;
            throw error("an int");
        }
        boolean negative = digitsStart > start;
        int significant = digitsStart; // leading zeros do not count
        while (significant < position - 1 && text.charAt(significant) == '0') {
            significant++;
        }
        long value = position - significant > 10 ? (negative ? Long.MIN_VALUE : Long.MAX_VALUE)
                : Long.parseLong((negative ? "-" : "") + text.substring(significant, position));
        if (value > Integer.MAX_VALUE) {
            position = start;
            throw error("an int of at most 2147483647");
        }
        if (value < Integer.MIN_VALUE) {
            position = start;
            throw error("an int of at least -2147483648");
        }
        return (int) value;
    }

    /** A run of [A-Za-z0-9_], possibly empty. */
    private String word() {
        int start = position;
        while (position < text.length()) {
            char c = text.charAt(position);
            if (!(c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                break;
            }
            position++;
        }
        return text.substring(start, position);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private boolean peek(char c) {
        skipSpace();
        return position < text.length() && text.charAt(position) == c;
    }

    private void expect(char c, String expected) {
        if (!peek(c)) {
            throw error(expected);
        }
        position++;
    }

    private void skipSpace() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }

    /** A character a message cannot show as itself: a space or control character the parser does not skip. */
    /** Named by its code point in a message: not shown as itself (a lone surrogate is half a character). */
    private boolean invisible(char c) {
        return Character.isSpaceChar(c) || Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                || Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && position + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(position + 1)));
    }

    private LayoutParseException error(String expected) {
        String found;
        if (position >= text.length()) {
            found = "the end of the text";
        } else if (invisible(text.charAt(position))) {
            char c = text.charAt(position);
            found = String.format(Locale.ROOT, "U+%04X", (int) c)
                    + (Character.getName(c) == null || Character.isSurrogate(c) ? ""
                            : " (" + Character.getName(c).toLowerCase(Locale.ROOT) + ")");
        } else {
            int end = position;
            while (end < text.length() && end - position < 12 && !Character.isWhitespace(text.charAt(end))
                    && !Character.isISOControl(text.charAt(end))) {
                end++;
            }
            end = Math.max(end, position + 1);
            if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))
                    && Character.isLowSurrogate(text.charAt(end))) {
                end++; // not half of a pair
            }
            found = "'" + text.substring(position, end) + "'";
        }
        return new LayoutParseException(text, position + 1, expected, found);
    }
}
