package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LayoutTextTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)",
            "pointer(ijk,16){ dense(ijk,8).place(f32 phi, f32 vx); dynamic(l,1048576,64).place(i32 particle) }",
            "pointer(i,128).dense(i,128).place(f32 x); place(i32 s)",
            "bitmasked(ij,[3,6]).bitmasked(i,8).place(f32 x)",
            "pointer(ijk,16){ place(f32 coarse); dense(ijk,8).place(f32 phi) }",
            "hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)",
            "hash(ij,[3,1000]){ place(f32 coarse); hash(i,7).bitmasked(ij,4).place(f32 x) }",
    })
    void theIssueExamplesParse(String text) {
        Layout layout = Layout.parse(text);
        assertThat(Layout.parse(layout.toString())).isEqualTo(layout);
    }

    @Test
    void theTextFormReadsLikeTheBuilder() {
        Layout built = Layout.build(root -> {
            var block = root.pointer(Axes.IJK, 16).pointer(Axes.IJK, 16);
            block.dense(Axes.IJK, 8).place(Field.f32("phi"), Field.f32("vx"));
            block.dynamic(Axis.L, 1 << 20, 64).place(Field.i32("particle"));
        });
        Layout parsed = Layout.parse("pointer(ijk,16).pointer(ijk,16){ dense(ijk,8).place(f32 phi, f32 vx);"
                + " dynamic(l,1048576,64).place(i32 particle) }");
        assertThat(parsed).isEqualTo(built);
        assertThat(parsed.field("particle").shape()).containsExactly(256, 256, 256, 1 << 20);
    }

    @Test
    void aHashNodeReadsLikeTheBuilderAndSpansTheDomainOfItsSizes() {
        Layout built = Layout.build(root -> root.hash(Axes.IJK, 65536).pointer(Axes.IJK, 16).dense(Axes.IJK, 8)
                .place(Field.f32("phi")));
        Layout parsed = Layout.parse("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
        assertThat(parsed).isEqualTo(built);
        assertThat(parsed.toString()).isEqualTo("hash(ijk,65536).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
        assertThat(parsed.field("phi").shape()).containsExactly(8_388_608, 8_388_608, 8_388_608);
        SNode hash = parsed.field("phi").snode().ancestry().get(1);
        assertThat(hash.kind()).isEqualTo(NodeKind.HASH);
        assertThat(hash.kind().isSparse()).isTrue();
        assertThat(hash.cellCount()).isEqualTo(1L << 48);
    }

    @Test
    void canonicalFormPrintsBothDynamicNumbersAndSizesAsGiven() {
        assertThat(Layout.parse("dynamic(i,64).place(f32 x)").toString()).isEqualTo("dynamic(i,64,64).place(f32 x)");
        assertThat(Layout.parse("dynamic(i,2147483647).place(f32 x)").toString())
                .isEqualTo("dynamic(i,2147483647,1024).place(f32 x)");
        assertThat(Layout.parse("dense(ij,[4,4]).place(f32 x)").toString()).isEqualTo("dense(ij,[4,4]).place(f32 x)");
        assertThat(Layout.parse("dense(ij,4).place(f32 x)").toString()).isEqualTo("dense(ij,4).place(f32 x)");
        assertThat(Layout.parse("dense(i,[4]).place(f32 x)").toString()).isEqualTo("dense(i,[4]).place(f32 x)");
    }

    @Test
    void whitespaceMayStandBetweenTokensAndPlaceItemsGatherFirst() {
        Layout layout = Layout.parse("  pointer ( ij , [ 2 , 3 ] ) {\n dense(i,2) . place( f64 a ) ;"
                + " place(i64 b) ;\tplace(i32 c) }  ; place ( f32 d )");
        assertThat(layout.toString())
                .isEqualTo("place(f32 d); pointer(ij,[2,3]){ place(i64 b, i32 c); dense(i,2).place(f64 a) }");
        assertThat(layout.field("b").slot()).isZero();
        assertThat(layout.field("c").slot()).isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|1|a node (dense, bitmasked, pointer, hash, dynamic) or place",
            "dense(ijk,8)|13|'.' or '{'",
            "dense(ijk,8).place(f32 phi|27|',' or ')'",
            "dense(ijk 8).place(f32 phi)|11|','",
            "sparse(ijk,8).place(f32 phi)|1|a node",
            "dense(ijk,8).place(f16 phi)|20|a field type (i32, i64, f32, f64)",
            "dense(ijk,8).place(f32)|23|a field name",
            "dense(ijk,99999999999).place(f32 x)|11|an int",
            "dense(ijk,8).place(f32 x);|27|a node",
            "dense(ijk,8).place(f32 x) extra|27|';' or the end of the layout",
            "dense(,8).place(f32 x)|7|axes",
            "dense(i,[]).place(f32 x)|10|an int",
            "pointer(i,4){}|14|a node",
            "pointer(i,4){ dense(i,2).place(f32 x)|38|';' or '}'",
            "dynamic(i,4,2,1).place(f32 x)|14|',' or ')'",
    })
    void textThatDoesNotParseSaysWhereAndWhatWasExpected(String text, int column, String expected) {
        LayoutParseException e = catchThrowableOfType(LayoutParseException.class, () -> Layout.parse(text));
        assertThat(e).isNotNull().isInstanceOf(IllegalArgumentException.class);
        assertThat(e.column()).isEqualTo(column);
        assertThat(e.expected()).contains(expected);
        assertThat(e).hasMessageStartingWith("column " + column + ": expected ");
        assertThat(e.getMessage()).contains(text).contains(" ".repeat(column + 1) + "^");
    }

    /** In a text of several lines (a text block, say), the message gives the line and its column and shows that line. */
    @Test
    void anErrorInATextOfSeveralLinesNamesTheLineAndShowsIt() {
        String text = "place(f32 a);\ndense(i,2)\n.place(f32 b);\n  dense(q,2).place(f32 c)";
        LayoutParseException e = catchThrowableOfType(LayoutParseException.class, () -> Layout.parse(text));
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.column()).isEqualTo(9);
        assertThat(e.position()).isEqualTo(text.indexOf('q') + 1);
        assertThat(e.getMessage().lines()).containsExactly(
                "line 4, column 9: expected an axis letter i, j, k, l, m, n, o or p but found 'q,2).place(f'",
                "    dense(q,2).place(f32 c)",
                "          ^");
    }

    /** Windows' and old Mac line breaks count as one line break each, as Unix's do. */
    @Test
    void crLfAndALoneCrBreakLinesToo() {
        for (String text : java.util.List.of("place(f32 a);\r\ndense(i,2)\r\n.place(f32 b);\r\n  dense(q,2).place(f32 c)",
                "place(f32 a);\rdense(i,2)\r.place(f32 b);\r  dense(q,2).place(f32 c)")) {
            LayoutParseException e = catchThrowableOfType(LayoutParseException.class, () -> Layout.parse(text));
            assertThat(e.line()).isEqualTo(4);
            assertThat(e.column()).isEqualTo(9);
            assertThat(e.getMessage().lines()).containsExactly(
                    "line 4, column 9: expected an axis letter i, j, k, l, m, n, o or p but found 'q,2).place(f'",
                    "    dense(q,2).place(f32 c)",
                    "          ^");
        }
    }

    /** A character that looks like a space but is none to the parser (a no-break space) is named by its code point. */
    @Test
    void anInvisibleCharacterFoundIsNamedByItsCodePoint() {
        LayoutParseException e = catchThrowableOfType(LayoutParseException.class,
                () -> Layout.parse("dense(i,8).place(f32 x)\u00a0"));
        assertThat(e.getMessage().lines().findFirst().orElseThrow())
                .isEqualTo("column 24: expected ';' or the end of the layout but found U+00A0 (no-break space)");
    }

    /**
     * The message is the position line, the text's line and the caret line, whatever the text
     * holds: a control character is named by its code point and shown as '?' in the line (it
     * was echoed raw), and so is a lone surrogate (one before a line break took the line break
     * into "found", making a fourth line).
     */
    @Test
    void controlCharactersAndLoneSurrogatesKeepTheMessageToThreeLines() {
        LayoutParseException nul = catchThrowableOfType(LayoutParseException.class,
                () -> Layout.parse("dense(i,8).place(f32 x)\u0000"));
        List<String> lines = nul.getMessage().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).endsWith("but found U+0000 (null)");
        assertThat(lines.get(1)).isEqualTo("  dense(i,8).place(f32 x)?");
        assertThat(lines.get(2).indexOf('^')).isEqualTo(lines.get(1).indexOf('?'));
        LayoutParseException inWord = catchThrowableOfType(LayoutParseException.class,
                () -> Layout.parse("dense(i,8).pl\u0007ace(f32 x)"));
        lines = inWord.getMessage().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).endsWith("but found 'pl'");
        assertThat(lines.get(1)).isEqualTo("  dense(i,8).pl?ace(f32 x)");
        LayoutParseException lone = catchThrowableOfType(LayoutParseException.class,
                () -> Layout.parse("dense(i,8).place(f32 x\uD800\n)"));
        lines = lone.getMessage().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("line 1, column 23:").endsWith("but found U+D800");
        assertThat(lines.get(1)).isEqualTo("  dense(i,8).place(f32 x?");
        assertThat(lone.getMessage().chars().filter(c -> Character.isSurrogate((char) c))).isEmpty();
    }

    /** A long text is shown around the column only, so the message stays short, and a surrogate pair is never cut. */
    @Test
    void aLongTextIsShownAroundTheColumnWholeCharactersOnly() {
        String text = "pointer(i,4){ " + "dense(i,1).place(f32 a);".repeat(5000) + " dense(i,x).place(f32 b) }";
        LayoutParseException e = catchThrowableOfType(LayoutParseException.class, () -> Layout.parse(text));
        assertThat(e.getMessage().length()).isLessThan(400);
        String[] lines = e.getMessage().split("\\R");
        assertThat(lines[1]).startsWith("  ...").contains("dense(i,x)");
        assertThat(lines[2].indexOf('^')).isEqualTo(lines[1].indexOf("x)"));
        String emoji = "dense(q,234567890\uD83D\uDE00).place(f32 a)";
        LayoutParseException pair = catchThrowableOfType(LayoutParseException.class, () -> Layout.parse(emoji));
        assertThat(pair.getMessage()).contains("\uD83D\uDE00");
        assertThat(pair.getMessage().chars().filter(c -> Character.isSurrogate((char) c)).count() % 2).isZero();
    }

    /** Leading zeros do not count; a number beyond an int says which bound it passes. */
    @Test
    void numbersAreReadAsIntsWithTheirBoundsNamed() {
        assertThat(Layout.parse("dense(i,00000000004).place(f32 x)").snode(1).sizes()).containsExactly(4);
        assertThat(catchThrowableOfType(LayoutParseException.class, () -> Layout.parse("dense(i,21474836470).place(f32 x)"))
                .expected()).isEqualTo("an int of at most 2147483647");
        assertThat(catchThrowableOfType(LayoutParseException.class, () -> Layout.parse("dense(i,-9999999999).place(f32 x)"))
                .expected()).isEqualTo("an int of at least -2147483648");
    }

    @Test
    void deepNestingIsARuleErrorNotAStackOverflow() {
        String deep = "dense(i,1){".repeat(100_000);
        LayoutException e = catchThrowableOfType(LayoutException.class, () -> Layout.parse(deep));
        assertThat(e).isNotNull();
        assertThat(e.rule()).isEqualTo(LayoutRule.TOO_DEEP);
    }
}
