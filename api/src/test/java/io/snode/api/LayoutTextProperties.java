package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.testing.RandomLayouts;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class LayoutTextProperties {

    @Property(tries = 600)
    void textFormRoundTrips(@ForAll("layouts") Layout layout) {
        Layout parsed = Layout.parse(layout.toString());
        assertThat(parsed).isEqualTo(layout);
        assertThat(parsed.toString()).isEqualTo(layout.toString());
        assertThat(parsed.snodes()).hasSameSizeAs(layout.snodes());
        for (PlacedField field : layout.fields()) {
            PlacedField again = parsed.field(field.name());
            assertThat(again.shape()).containsExactly(field.shape());
            assertThat(again.axes()).isEqualTo(field.axes());
            assertThat(again.snode().path()).isEqualTo(field.snode().path());
        }
    }

    @Property(tries = 1000)
    void garbageNeverGivesAnythingButTheTwoLayoutExceptions(@ForAll("garbage") String text) {
        try {
            Layout layout = Layout.parse(text);
            assertThat(Layout.parse(layout.toString())).isEqualTo(layout);
        } catch (LayoutParseException | LayoutException expected) {
            assertThat(expected).isInstanceOf(IllegalArgumentException.class);
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts();
    }

    /** Random characters from the grammar's alphabet, and valid texts with one edit. */
    @Provide
    Arbitrary<String> garbage() {
        Arbitrary<String> alphabet = Arbitraries.strings()
                .withChars("densbitmakpoyc(){}[];.,-0123456789ijklmnopqf32 _x")
                .ofMaxLength(60);
        Arbitrary<String> anything = Arbitraries.strings().all().ofMaxLength(40);
        Arbitrary<String> mutated = Combinators.combine(RandomLayouts.layouts(),
                Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(0, 3),
                Arbitraries.chars().with("(){}[];.,-09ijq \u0000")).as((layout, at, edit, c) -> {
                    String text = layout.toString();
                    int position = at % (text.length() + 1);
                    return switch (edit) {
                        case 0 -> text.substring(0, position);
                        case 1 -> text.substring(0, position) + c + text.substring(position);
                        case 2 -> position < text.length()
                                ? text.substring(0, position) + text.substring(position + 1) : text + c;
                        default -> position < text.length()
                                ? text.substring(0, position) + c + text.substring(position + 1) : text;
                    };
                });
        return Arbitraries.oneOf(alphabet, anything, mutated);
    }
}
