package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Bad arguments of this module's public statistics: each is refused up front with a message that
 * names it. Before, a null list failed with List.copyOf's message-less NullPointerException, a
 * null owner name was accepted (and broke {@code of} later), and {@code of(null)} said
 * "ownerName=null was not collected" (an IllegalArgumentException).
 */
class ArgumentChecksTest {

    /** A closed collector said nothing of it until 12-07. */
    @Test
    void aClosedParallelCollectorSaysSo() {
        ParallelCollector collector = ParallelCollector.builder().parallelism(2).build();
        org.assertj.core.api.Assertions.assertThat(collector.toString()).doesNotContain("closed");
        collector.close();
        org.assertj.core.api.Assertions.assertThat(collector.toString()).endsWith(", closed]");
    }

    @Test
    void nullsAreNamed() {
        assertThatThrownBy(() -> new GcStatistics(1, 1, "scalar", 0, null))
                .isInstanceOf(NullPointerException.class).hasMessage("snodes");
        assertThatThrownBy(() -> new SNodeGcStatistics(null, 8, 0, 0, 0, 0, 0, 0, 0, 0))
                .isInstanceOf(NullPointerException.class).hasMessage("ownerName");
        assertThatThrownBy(() -> GcStatistics.NONE.of(null))
                .isInstanceOf(NullPointerException.class).hasMessage("ownerName");
    }
}
