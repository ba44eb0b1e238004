package io.snode.bench.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an option's value at the commas that are outside brackets: {@code --structure} takes
 * names and layout texts, and a layout text has commas of its own inside {@code ( )}, {@code [ ]}
 * and {@code { }} ({@code pointer(ijk,16).dense(ijk,[8,8,8]).place(f32 a, f32 b)}), which
 * picocli's {@code split=","} would cut. Items are stripped; empty items (a doubled or trailing
 * comma) are dropped. A closing bracket without its opening one is kept as text (the layout
 * parser then says where it is); an opening one without its closing one keeps the rest of the
 * value in its item.
 */
final class CommaList {
    private CommaList() {
    }

    static List<String> split(String value) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int n = 0; n < value.length(); n++) {
            char c = value.charAt(n);
            switch (c) {
                case '(', '[', '{' -> depth++;
                case ')', ']', '}' -> depth = Math.max(0, depth - 1);
                case ',' -> {
                    if (depth == 0) {
                        add(items, value.substring(start, n));
                        start = n + 1;
                    }
                }
                default -> { }
            }
        }
        add(items, value.substring(start));
        return items;
    }

    private static void add(List<String> items, String item) {
        String stripped = item.strip();
        if (!stripped.isEmpty()) {
            items.add(stripped);
        }
    }
}
